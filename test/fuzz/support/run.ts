/**
 * Runs the boundary fuzzer: every operation of the generated registry, its cases (cases.ts) over
 * REST and MCP against the server process (server-process.ts), one case at a time, each in its
 * own measurement window of the server (event-loop delay, CPU, RSS). Classifies every answer
 * (a 5xx, JSON-RPC -32603 or a tool error with a 5xx status is a fault; a request deadline's 503
 * too: the operation did unbounded work), survives a case that hangs the server (per-case
 * timeout, SIGKILL, restart, the rest of that operation skipped after a second hang), and returns
 * the numbers and the violations of the CI criteria (docs/testing.md#boundary-fuzzer).
 */
import http from 'node:http';
import { operations, tools } from '../../../generated/registry.gen.js';
import type { OperationDefinition, ToolDefinition } from '../../../src/runtime/types.js';
import { API_ERROR_STATUS } from '../../../src/http/rest-error-status.js';
import type { WindowStats } from '../../helpers/fuzz-server.js';
import { buildOperationCases, unknownOperationBounds, type FuzzCase, type Surface } from './cases.js';
import { encodeMcp, encodeRest } from './encode.js';
import { ServerUnresponsive, startFuzzServer, type FuzzServer, type ServerMemory } from './server-process.js';
import { collectFuzzVocabulary, learnId, ownResource } from './vocabulary.js';
import { unknownExtensionKeywords } from './x-kobana-bounds.js';

/** The CI criteria of docs/testing.md#boundary-fuzzer (issue 25, Build 2). */
export const CRITERIA = {
  /** A case fails when the server's event loop was blocked longer than this… */
  loopBlockMs: 1_000,
  /** …and it used more CPU than this over the same case. */
  cpuMs: 800,
  peakRssBytes: 512 * 1024 * 1024,
  rssGrowthBytes: 64 * 1024 * 1024,
} as const;

/**
 * The cases of the warm-up besides the typical call: every "largest" one, and the bodies just past
 * a size limit (test/fuzz/support/files.ts, schema-bounds.ts). A CI run whose baseline came before
 * a 13.98 MB base64 body saw RSS "grow" 114 MB with the heap at the same 35 → 41 MB as every run.
 */
const LARGEST_BODIES = /\blargest\b|\bone byte over\b|\bbase64 of maxLength \+ 4\b/;

export interface RunOptions {
  readonly casesPerOperation: number;
  readonly bothSurfaces: boolean;
  readonly seed: number;
  /** A case with no answer in this time is a hang (longer than the request deadline, so a deadline answer is seen as one). */
  readonly caseTimeoutMs: number;
  /** Hangs of one operation after which its remaining cases are skipped. */
  readonly maxHangsPerOperation: number;
  /** Only operations whose id matches (the soak's `--operation`); all by default. */
  readonly only?: RegExp;
  readonly env?: NodeJS.ProcessEnv;
  readonly log?: (line: string) => void;
}

export interface CaseResult {
  readonly surface: Surface;
  readonly label: string;
  readonly inside: boolean;
  /** `201`, `400 VALIDATION_ERROR`, `ok`, `tool NOT_FOUND`, `rpc -32602`, … */
  readonly outcome: string;
  readonly fault: string | null;
  readonly stats: WindowStats | null;
  /** Wall time of the call as the fuzzer saw it, ms. */
  readonly clientMs: number;
}

export interface OperationReport {
  readonly operationId: string;
  readonly cases: number;
  readonly rest: number;
  readonly mcp: number;
  /** Cases answered with success (2xx; a tool result without isError). */
  readonly succeeded: number;
  readonly skipped: number;
  readonly faults: readonly { readonly surface: Surface; readonly label: string; readonly inside: boolean; readonly fault: string }[];
  readonly loopDelayMaxMs: number;
  readonly loopDelayP99Ms: number;
  readonly loopDelayWorstCase: string;
  readonly cpuMaxMs: number;
  readonly cpuWorstCase: string;
  /** Cases over both limits at once (the CI criterion). */
  readonly blocking: readonly string[];
  readonly outcomes: Readonly<Record<string, number>>;
  /** Every case (surface, label, outcome, measurements), for the soak's JSON report. */
  readonly results: readonly CaseResult[];
}

