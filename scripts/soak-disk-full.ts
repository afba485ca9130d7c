/**
 * A real full disk (docs/testing.md#a-full-disk): the app's data on a small tmpfs this script
 * mounts, filled by the app's own writes until it refuses them. Needs root (mount); prints why
 * and exits 0 otherwise. The tests inject the same fault without privileges
 * (test/faults/disk-full.test.ts); this checks it against a file system that is really full.
 *
 * - SQLite (default): `DATA_DIR` on the tmpfs.
 * - PostgreSQL (`DATABASE_URL` set, the server on this machine): a tablespace on the tmpfs,
 *   owned by the server's user, is the `default_tablespace` of the test schema, so every table
 *   and index the migrations create lives on it (the WAL does not: it stays in the cluster).
 *
 * The run: a ballast file (8 MiB), then 1 MiB PDF uploads (`POST /v1/attachments`) until one is
 * refused, then small writes (`POST /v1/accounts`, MCP `finance_accounts_create`) until refused;
 * `/readyz`; then the ballast is removed (space is back: more than SQLite's `-wal` file holds,
 * which the first checkpoint copies into the database file), and after the 5 s probe window
 * `/readyz` and a write again. Every answer is counted by status; a 500, a 503 without
 * `Retry-After` or `reason: "disk_full"`, a `/readyz` that stays 200 while writes fail, or no
 * recovery exits 1. Printed: the statuses, the log's `db_error` kinds, the time to recovery.
 *
 *   node --import tsx scripts/soak-disk-full.ts [--size-mb 32] [--ballast-mb 8]
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --import tsx scripts/soak-disk-full.ts
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { pino } from 'pino';
import { WRITE_PROBE_INTERVAL_MS } from '../src/store/write-probe.js';
import { createTestSchema, dropRunDatabase, type TestSchema } from '../test/helpers/database.js';
import { DEMO, startTestApp, type TestApp } from '../test/helpers/index.js';

const { values } = parseArgs({ options: { 'size-mb': { type: 'string', default: '32' }, 'ballast-mb': { type: 'string', default: '8' } } });
const sizeMb = Number(values['size-mb']);
const ballastMb = Number(values['ballast-mb']);
const M = DEMO.workspaces.matriz;
/** Writes of each kind tried at most before the disk must have refused one. */
const MAX_WRITES = 2_000;

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  // Read field by field.
  readonly body: any;
}

const problems: string[] = [];
const statuses = new Map<string, number>();

