/**
 * The peer of the benchmark (bench/README.md): the official MCP TypeScript SDK v2 server
 * (`@modelcontextprotocol/server`, served through `@modelcontextprotocol/node`'s adapter) on
 * Koa 3 + @koa/router, with a jose ES256 bearer check in front of `/mcp`, as a small team would
 * write it. It registers the same number of tools as our admin `tools/list`, with our tools'
 * names, descriptions and input schemas (read from `--tools <file.json>`), the last one
 * replaced by `echo`, which answers its arguments as text.
 *
 * Prints one JSON line `{"port", "token"}` on stdout once it listens; the token is signed with a
 * key generated at start-up and verified on every request (no verification cache).
 * Usage: node --import tsx bench/peers/sdk-server.ts --tools <file.json> [--port 0]
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import Koa from 'koa';
import Router from '@koa/router';
import { SignJWT, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { McpServer, createMcpHandler, fromJsonSchema, type JsonSchemaType } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';

interface ToolSpec { readonly name: string; readonly title?: string; readonly description?: string; readonly inputSchema: JsonSchemaType }

const { values } = parseArgs({ options: { tools: { type: 'string' }, port: { type: 'string', default: '0' } } });
const specs = JSON.parse(fs.readFileSync(String(values.tools), 'utf8')) as ToolSpec[];
const echo: ToolSpec = {
  name: 'echo', description: 'Answers its arguments as text.',
  inputSchema: { type: 'object', properties: { workspace_id: { type: 'string' }, id: { type: 'string' } }, additionalProperties: false },
};
const tools = [...specs.slice(0, Math.max(0, specs.length - 1)), echo].map((spec) => ({ spec, schema: fromJsonSchema(spec.inputSchema) }));

const AUDIENCE = 'bench-sdk';
const ISSUER = 'bench-sdk-issuer';
const { publicKey, privateKey } = await generateKeyPair('ES256');
await exportJWK(publicKey); // the key a JWKS endpoint would publish; verification uses it directly
const token = await new SignJWT({ scope: 'tools' }).setProtectedHeader({ alg: 'ES256' })
  .setIssuer(ISSUER).setAudience(AUDIENCE).setSubject('bench').setIssuedAt().setExpirationTime('2h').sign(privateKey);

/** The SDK's modern serving builds one server per request from this factory. */
function buildServer(): McpServer {
  const server = new McpServer({ name: 'sdk-peer', version: '1.0.0' });
  for (const { spec, schema } of tools) {
    server.registerTool(spec.name, { title: spec.title, description: spec.description, inputSchema: schema }, async (args: unknown) => ({
      content: [{ type: 'text', text: spec.name === 'echo' ? JSON.stringify(args) : 'not implemented' }],
    }));
  }
  return server;
}

const handler = toNodeHandler(createMcpHandler(buildServer, { responseMode: 'json' }));
const app = new Koa();
const router = new Router();
router.post('/mcp', async (ctx) => {
  const match = /^Bearer (.+)$/.exec(ctx.get('authorization'));
  let claims;
  try {
    if (!match?.[1]) throw new Error('missing');
    ({ payload: claims } = await jwtVerify(match[1], publicKey, { algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE }));
  } catch {
    ctx.status = 401;
    ctx.set('WWW-Authenticate', 'Bearer');
    return;
  }
  ctx.respond = false;
  const req = Object.assign(ctx.req, { auth: { token: match[1], clientId: String(claims.sub), scopes: ['tools'] } });
  await handler(req, ctx.res);
});
app.use(router.routes());
const server = app.listen(Number(values.port), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port, token })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
