/**
 * The ceiling of the benchmark (bench/README.md): bare Koa 3 + @koa/router + @koa/bodyparser,
 * `POST /echo` answering its JSON body. No authentication, no database.
 * Prints one JSON line `{"port"}` on stdout once it listens.
 * Usage: node --import tsx bench/peers/koa-echo.ts [--port 0]
 */
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } });
const app = new Koa();
const router = new Router();
router.post('/echo', (ctx) => {
  ctx.body = (ctx.request as unknown as { body: unknown }).body;
});
app.use(bodyParser());
app.use(router.routes());
const server = app.listen(Number(values.port), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
