/**
 * `npm run bench`: one process tree, one run, side by side on loopback (autocannon in this
 * process, every server a child process):
 *
 *   - our server (the built `dist/` with plain node when it exists, else `src/` through tsx; the
 *     table says which), embedded SQLite with the demo seed and limits raised: REST
 *     `GET /v1/payables/{id}`, MCP `tools/call finance_payables_get` (2026-07-28) and
 *     `tools/list` (admin, every tool);
 *   - the official MCP SDK v2 server on Koa with a jose ES256 bearer check and the same number of
 *     tools (bench/peers/sdk-server.ts): `tools/call` of an echo tool and `tools/list`;
 *   - bare Koa 3 + router + body parser echo (bench/peers/koa-echo.ts);
 *   - with `--baseline <dir>`, another checkout of this repository (e.g. the previous commit) for
 *     REST get and MCP tools/call, in the same run.
 *
 * Then our server's RSS at rest (after start-up), after warm-up and after `--load-seconds` of
 * tools/call load; with `--soak-minutes N`, N minutes of tools/call + tools/list load with an RSS
 * sample every 30 s (each after a forced GC: the children run with --expose-gc and collect on
 * SIGUSR2). Results are recorded in bench/README.md by hand; nothing here is a test.
 *
 * Each measured target runs `--rounds` times (default 3), the rounds interleaved; the table shows
 * the median round and every round's req/s.
 *
 * Usage: npm run bench -- [--seconds 10] [--rounds 3] [--connections 10] [--load-seconds 60] [--soak-minutes 0]
 *                         [--server auto|dist|tsx] [--baseline <dir>] [--tree <dir>]
 * (`--tree`: the checkout or build whose server is "ours", default this repository.)
 * (Run `bench/peers`'s `npm install` once: the SDK peer is its dev dependency.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/ports.js';
import { autocannon, type AutocannonOptions } from './autocannon.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MODERN = '2026-07-28';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    'load-seconds': { type: 'string', default: '60' },
    'soak-minutes': { type: 'string', default: '0' },
    server: { type: 'string', default: 'auto' },
    baseline: { type: 'string' },
    tree: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Math.max(1, Number(values.rounds));

// ───────────────────────────── child processes ─────────────────────────────

interface Child { readonly process: ChildProcess; readonly label: string; stdout: string; stderr: string }
const children: Child[] = [];

/** Starts `node [--import tsx] <entry>` with --expose-gc and a SIGUSR2 → gc() hook. */
function startNode(label: string, entry: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string, tsx: boolean): Child {
  const script = `process.on('SIGUSR2', () => globalThis.gc?.()); await import(${JSON.stringify(pathToImport(entry))});`;
  // The built server runs with `npm start`'s flag (package.json): 4 MB semi-spaces.
  const nodeArgs = ['--expose-gc', ...(tsx ? ['--import', 'tsx'] : ['--max-semi-space-size=4']), '--input-type=module', '-e', script, '--', ...args];
  const child: Child = { process: spawn(process.execPath, nodeArgs, { cwd, env: { ...process.env, MALLOC_ARENA_MAX: '2', ...env }, stdio: ['ignore', 'pipe', 'pipe'] }), label, stdout: '', stderr: '' };
  child.process.stdout?.on('data', (chunk: Buffer) => { child.stdout += chunk.toString(); });
  child.process.stderr?.on('data', (chunk: Buffer) => { child.stderr += chunk.toString(); });
  children.push(child);
  return child;
}

function pathToImport(file: string): string {
  return new URL(`file://${file}`).href;
}

async function waitFor<T>(what: string, child: Child, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null) throw new Error(`${child.label} exited (${child.process.exitCode}): ${child.stderr.slice(-2000)}`);
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await sleep(200);
  }
  throw new Error(`${what} did not come up within ${timeoutMs} ms: ${child.stderr.slice(-2000)}`);
}

/** The first JSON line a peer prints once it listens. */
function readAnnouncement<T>(child: Child): Promise<T> {
  return waitFor(child.label, child, async () => {
    const line = child.stdout.split('\n').find((l) => l.startsWith('{'));
    return line === undefined ? undefined : (JSON.parse(line) as T);
  });
}