function count(what: string, answer: Answer): void {
  const key = `${what} ${answer.status}`;
  statuses.set(key, (statuses.get(key) ?? 0) + 1);
  if (answer.status >= 500 && answer.status !== 503) problems.push(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
}

async function request(app: TestApp, token: string, method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${app.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'x-workspace-id': M, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: text === '' ? undefined : JSON.parse(text) };
}

function expectDiskFull(what: string, answer: Answer, reason: unknown): void {
  if (answer.status !== 503 || answer.retryAfter === null || reason !== 'disk_full') {
    problems.push(`${what}: expected 503 + Retry-After with reason disk_full, got ${answer.status} ${JSON.stringify(answer.body)}`);
  }
}

/** Repeats `write` while it answers `ok`; returns the first other answer and how many succeeded. */
async function untilRefused(what: string, write: (i: number) => Promise<Answer>, ok: (a: Answer) => boolean): Promise<{ refused: Answer | null; written: number }> {
  for (let i = 0; i < MAX_WRITES; i += 1) {
    const answer = await write(i);
    count(what, answer);
    if (!ok(answer)) return { refused: answer, written: i };
  }
  problems.push(`${what}: ${MAX_WRITES} writes accepted on a full disk`);
  return { refused: null, written: MAX_WRITES };
}

function sh(command: string, args: readonly string[]): void {
  execFileSync(command, args, { stdio: 'inherit' });
}

async function readyz(app: TestApp): Promise<Answer> {
  const response = await fetch(`${app.url}/readyz`);
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
}

async function run(mountPoint: string): Promise<void> {
  const postgres = Boolean(process.env.DATABASE_URL);
  const dataDir = path.join(mountPoint, 'data');
  const ballast = path.join(mountPoint, 'ballast');
  let schema: TestSchema | null = null;
  let tablespace: string | null = null;
  let admin: pg.Client | null = null;
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  let app: TestApp | null = null;
  try {
    fs.writeFileSync(ballast, randomBytes(ballastMb * 1024 * 1024));
    let databaseUrl: string | null = null;
    if (postgres) {
      schema = await createTestSchema();
      const url = new URL(schema.databaseUrl as string);
      tablespace = `kf_soak_${process.pid}_${randomBytes(3).toString('hex')}`;
      const location = path.join(mountPoint, 'pg');
      fs.mkdirSync(location);
      sh('chown', ['postgres:postgres', location]);
      admin = new pg.Client({ connectionString: url.toString() });
      await admin.connect();
      await admin.query(`create tablespace ${tablespace} location '${location}'`);
      url.searchParams.set('options', `${url.searchParams.get('options') ?? ''} -c default_tablespace=${tablespace}`);
      databaseUrl = url.toString();
    }
    app = await startTestApp({ config: { dataDir, databaseUrl, redisUrl: null }, logger });
    const started = app;
    const api = await started.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write', aud: 'api' });
    const mcp = await started.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write' });
    console.log(`${postgres ? `PostgreSQL, tablespace ${tablespace}` : 'SQLite'} on a ${sizeMb} MiB tmpfs at ${mountPoint} with a ${ballastMb} MiB ballast; ${Math.round(fs.statfsSync(mountPoint).bavail * fs.statfsSync(mountPoint).bsize / 1024)} KiB free after start-up`);

    const pdf = (i: number) => Buffer.concat([Buffer.from(`%PDF-1.4\n% ${i}\n`), randomBytes(1024 * 1024)]).toString('base64');
    const uploads = await untilRefused('upload', (i) => request(started, api, 'POST', '/v1/attachments', { file_name: `f${i}.pdf`, content_type: 'application/pdf', content_base64: pdf(i) }), (a) => a.status === 201);
    if (uploads.refused) expectDiskFull('upload', uploads.refused, uploads.refused.body?.error?.details?.reason);
    const creates = await untilRefused('account', (i) => request(started, api, 'POST', '/v1/accounts', { name: `Conta ${i}`, type: 'checking' }), (a) => a.status === 201);
    if (creates.refused) expectDiskFull('account', creates.refused, creates.refused.body?.error?.details?.reason);
    const tools = await untilRefused('mcp', (i) => request(started, mcp, 'POST', '/mcp', {
      jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'finance_accounts_create', arguments: { workspace_id: M, name: `Conta mcp ${i}`, type: 'checking' } },
    }, { 'mcp-protocol-version': '2025-06-18', accept: 'application/json' }), (a) => a.status === 200 && a.body?.result !== undefined && a.body.result.isError === undefined);
    if (tools.refused) {
      expectDiskFull('mcp', tools.refused, tools.refused.body?.error?.data?.error?.details?.reason);
      if (tools.refused.body?.error?.code !== -32003) problems.push(`mcp: expected -32003, got ${JSON.stringify(tools.refused.body)}`);
    }
    console.log(`accepted before the first refusal: ${uploads.written} uploads of 1 MiB, ${creates.written} account creates, ${tools.written} MCP creates`);
    if (!postgres) console.log(`data folder when full: ${fs.readdirSync(dataDir).map((f) => `${f} ${Math.round(fs.statSync(path.join(dataDir, f)).size / 1024)} KiB`).join(', ')}`);

    const failing = await readyz(started);
    count('readyz (full)', failing);
    console.log(`/readyz while full: ${failing.status} ${JSON.stringify(failing.body)}`);
    if (failing.status !== 503 || failing.body?.checks?.database !== 'disk_full') problems.push(`/readyz on a full disk answered ${failing.status} ${JSON.stringify(failing.body)}`);

    fs.rmSync(ballast);
    const freedAt = Date.now();
    let recovered: Answer | null = null;
    while (Date.now() - freedAt < 4 * WRITE_PROBE_INTERVAL_MS) {
      const answer = await readyz(started);
      count('readyz (freed)', answer);
      if (answer.status === 200) {
        recovered = answer;
        break;
      }
      await sleep(500);
    }
    if (recovered === null) problems.push('/readyz did not turn 200 after space was freed');
    else console.log(`/readyz 200 again ${((Date.now() - freedAt) / 1000).toFixed(1)} s after the ballast was removed`);
    const after = await request(started, api, 'POST', '/v1/accounts', { name: 'Conta depois', type: 'checking' });
    count('account (freed)', after);
    if (after.status !== 201) problems.push(`a write after recovery answered ${after.status} ${JSON.stringify(after.body)}`);

    const kinds = new Map<string, number>();
    for (const line of lines) {
      if (typeof line['db_error'] === 'string') kinds.set(`${String(line['msg'])}: ${line['db_error']}`, (kinds.get(`${String(line['msg'])}: ${line['db_error']}`) ?? 0) + 1);
      if ('err' in line) problems.push(`a log line carried an error object: ${String(line['msg'])}`);
    }
    console.log('statuses:', Object.fromEntries(statuses));
    console.log('log kinds:', Object.fromEntries(kinds));
  } finally {
    await app?.close();
    // The schema's tables live in the tablespace: dropped first, then the tablespace is empty.
    await schema?.drop();
    if (admin !== null) {
      if (tablespace !== null) await admin.query(`drop tablespace if exists ${tablespace}`).catch((err: unknown) => problems.push(`drop tablespace: ${String(err)}`));
      await admin.end();
    }
  }
}

async function main(): Promise<number> {
  if (os.platform() !== 'linux' || process.getuid?.() !== 0) {
    console.log('skipped: mounting a tmpfs needs root on Linux (the tests inject the same fault without privileges: test/faults/disk-full.test.ts)');
    return 0;
  }
  const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-disk-full-'));
  sh('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'tmpfs', mountPoint]);
  try {
    await run(mountPoint);
  } finally {
    sh('umount', [mountPoint]);
    fs.rmdirSync(mountPoint);
    await dropRunDatabase();
  }
  for (const problem of problems) console.log(`PROBLEM ${problem}`);
  console.log(problems.length === 0 ? 'ok' : `${problems.length} problems`);
  return problems.length === 0 ? 0 : 1;
}

process.exitCode = await main();