export interface RunReport {
  readonly database: 'sqlite' | 'postgres';
  readonly seed: number;
  readonly casesPerOperation: number;
  readonly operations: readonly OperationReport[];
  readonly rssBefore: number;
  readonly rssAfter: number;
  /** V8 heap in use and `external` (Buffers included) before and after: a JavaScript or Buffer leak shows there, allocator retention only in RSS. */
  readonly heapUsedBefore: number;
  readonly heapUsedAfter: number;
  readonly externalBefore: number;
  readonly externalAfter: number;
  readonly rssPeak: number;
  readonly rssPeakCase: string;
  readonly restarts: number;
  readonly durationMs: number;
  readonly violations: readonly string[];
}

/** mulberry32: a small seeded generator, so a run's cases are reproducible from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Whether the operation takes a file (a multipart body or a base64 field): an import that brings data. */
function takesFile(operation: OperationDefinition): boolean {
  const content = operation.requestBody?.content ?? {};
  const json = content['application/json']?.['properties'] as Record<string, { contentEncoding?: unknown }> | undefined;
  return content['multipart/form-data'] !== undefined || Object.values(json ?? {}).some((property) => property.contentEncoding === 'base64');
}

/**
 * The order operations run in, from the generated classification: reads, writes taking a file
 * (their imports are data the writes after them walk), other writes, destructive calls, deletes,
 * and last the ones that change the Seguridad settings (a blocked channel would refuse every
 * later case).
 */
function runOrder(operation: OperationDefinition): number {
  const ref = operation.operation;
  if (ref.scopes.some((scope) => scope.startsWith('finance.security'))) return 6;
  if (ref.method === 'DELETE') return 5;
  if (ref.destructive) return 4;
  if (!ref.readOnly) return takesFile(operation) ? 2 : 3;
  return 1;
}

interface WireAnswer {
  readonly status: number;
  readonly text: string;
}