/** RSS of a child in MB after forced collections, once it stops moving. */
async function settledRssMb(child: Child): Promise<number> {
  const pid = child.process.pid as number;
  let previous = Number.POSITIVE_INFINITY;
  let current = 0;
  for (let round = 0; round < 6; round += 1) {
    process.kill(pid, 'SIGUSR2');
    await sleep(300);
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    current = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    if (Math.abs(current - previous) < 0.5) break;
    previous = current;
  }
  return current;
}

// ───────────────────────────── our server ─────────────────────────────

interface OurServer {
  readonly child: Child;
  readonly url: string;
  readonly mode: string;
  readonly mcpToken: string;
  readonly apiToken: string;
  readonly payableId: string;
}

function chooseEntry(tree: string): { entry: string; tsx: boolean; mode: string; tokenCli: string } {
  const built = path.join(tree, 'dist/src/main.js');
  const useDist = values.server === 'dist' || (values.server === 'auto' && fs.existsSync(built));
  if (useDist) return { entry: built, tsx: false, mode: 'dist/ (node)', tokenCli: path.join(tree, 'dist/src/auth/token-cli.js') };
  return { entry: path.join(tree, 'src/main.ts'), tsx: true, mode: 'src/ (tsx)', tokenCli: path.join(tree, 'src/auth/token-cli.ts') };
}

function runToCompletion(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`${args.join(' ')} exited ${code}: ${err}`))));
  });
}

async function startOurServer(label: string, tree: string): Promise<OurServer> {
  const { entry, tsx, mode, tokenCli } = chooseEntry(tree);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kobana-bench-'));
  const env: NodeJS.ProcessEnv = {
    PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url, DATA_DIR: dataDir, LOG_LEVEL: 'silent', SEED_DEMO_DATA: 'true',
    DATABASE_URL: '', REDIS_URL: '', ACCOUNT_ISSUER: '', ACCOUNT_JWKS_URL: '',
    PROTOCOL_RATE_LIMIT_PER_MINUTE: '1000000', API_READ_BUDGET: '10000000', API_WRITE_BUDGET: '10000000',
  };
  const child = startNode(label, entry, [], env, tree, tsx);
  await waitFor(`${label} /readyz`, child, async () => ((await fetch(`${url}/readyz`)).status === 200 ? true : undefined));
  const mint = async (aud: string) => runToCompletion(
    [...(tsx ? ['--import', 'tsx'] : []), tokenCli, '--person', 'ana@demo.test', '--scope', 'finance.all.write', '--aud', aud, '--ttl', '2h'], env, tree,
  );
  const mcpToken = await mint('mcp');
  const apiToken = await mint('api');
  const list = await fetch(`${url}/v1/payables?limit=1`, { headers: { authorization: `Bearer ${apiToken}`, 'x-workspace-id': MATRIZ } });
  const payableId = ((await list.json()) as { data: { id: string }[] }).data[0]?.id;
  if (payableId === undefined) throw new Error(`${label}: no payable in the demo seed`);
  return { child, url, mode, mcpToken, apiToken, payableId };
}

const MATRIZ = '00000000-0000-4000-8000-000000000011';

function modernCall(method: string, params: Record<string, unknown>, token: string): { headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN, 'mcp-method': method,
  };
  if (method === 'tools/call') headers['mcp-name'] = String(params['name']);
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
  };
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }) };
}

interface Target { readonly name: string; readonly options: AutocannonOptions; readonly server: Child }

/** What Node's fetch (undici), and so the SDK clients, send unless told otherwise. */
const FETCH_ACCEPT_ENCODING = { 'accept-encoding': 'gzip, deflate' };

