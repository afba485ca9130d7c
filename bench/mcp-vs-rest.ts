/**
 * MCP vs REST on loopback, one run: `tools/call finance_payables_get` against
 * `GET /v1/payables/{id}` for the same record (target: MCP ≥ 85% of REST throughput), and
 * `tools/list` for the admin (p50/p99, response size in bytes and ≈ tokens = bytes / 4).
 * A script, not a test (docs/architecture.md#conventions).
 * Usage: node --import tsx bench/mcp-vs-rest.ts [--seconds 10] [--connections 10]
 */
import { parseArgs } from 'node:util';
import { startTestApp } from '../test/helpers/test-app.js';
import { DEMO } from '../src/seed/ids.js';
import { autocannon, type AutocannonOptions } from './autocannon.js';

interface Summary { name: string; rps: number; p50: number; p99: number; bytes: number; errors: number; non2xx: number }

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' } } });
const seconds = Number(values.seconds);
const connections = Number(values.connections);

function run(name: string, options: AutocannonOptions): Promise<Summary> {
  return new Promise((resolve, reject) => {
    autocannon({ connections, duration: seconds, ...options }, (error, result) => {
      if (error) return reject(error);
      resolve({
        name,
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        bytes: result.throughput.total / Math.max(1, result.requests.total),
        errors: result.errors + result.timeouts,
        non2xx: result.non2xx,
      });
    });
  });
}

async function main(): Promise<void> {
  const app = await startTestApp({ config: { logLevel: 'silent' } });
  try {
    const row = await app.services.db.selectFrom('titles').select('id')
      .where('workspace_id', '=', DEMO.workspaces.matriz).where('kind', '=', 'payable').orderBy('id').executeTakeFirstOrThrow();
    const mcpToken = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write', ttlSeconds: 3600 });
    const apiToken = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write', aud: 'api', ttlSeconds: 3600 });
    const restRequest: AutocannonOptions = {
      url: `${app.url}/v1/payables/${row.id}`,
      headers: { authorization: `Bearer ${apiToken}`, 'x-workspace-id': DEMO.workspaces.matriz },
    };
    const mcpHeaders = { authorization: `Bearer ${mcpToken}`, 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' };
    const callRequest: AutocannonOptions = {
      url: `${app.url}/mcp`,
      method: 'POST',
      headers: mcpHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'finance_payables_get', arguments: { workspace_id: DEMO.workspaces.matriz, id: row.id } } }),
    };
    const listBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const listRequest: AutocannonOptions = { url: `${app.url}/mcp`, method: 'POST', headers: mcpHeaders, body: listBody };

    // Sanity: both sides answer the same record before anything is timed.
    const rest = await fetch(restRequest.url as string, { headers: restRequest.headers as Record<string, string> });
    const call = await fetch(`${app.url}/mcp`, { method: 'POST', headers: mcpHeaders, body: callRequest.body as string });
    const callJson = (await call.json()) as { result?: { isError?: boolean; content: { text: string }[] } };
    if (rest.status !== 200 || callJson.result?.isError || JSON.stringify(await rest.json()) !== JSON.stringify(JSON.parse(callJson.result?.content[0]?.text ?? 'null'))) {
      throw new Error('REST and MCP do not return the same record; fix that before benchmarking');
    }
    const list = await fetch(`${app.url}/mcp`, { method: 'POST', headers: mcpHeaders, body: listBody });
    const listText = await list.text();
    const toolCount = (JSON.parse(listText) as { result: { tools: unknown[] } }).result.tools.length;

    // Warm-up (JIT, caches), then the measured runs.
    await run('warm-up', { ...restRequest, duration: 2 });
    await run('warm-up', { ...callRequest, duration: 2 });
    const restSummary = await run('REST GET /v1/payables/{id}', restRequest);
    const callSummary = await run('MCP tools/call finance_payables_get', callRequest);
    const listSummary = await run(`MCP tools/list (admin, ${toolCount} tools)`, listRequest);

    const ratio = callSummary.rps / restSummary.rps;
    const lines = [
      `node ${process.version}, ${connections} connections, ${seconds}s per run, loopback`,
      '',
      '| run | req/s | p50 ms | p99 ms | bytes/response | errors | non-2xx |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...[restSummary, callSummary, listSummary].map((s) =>
        `| ${s.name} | ${s.rps.toFixed(0)} | ${s.p50} | ${s.p99} | ${s.bytes.toFixed(0)} | ${s.errors} | ${s.non2xx} |`),
      '',
      `MCP tools/call throughput = ${(ratio * 100).toFixed(1)}% of REST (target ≥ 85%): ${ratio >= 0.85 ? 'PASS' : 'FAIL'}`,
      `tools/list (admin): ${Buffer.byteLength(listText)} bytes ≈ ${Math.round(Buffer.byteLength(listText) / 4)} tokens (bytes/4), ${toolCount} tools`,
    ];
    console.log(lines.join('\n'));
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