function request(agent: http.Agent, base: URL, method: string, target: string, headers: Record<string, string>, body: Buffer | null, timeoutMs: number): Promise<WireAnswer> {
  const sent = { ...headers, ...(body !== null ? { 'content-length': String(body.byteLength) } : {}) };
  return new Promise((resolve, reject) => {
    const req = http.request({ agent, host: base.hostname, port: base.port, method, path: target, headers: sent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new CaseTimeout(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

class CaseTimeout extends Error {}

/**
 * Node's HTTP server refuses a request head (request line and headers) over 16 KiB — its
 * default `maxHeaderSize`, which the server keeps — with 431 and closes the connection, which the
 * client may see as a write error: a transport refusal, not a fault (a contract string without
 * `maxLength` in a query produces such heads).
 */
const MAX_REQUEST_HEAD_BYTES = 16 * 1024;

function headBytes(target: string, headers: Readonly<Record<string, string>>): number {
  return target.length + Object.entries(headers).reduce((sum, [name, value]) => sum + name.length + value.length + 4, 32);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

interface ErrorBody {
  readonly error?: { readonly code?: unknown; readonly details?: { readonly reason?: unknown } };
}

/** A 503 of the request deadline names it: the operation did unbounded work (docs/operations.md). */
function faultOfApiError(status: number, body: ErrorBody | undefined): string | null {
  const code = typeof body?.error?.code === 'string' ? body.error.code : '';
  const apiStatus = Object.hasOwn(API_ERROR_STATUS, code) ? API_ERROR_STATUS[code as keyof typeof API_ERROR_STATUS] : 0;
  if (status < 500 && apiStatus < 500 && code !== 'INTERNAL') return null;
  const deadline = body?.error?.details?.reason === 'deadline' ? ' (request deadline: unbounded work)' : '';
  return `${status >= 500 ? `HTTP ${status}` : `status ${apiStatus}`} ${code || '(no error code)'}${deadline}`;
}

async function sendRest(agent: http.Agent, base: URL, operation: OperationDefinition, fuzzCase: FuzzCase, token: string, workspace: string, timeoutMs: number): Promise<Outcome> {
  const wire = encodeRest(operation, fuzzCase, token, workspace);
  let answer: WireAnswer;
  try {
    answer = await request(agent, base, wire.method, wire.target, wire.headers, wire.body, timeoutMs);
  } catch (err) {
    if (err instanceof CaseTimeout || headBytes(wire.target, wire.headers) <= MAX_REQUEST_HEAD_BYTES) throw err;
    return { outcome: 'request head over 16 KiB: connection closed', fault: null, ok: false };
  }
  const body = parseJson(answer.text) as ErrorBody | undefined;
  const code = typeof body?.error?.code === 'string' ? ` ${body.error.code}` : '';
  return { outcome: `${answer.status}${code}`, fault: answer.status >= 500 ? faultOfApiError(answer.status, body) ?? `HTTP ${answer.status}` : null, ok: answer.status < 300, body };
}

interface Outcome {
  readonly outcome: string;
  readonly fault: string | null;
  readonly ok: boolean;
  /** The answer's JSON body (a success's record, whose id later calls may use). */
  readonly body?: unknown;
}

interface RpcAnswer {
  readonly error?: { readonly code?: unknown };
  readonly result?: { readonly isError?: unknown; readonly resultType?: unknown; readonly requestState?: unknown; readonly content?: readonly { readonly text?: unknown }[] };
}

let rpcId = 1;

async function sendMcp(agent: http.Agent, base: URL, tool: ToolDefinition, fuzzCase: FuzzCase, token: string, workspace: string, timeoutMs: number): Promise<Outcome> {
  const call = encodeMcp(tool, fuzzCase, workspace);
  const headers = {
    authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': tool.name,
  };
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
  const post = async (extra: Record<string, unknown>) => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: rpcId++, method: 'tools/call', params: { name: call.tool, arguments: call.args, _meta: meta, ...extra } }), 'utf8');
    return request(agent, base, 'POST', '/mcp', headers, body, timeoutMs);
  };
  let answer = await post({});
  let parsed = parseJson(answer.text) as RpcAnswer | undefined;
  // A destructive tool asks the person first: the fuzzer accepts, so the call does its work.
  if (parsed?.result?.resultType === 'input_required' && typeof parsed.result.requestState === 'string') {
    answer = await post({ requestState: parsed.result.requestState, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } });
    parsed = parseJson(answer.text) as RpcAnswer | undefined;
  }
  if (answer.status >= 500) return { outcome: `HTTP ${answer.status}`, fault: `HTTP ${answer.status}${parsed?.error?.code !== undefined ? ` (JSON-RPC ${String(parsed.error.code)})` : ''}`, ok: false };
  if (parsed?.error !== undefined) {
    const code = String(parsed.error.code);
    return { outcome: `rpc ${code}`, fault: parsed.error.code === -32603 ? 'JSON-RPC -32603' : null, ok: false };
  }
  if (parsed?.result?.isError === true) {
    const text = parsed.result.content?.[0]?.text;
    const error = typeof text === 'string' ? (parseJson(text) as ErrorBody | undefined) : undefined;
    const code = typeof error?.error?.code === 'string' ? error.error.code : '?';
    const fault = faultOfApiError(0, error);
    return { outcome: `tool ${code}`, fault: fault === null ? null : `tool error, ${fault}`, ok: false };
  }
  if (parsed?.result !== undefined) {
    const text = parsed.result.content?.[0]?.text;
    return { outcome: 'ok', fault: null, ok: true, body: typeof text === 'string' ? parseJson(text) : undefined };
  }
  return { outcome: `HTTP ${answer.status}`, fault: null, ok: false };
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

function summarize(operationId: string, results: readonly CaseResult[], ok: number, skipped: number): OperationReport {
  const measured = results.filter((r) => r.stats !== null);
  const worstDelay = measured.reduce<CaseResult | null>((w, r) => (w === null || (r.stats?.loopDelayMaxMs ?? 0) > (w.stats?.loopDelayMaxMs ?? 0) ? r : w), null);
  const worstCpu = measured.reduce<CaseResult | null>((w, r) => (w === null || (r.stats?.cpuMs ?? 0) > (w.stats?.cpuMs ?? 0) ? r : w), null);
  const outcomes: Record<string, number> = {};
  for (const r of results) outcomes[`${r.surface} ${r.outcome}`] = (outcomes[`${r.surface} ${r.outcome}`] ?? 0) + 1;
  return {
    operationId,
    cases: results.length,
    rest: results.filter((r) => r.surface === 'rest').length,
    mcp: results.filter((r) => r.surface === 'mcp').length,
    succeeded: ok,
    skipped,
    faults: results.flatMap((r) => (r.fault === null ? [] : [{ surface: r.surface, label: r.label, inside: r.inside, fault: r.fault }])),
    loopDelayMaxMs: worstDelay?.stats?.loopDelayMaxMs ?? 0,
    loopDelayP99Ms: percentile(measured.map((r) => r.stats?.loopDelayMaxMs ?? 0), 99),
    loopDelayWorstCase: worstDelay ? `${worstDelay.surface} "${worstDelay.label}"` : '',
    cpuMaxMs: worstCpu?.stats?.cpuMs ?? 0,
    cpuWorstCase: worstCpu ? `${worstCpu.surface} "${worstCpu.label}"` : '',
    blocking: measured.filter((r) => (r.stats?.loopDelayMaxMs ?? 0) > CRITERIA.loopBlockMs && (r.stats?.cpuMs ?? 0) > CRITERIA.cpuMs)
      .map((r) => `${r.surface} "${r.label}": event loop blocked ${Math.round(r.stats?.loopDelayMaxMs ?? 0)} ms, CPU ${Math.round(r.stats?.cpuMs ?? 0)} ms`),
    outcomes,
    results: results.map(({ surface, label, inside, outcome, fault, stats, clientMs }) => ({ surface, label, inside, outcome, fault, stats, clientMs })),
  };
}

const MB = 1024 * 1024;
const MARK_TIMEOUT_MS = 5_000;
const SAMPLE_TIMEOUT_MS = 60_000;

export async function runBoundaryFuzzer(options: RunOptions): Promise<RunReport> {
  const log = options.log ?? (() => {});
  const started = performance.now();
  const random = seededRandom(options.seed);
  const env = options.env ?? process.env;
  let server: FuzzServer = await startFuzzServer(env);
  const vocabulary = await collectFuzzVocabulary(server.ready.url, server.ready.restToken, server.ready.workspaceId);
  const toolsByOperation = new Map<string, ToolDefinition>(tools.map((tool) => [tool.operation.operationId, tool]));
  const selected = operations.filter((op) => options.only?.test(op.operation.operationId) ?? true);
  const ordered = [...selected].sort((a, b) => runOrder(a) - runOrder(b));
  const plans = ordered.map((operation) => ({
    operation,
    tool: operation.toolName === null ? null : toolsByOperation.get(operation.operation.operationId) ?? null,
    cases: buildOperationCases(operation, operation.toolName === null ? null : toolsByOperation.get(operation.operation.operationId) ?? null, vocabulary, {
      casesPerOperation: options.casesPerOperation, bothSurfaces: options.bothSurfaces, random,
    }),
  }));
  let agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let restarts = 0;
  let peakRss = 0;
  let peakCase = '';
  const violations: string[] = [];

  async function restart(reason: string): Promise<void> {
    log(`fuzz: restarting the server (${reason})`);
    agent.destroy();
    await server.kill();
    server = await startFuzzServer(env);
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    restarts += 1;
    await server.mark(MARK_TIMEOUT_MS);
  }

  async function runCase(plan: (typeof plans)[number], fuzzCase: FuzzCase): Promise<CaseResult & { ok: boolean; hung: boolean }> {
    const base = new URL(server.ready.url);
    let outcome: Outcome;
    let hung = false;
    const sent = performance.now();
    try {
      outcome = fuzzCase.surface === 'rest' || plan.tool === null
        ? await sendRest(agent, base, plan.operation, fuzzCase, server.ready.restToken, server.ready.workspaceId, options.caseTimeoutMs)
        : await sendMcp(agent, base, plan.tool, fuzzCase, server.ready.mcpToken, server.ready.workspaceId, options.caseTimeoutMs);
    } catch (err) {
      const timedOut = err instanceof CaseTimeout;
      outcome = { outcome: timedOut ? 'timeout' : 'connection error', fault: timedOut ? `no answer within ${options.caseTimeoutMs} ms` : `connection error: ${err instanceof Error ? err.message : String(err)}`, ok: false };
      hung = true;
    }
    const clientMs = performance.now() - sent;
    if (outcome.ok) learnId(vocabulary, ownResource(plan.operation.operation.path), outcome.body);
    let stats: WindowStats | null = null;
    try {
      stats = await server.mark(hung ? MARK_TIMEOUT_MS : options.caseTimeoutMs);
      if (hung) {
        // The server still answers: the call was slow or its connection failed, the process is fine.
        agent.destroy();
        agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        hung = false;
      }
    } catch (err) {
      if (!(err instanceof ServerUnresponsive)) throw err;
      hung = true;
      outcome = { ...outcome, fault: `${outcome.fault ?? outcome.outcome}; the server stopped answering (event loop blocked or process gone)` };
      await restart(`${plan.operation.operation.operationId} ${fuzzCase.surface} "${fuzzCase.label}"`);
    }
    if (stats !== null && stats.maxRss > peakRss) {
      peakRss = stats.maxRss;
      peakCase = `${plan.operation.operation.operationId} ${fuzzCase.surface} "${fuzzCase.label}"`;
    }
    return { surface: fuzzCase.surface, label: fuzzCase.label, inside: fuzzCase.inside, outcome: outcome.outcome, fault: outcome.fault, stats, clientMs, ok: outcome.ok, hung };
  }

  const results = new Map<string, { results: CaseResult[]; ok: number; hangs: number; skipped: number }>(plans.map((p) => [p.operation.operation.operationId, { results: [], ok: 0, hangs: 0, skipped: 0 }]));
  const record = (operationId: string, result: CaseResult & { ok: boolean; hung: boolean }) => {
    const entry = results.get(operationId);
    if (!entry) return;
    entry.results.push(result);
    if (result.ok) entry.ok += 1;
    if (result.hung) entry.hangs += 1;
  };

  await server.mark(MARK_TIMEOUT_MS);
  // Warm-up (counted as cases): the typical and the largest calls of every operation, files at
  // the size limit and the bodies just past it (a file one byte over, base64 of maxLength + 4: the
  // largest bodies the server reads before refusing them) included, then the memory baseline. The allocator keeps the high-water mark of
  // big bodies (glibc raises its mmap threshold to a freed block's size, so later blocks come from
  // the heap and are kept): reached before the baseline, it is not counted as growth; what grows
  // after it is memory the server keeps.
  const warmUp = new Set<FuzzCase>();
  for (const plan of plans) {
    for (const fuzzCase of plan.cases.filter((c) => c.label === 'typical call' || LARGEST_BODIES.test(c.label))) {
      warmUp.add(fuzzCase);
      record(plan.operation.operation.operationId, await runCase(plan, fuzzCase));
    }
  }
  const before: ServerMemory = await server.sample(SAMPLE_TIMEOUT_MS);
  await server.mark(MARK_TIMEOUT_MS);
  for (const plan of plans) {
    const id = plan.operation.operation.operationId;
    const entry = results.get(id);
    if (!entry) continue;
    const planStarted = performance.now();
    for (const fuzzCase of plan.cases) {
      if (warmUp.has(fuzzCase)) continue;
      if (entry.hangs >= options.maxHangsPerOperation) {
        entry.skipped += 1;
        continue;
      }
      record(id, await runCase(plan, fuzzCase));
    }
    log(`fuzz: ${id}: ${entry.results.length} cases in ${((performance.now() - planStarted) / 1000).toFixed(1)} s`);
  }
  const after = await server.sample(SAMPLE_TIMEOUT_MS);
  const database = server.ready.database;
  agent.destroy();
  await server.close();

  const reports = plans.map((plan) => {
    const entry = results.get(plan.operation.operation.operationId) ?? { results: [], ok: 0, hangs: 0, skipped: 0 };
    return summarize(plan.operation.operation.operationId, entry.results, entry.ok, entry.skipped);
  });
  for (const report of reports) {
    for (const fault of report.faults) violations.push(`${report.operationId} ${fault.surface} "${fault.label}"${fault.inside ? '' : ' (input just outside the contract)'}: ${fault.fault}`);
    for (const blocking of report.blocking) violations.push(`${report.operationId} ${blocking}`);
    if (report.skipped > 0) violations.push(`${report.operationId}: ${report.skipped} cases skipped after ${options.maxHangsPerOperation} hangs`);
    if (report.cases < options.casesPerOperation && report.skipped === 0) violations.push(`${report.operationId}: only ${report.cases} cases (at least ${options.casesPerOperation})`);
  }
  const peak = Math.max(peakRss, after.maxRss);
  if (peak > CRITERIA.peakRssBytes) violations.push(`peak RSS ${(peak / MB).toFixed(0)} MB > ${CRITERIA.peakRssBytes / MB} MB, reached during ${peakCase}`);
  // After a restart the process at the end is not the one sampled before: growth is not compared.
  if (restarts > 0) violations.push(`the server had to be restarted ${restarts} time(s) (RSS growth not compared)`);
  else if (after.rss - before.rss > CRITERIA.rssGrowthBytes) violations.push(`RSS grew ${((after.rss - before.rss) / MB).toFixed(0)} MB over the run (limit ${CRITERIA.rssGrowthBytes / MB} MB)`);
  for (const operation of selected) {
    for (const key of unknownOperationBounds(operation)) violations.push(`${operation.operation.operationId}: the fuzzer has no cases for its bound ${key} (test/fuzz/support/cases.ts)`);
  }
  for (const keyword of unknownExtensionKeywords([selected, tools])) violations.push(`the fuzzer has no boundary values for the contract keyword ${keyword} (test/fuzz/support/x-kobana-bounds.ts)`);
  return {
    database, seed: options.seed, casesPerOperation: options.casesPerOperation, operations: reports,
    rssBefore: before.rss, rssAfter: after.rss, rssPeak: peak,
    heapUsedBefore: before.heapUsed, heapUsedAfter: after.heapUsed, externalBefore: before.external, externalAfter: after.external, rssPeakCase: peakCase, restarts,
    durationMs: performance.now() - started, violations,
  };
}

/** The run as a table: cases per operation (REST/MCP), successes, worst event-loop block and CPU, RSS. */
export function formatReport(report: RunReport): string {
  const rows = report.operations.map((op) => [
    op.operationId, `${op.cases} (${op.rest}/${op.mcp})`, String(op.succeeded), op.loopDelayMaxMs.toFixed(0), op.loopDelayP99Ms.toFixed(0), op.cpuMaxMs.toFixed(0),
    String(op.faults.length + op.blocking.length), op.loopDelayWorstCase.slice(0, 70),
  ]);
  const header = ['operation', 'cases (REST/MCP)', '2xx', 'max block ms', 'p99 block ms', 'max CPU ms', 'failures', 'worst block case'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  const total = report.operations.reduce((sum, op) => sum + op.cases, 0);
  // Slots whose schema has no maxLength / maxItems: bounds the contract does not state.
  const unbounded = [...new Set(report.operations.flatMap((op) => op.results.flatMap((r) => r.label.split(', ')
    .filter((part) => / = (\[0\] )?no max(Length|Items)/.test(part)).map((part) => `${op.operationId} ${part.split(' = ')[0] ?? ''}`))))].sort();
  return [
    `boundary fuzzer on ${report.database}: ${total} cases over ${report.operations.length} operations (≥ ${report.casesPerOperation} each), seed ${report.seed}, ${(report.durationMs / 1000).toFixed(0)} s`,
    line(header),
    ...rows.map(line),
    `server RSS: before ${(report.rssBefore / MB).toFixed(0)} MB, peak ${(report.rssPeak / MB).toFixed(0)} MB (during ${report.rssPeakCase || '—'}), after ${(report.rssAfter / MB).toFixed(0)} MB (heap ${(report.heapUsedBefore / MB).toFixed(0)} → ${(report.heapUsedAfter / MB).toFixed(0)} MB, external ${(report.externalBefore / MB).toFixed(0)} → ${(report.externalAfter / MB).toFixed(0)} MB); restarts ${report.restarts}`,
    ...(unbounded.length > 0 ? [`note: no maxLength/maxItems in the contract for ${unbounded.join('; ')}`] : []),
  ].join('\n');
}