function ourTargets(server: OurServer, prefix: string): { rest: Target; call: Target; list: Target; listGzip: Target } {
  const call = modernCall('tools/call', { name: 'finance_payables_get', arguments: { workspace_id: MATRIZ, id: server.payableId } }, server.mcpToken);
  const list = modernCall('tools/list', {}, server.mcpToken);
  return {
    rest: { name: `${prefix}REST GET /v1/payables/{id}`, server: server.child, options: { url: `${server.url}/v1/payables/${server.payableId}`, headers: { authorization: `Bearer ${server.apiToken}`, 'x-workspace-id': MATRIZ } } },
    call: { name: `${prefix}MCP tools/call finance_payables_get (${MODERN})`, server: server.child, options: { url: `${server.url}/mcp`, method: 'POST', ...call } },
    list: { name: `${prefix}MCP tools/list (admin), no Accept-Encoding`, server: server.child, options: { url: `${server.url}/mcp`, method: 'POST', ...list } },
    listGzip: { name: `${prefix}MCP tools/list (admin), Accept-Encoding: gzip, deflate`, server: server.child, options: { url: `${server.url}/mcp`, method: 'POST', ...list, headers: { ...list.headers, ...FETCH_ACCEPT_ENCODING } } },
  };
}

/** Fails the run unless REST and MCP answer the same record (a benchmark of errors measures nothing). */
async function checkSameRecord(targets: { rest: Target; call: Target }): Promise<void> {
  const rest = await fetch(targets.rest.options.url, { headers: targets.rest.options.headers });
  const call = await fetch(targets.call.options.url, { method: 'POST', headers: targets.call.options.headers, body: targets.call.options.body });
  const callJson = (await call.json()) as { result?: { isError?: boolean; content: { text: string }[] } };
  const restText = JSON.stringify(await rest.json());
  if (rest.status !== 200 || callJson.result?.isError || restText !== JSON.stringify(JSON.parse(callJson.result?.content[0]?.text ?? 'null'))) {
    throw new Error('REST and MCP do not return the same record; fix that before benchmarking');
  }
}

// ───────────────────────────── measuring ─────────────────────────────

interface Summary {
  readonly name: string; readonly rps: number; readonly p50: number; readonly p99: number; readonly bytes: number;
  readonly errors: number; readonly non2xx: number;
  /** The serving process's CPU time (user + system) per answered request: what a shared machine's load distorts least. */
  readonly cpuUs: number;
}

/** CPU time (user + system) a child has used so far, in µs (/proc/<pid>/stat, clock ticks of 10 ms). */
function readCpuUs(child: Child): number {
  const fields = fs.readFileSync(`/proc/${child.process.pid as number}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function load(target: Target, duration: number): Promise<Summary> {
  const cpuBefore = readCpuUs(target.server);
  return new Promise((resolve, reject) => {
    autocannon({ connections, ...target.options, duration }, (error, result) => {
      if (error) return reject(error);
      resolve({
        cpuUs: (readCpuUs(target.server) - cpuBefore) / Math.max(1, result.requests.total),
        name: target.name,
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

/** The round with the median req/s (the middle one of an odd count; the lower middle of an even one). */
function median(runs: readonly Summary[]): Summary {
  const sorted = [...runs].sort((a, b) => a.rps - b.rps);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

function formatRow(s: Summary, spread: string): string {
  return `| ${s.name} | ${Math.round(s.rps).toLocaleString('en-US')} | ${spread} | ${s.p50} | ${s.p99} | ${Math.round(s.cpuUs).toLocaleString('en-US')} | ${Math.round(s.bytes).toLocaleString('en-US')} | ${s.errors} | ${s.non2xx} |`;
}

/** a/b in req/s, and the same in server CPU per request (b's CPU / a's CPU: how many more a serves per CPU second). */
function ratio(a: Summary | undefined, b: Summary | undefined): string {
  if (!a || !b || b.rps <= 0 || a.cpuUs <= 0) return 'n/a';
  return `${(a.rps / b.rps).toFixed(2)}× in req/s, ${(b.cpuUs / a.cpuUs).toFixed(2)}× in requests per server CPU second`;
}

async function main(): Promise<void> {
  const peersDir = path.join(ROOT, 'bench/peers');
  if (!fs.existsSync(path.join(peersDir, 'node_modules/@modelcontextprotocol/server'))) {
    throw new Error('The SDK peer is not installed: run `npm install` in bench/peers first.');
  }
  const loadBefore = os.loadavg();
  const ours = await startOurServer('our server', values.tree === undefined ? ROOT : path.resolve(values.tree));
  const rssAtRest = await settledRssMb(ours.child);
  const our = ourTargets(ours, '');
  await checkSameRecord(our);
  const listText = await (await fetch(our.list.options.url, { method: 'POST', headers: our.list.options.headers, body: our.list.options.body })).text();
  const tools = (JSON.parse(listText) as { result: { tools: unknown[] } }).result.tools;
  const toolsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kobana-bench-tools-')), 'tools.json');
  fs.writeFileSync(toolsFile, JSON.stringify(tools));

  const sdk = startNode('SDK v2 peer', path.join(peersDir, 'sdk-server.ts'), ['--tools', toolsFile], {}, peersDir, true);
  const sdkInfo = await readAnnouncement<{ port: number; token: string }>(sdk);
  const koa = startNode('Koa echo', path.join(peersDir, 'koa-echo.ts'), [], {}, peersDir, true);
  const koaInfo = await readAnnouncement<{ port: number }>(koa);
  const sdkCall = modernCall('tools/call', { name: 'echo', arguments: { workspace_id: MATRIZ, id: ours.payableId } }, sdkInfo.token);
  const sdkList = modernCall('tools/list', {}, sdkInfo.token);
  const sdkTargets: Target[] = [
    { name: `SDK v2 on Koa + jose ES256: tools/call echo (${MODERN})`, server: sdk, options: { url: `http://127.0.0.1:${sdkInfo.port}/mcp`, method: 'POST', ...sdkCall } },
    { name: `SDK v2 on Koa + jose ES256: tools/list (${tools.length} tools), no Accept-Encoding`, server: sdk, options: { url: `http://127.0.0.1:${sdkInfo.port}/mcp`, method: 'POST', ...sdkList } },
    { name: `SDK v2 on Koa + jose ES256: tools/list (${tools.length} tools), Accept-Encoding: gzip, deflate`, server: sdk, options: { url: `http://127.0.0.1:${sdkInfo.port}/mcp`, method: 'POST', ...sdkList, headers: { ...sdkList.headers, ...FETCH_ACCEPT_ENCODING } } },
  ];
  const sdkListText = await (await fetch(sdkTargets[1]!.options.url, { method: 'POST', headers: sdkList.headers, body: sdkList.body })).text();
  const sdkToolCount = (JSON.parse(sdkListText) as { result: { tools: unknown[] } }).result.tools.length;
  const koaTarget: Target = { name: 'bare Koa 3 + router + body parser: echo', server: koa, options: { url: `http://127.0.0.1:${koaInfo.port}/echo`, method: 'POST', headers: { 'content-type': 'application/json' }, body: sdkCall.body } };

  let baseline: { server: OurServer; targets: ReturnType<typeof ourTargets> } | undefined;
  if (values.baseline !== undefined) {
    const server = await startOurServer('baseline', path.resolve(values.baseline));
    baseline = { server, targets: ourTargets(server, 'baseline: ') };
    await checkSameRecord(baseline.targets);
  }

  const measured = [our.rest, our.call, our.list, our.listGzip, ...sdkTargets, koaTarget, ...(baseline ? [baseline.targets.rest, baseline.targets.call] : [])];
  for (const target of measured) await load(target, Math.max(2, Math.round(seconds / 3)));
  const rssAfterWarmUp = await settledRssMb(ours.child);
  // Each target runs `rounds` times, the rounds interleaved (all targets, then all again), and
  // the median round by req/s is kept: a slow spell of this shared machine then lands on one
  // round of every target instead of on one target's whole measurement.
  const samples: Summary[][] = measured.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    for (const [index, target] of measured.entries()) samples[index]!.push(await load(target, seconds));
  }
  // Errors and non-2xx answers of every round count, not only the median's.
  const results = samples.map((runs) => ({
    ...median(runs), errors: runs.reduce((n, r) => n + r.errors, 0), non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
  }));
  const spreads = samples.map((runs) => runs.map((r) => Math.round(r.rps).toLocaleString('en-US')).join(' / '));
  const loadDuring = os.loadavg();

  const loadSeconds = Number(values['load-seconds']);
  if (loadSeconds > 0) await load(our.call, loadSeconds);
  const rssAfterLoad = await settledRssMb(ours.child);

  const soakMinutes = Number(values['soak-minutes']);
  const soakSamples: number[] = [];
  for (let elapsed = 0; elapsed < soakMinutes * 60; elapsed += 30) {
    await Promise.all([load(our.call, 30), load(our.list, 30)]);
    soakSamples.push(await settledRssMb(ours.child));
  }

  const [rest, call, list, listGzip, sdkCallResult, sdkListResult, sdkListGzipResult, koaResult, baseRest, baseCall] = results;
  const lines = [
    `${new Date().toISOString()} · node ${process.version} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'} · load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ${loadDuring.map((l) => l.toFixed(1)).join(' ')} after the runs`,
    `our server: ${ours.mode}${values.tree === undefined ? '' : ` of ${values.tree}`}${baseline ? `; baseline ${values.baseline}: ${baseline.server.mode}` : ''}; ${connections} connections, ${rounds} interleaved rounds of ${seconds} s per run (after a ${Math.max(2, Math.round(seconds / 3))} s warm-up each; the median round shown), loopback, SQLite`,
    `tools: ours ${tools.length} (admin tools/list ${Buffer.byteLength(listText).toLocaleString('en-US')} bytes), SDK peer ${sdkToolCount} (${Buffer.byteLength(sdkListText).toLocaleString('en-US')} bytes)`,
    '',
    '| run | req/s (median round) | each round, req/s | p50 ms | p99 ms | server CPU µs/request | bytes/response | errors | non-2xx |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map((result, index) => formatRow(result, spreads[index]!)),
    '',
    `MCP tools/call / SDK tools/call = ${ratio(call, sdkCallResult)} (target ≥ 3×)`,
    `MCP tools/list / SDK tools/list, both asked as fetch asks (Accept-Encoding: gzip, deflate) = ${ratio(listGzip, sdkListGzipResult)} (target ≥ 10×)`,
    `MCP tools/list / SDK tools/list, neither asked for compression = ${ratio(list, sdkListResult)}`,
    `MCP tools/call / REST get = ${ratio(call, rest)} (target ≥ 0.85)`,
    `MCP tools/call / bare Koa echo = ${ratio(call, koaResult)}`,
    ...(baseline ? [`REST get / baseline = ${ratio(rest, baseRest)} (target ≥ 2×)`, `MCP tools/call / baseline = ${ratio(call, baseCall)} (target ≥ 2×)`] : []),
    `MCP tools/call p99 = ${call?.p99} ms in the median round, ${Math.max(...(samples[measured.indexOf(our.call)] ?? []).map((r) => r.p99))} ms in the worst (target ≤ 15 ms at 10 connections)`,
    '',
    `our server RSS: ${rssAtRest.toFixed(1)} MB at rest, ${rssAfterWarmUp.toFixed(1)} MB after warm-up, ${rssAfterLoad.toFixed(1)} MB after the runs + ${loadSeconds} s of tools/call`,
    ...(soakSamples.length > 0 ? [
      `soak (${soakMinutes} min of tools/call + tools/list, one sample per 30 s): ${soakSamples.map((s) => s.toFixed(0)).join(' ')} MB; ` +
      `last vs before the soak (after the ${loadSeconds} s load): ${(((soakSamples.at(-1) as number) / rssAfterLoad - 1) * 100).toFixed(1)}%, ` +
      `last vs first sample: ${(((soakSamples.at(-1) as number) / (soakSamples[0] as number) - 1) * 100).toFixed(1)}% (target within 10%)`,
    ] : []),
  ];
  console.log(lines.join('\n'));
}

function stopChildren(): void {
  for (const child of children) if (child.process.exitCode === null) child.process.kill('SIGTERM');
}

main().then(stopChildren, (error: unknown) => {
  stopChildren();
  console.error(error);
  process.exitCode = 1;
});
