/**
 * Codegen timing: first the targets of issue 28 (CPU, peak RSS and bytes written for
 * `--check --strict` on openapi/v1.yaml, GitHub's document and the synthetic 2,000-operation spec);
 * then regenerates openapi/v1.yaml, a synthetic 2,000-operation spec and a synthetic
 * multi-file document of ~3 MB and 700 operations (issue 16: path items and operations as `$ref`s
 * to other files, schemas in their own files; written to a temp dir) through the real CLI, and
 * prints a table (the multi-file and real-world corpus rows with the CLI's CPU time and peak RSS). A script, not a test
 * (docs/architecture.md#conventions).
 * Usage: node --import tsx bench/codegen.ts [--operations 2000] [--multi-file-operations 700] [--only targets|multi-file|corpus]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { CORPUS, corpusFile } from '../test/codegen/corpus.js';


/** A spec shaped like ours: CRUD + list resources with shared components, `OPERATIONS` operations. */
export function buildSyntheticSpec(operations: number): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const resources = Math.ceil(operations / 5);
  let count = 0;
  for (let r = 0; r < resources && count < operations; r += 1) {
    const res = `resource_${String(r).padStart(4, '0')}`;
    const ok = (status: string) => ({ [status]: { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/Record' } } } }, default: { $ref: '#/components/responses/Error' } });
    const op = (action: string, method: string, extra: Record<string, unknown>) => {
      count += 1;
      // Every resource is held as the catalogue's `payables` (src/identity): x-kobana-touches names catalogue kinds only.
      const read = method === 'get';
      return { operationId: `${res}.${action}`, summary: `${action} ${res}`, description: `Does ${action} on ${res}. Ação de teste.`,
        security: [{ bearer: [read ? 'finance.payables' : 'finance.payables.write'] }],
        'x-kobana-permission': read ? 'payables.view' : 'payables.manage',
        'x-kobana-touches': { changes: read ? [] : ['payables.manage'], shows: ['payables'] }, ...extra };
    };
    const collection: Record<string, unknown> = {};
    const item: Record<string, unknown> = { parameters: [{ $ref: '#/components/parameters/Id' }] };
    collection.get = op('list', 'get', { parameters: [{ $ref: '#/components/parameters/Limit' }, { $ref: '#/components/parameters/Cursor' }, { $ref: '#/components/parameters/Sort' }, { $ref: '#/components/parameters/Fields' }, { $ref: '#/components/parameters/StatusFilter' }, { $ref: '#/components/parameters/DueDateFilter' }], responses: ok('200') });
    if (count < operations) collection.post = op('create', 'post', { parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }], requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/RecordInput' } } } }, responses: ok('201') });
    if (count < operations) item.get = op('get', 'get', { responses: ok('200') });
    if (count < operations) item.patch = op('update', 'patch', { requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/RecordInput' } } } }, responses: ok('200') });
    if (count < operations) item.delete = op('delete', 'delete', { responses: { '204': { description: 'Deleted' }, default: { $ref: '#/components/responses/Error' } } });
    paths[`/v1/${res}`] = collection;
    paths[`/v1/${res}/{id}`] = item;
  }
  const money = { type: ['string', 'number'], pattern: '^\\d{1,12}(\\.\\d{1,2})?$', exclusiveMinimum: 0 };
  return {
    openapi: '3.1.0',
    info: { title: 'Synthetic', version: '1.0.0' },
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      parameters: {
        Id: { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
        Limit: { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } },
        Cursor: { name: 'cursor', in: 'query', schema: { type: 'string' } },
        Sort: { name: 'sort', in: 'query', schema: { type: 'string', enum: ['due_date', '-due_date'], default: '-due_date' } },
        Fields: { name: 'fields', in: 'query', style: 'form', explode: false, schema: { type: 'array', items: { type: 'string', enum: ['id', 'amount', 'due_date'] } } },
        StatusFilter: { name: 'status', in: 'query', schema: { type: 'string', enum: ['pending', 'paid'] }, 'x-kobana-filter': { operators: ['eq', 'in'] } },
        DueDateFilter: { name: 'due_date', in: 'query', schema: { type: 'string', format: 'date' }, 'x-kobana-filter': { operators: ['eq', 'gte', 'lte'] } },
        IdempotencyKey: { name: 'Idempotency-Key', in: 'header', schema: { type: 'string', minLength: 8 } },
      },
      responses: { Error: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } },
      schemas: {
        RecordInput: { type: 'object', required: ['amount', 'due_date'], properties: { amount: money, due_date: { type: 'string', format: 'date' }, note: { type: 'string', maxLength: 200 }, tags: { type: 'array', items: { type: 'string' } } } },
        Record: { allOf: [{ $ref: '#/components/schemas/RecordInput' }, { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } }] },
        Error: { type: 'object', properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } } } },
      },
    },
  };
}

/**
 * A multi-file document of `operations` operations, about 4.4 KB of text per operation (3 MB at
 * 700), shaped like the real documents of test/fixtures/real-specs: `openapi.yaml` lists the
 * paths; each resource's collection is a path item `$ref` (`paths/<resource>.yaml`), its item
 * path holds operations given as `$ref`s (`operations/…`, the tolerated layout); schemas live in
 * `schemas/<resource>.yaml` (enums, patterns, a recursive line item, an example holding a `$ref`
 * key: data), and most of the bytes are prose and response examples, as in real documents.
 * Returns the root file and the total bytes.
 */
export function writeMultiFileSpec(dir: string, operations: number): { root: string; bytes: number } {
  for (const folder of ['paths', 'operations', 'schemas']) mkdirSync(path.join(dir, folder), { recursive: true });
  const write = (relative: string, value: unknown): number => {
    const text = stringify(value);
    writeFileSync(path.join(dir, relative), text);
    return Buffer.byteLength(text);
  };
  const paths: Record<string, unknown> = {};
  let bytes = 0;
  let count = 0;
  const prose = 'Amount in BRL as a decimal string; settled amounts are final and only a reversal undoes them. ';
  const sample = (res: string) => Array.from({ length: 11 }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, field_0: 'pending', field_1: `${i}0.00`,
    note: `Sample ${res} number ${i}, as returned by the list; ${prose}`,
  }));
  for (let r = 0; count < operations; r += 1) {
    const res = `resource_${String(r).padStart(4, '0')}`;
    const properties: Record<string, unknown> = {};
    for (let p = 0; p < 12; p += 1) {
      properties[`field_${p}`] = p % 3 === 0
        ? { type: 'string', enum: ['pending', 'paid', 'cancelled', 'overdue'], description: `State ${p} of the record.`, example: 'pending' }
        : p % 3 === 1
          ? { type: ['string', 'number'], pattern: '^\\d{1,12}(\\.\\d{1,2})?$', description: prose, examples: ['10.00', { $ref: 'https://example.invalid/amount' }] }
          : { type: 'array', items: { $ref: '#/Line' }, description: 'Line items.' };
    }
    bytes += write(`schemas/${res}.yaml`, {
      Input: { type: 'object', required: ['field_0', 'field_1'], properties },
      Record: { allOf: [{ $ref: '#/Input' }, { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } }] },
      Line: { type: 'object', properties: { description: { type: 'string' }, amount: { type: 'string' }, parent: { $ref: '#/Line' } } },
    });
    const schema = (name: string) => ({ $ref: `../schemas/${res}.yaml#/${name}` });
    const ok = (status: string, name: string) => ({ [status]: { description: 'OK', content: { 'application/json': { schema: schema(name), examples: { sample: { value: sample(res) } } } } } });
    const op = (action: string, method: string, extra: Record<string, unknown>) => {
      count += 1;
      return { operationId: `${res}.${action}`, summary: `${action} ${res}`, description: `Does ${action} on ${res}. ${prose.repeat(3)}`,
        security: [{ bearer: [method === 'get' ? `finance.${res}` : `finance.${res}.write`] }], ...extra };
    };
    const collection: Record<string, unknown> = {
      get: op('list', 'get', { parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', maximum: 100 } }, { name: 'cursor', in: 'query', schema: { type: 'string' } }], responses: ok('200', 'Record') }),
    };
    if (count < operations) collection.post = op('create', 'post', { requestBody: { required: true, content: { 'application/json': { schema: schema('Input') } } }, responses: ok('201', 'Record') });
    bytes += write(`paths/${res}.yaml`, collection);
    paths[`/v1/${res}`] = { $ref: `paths/${res}.yaml` };
    const item: Record<string, unknown> = { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }] };
    const itemOperations: Array<[string, string, Record<string, unknown>]> = [
      ['get', 'get', { responses: ok('200', 'Record') }],
      ['patch', 'update', { requestBody: { required: true, content: { 'application/json': { schema: schema('Input') } } }, responses: ok('200', 'Record') }],
      ['delete', 'delete', { responses: { '204': { description: 'Deleted' } } }],
    ];
    for (const [method, action, extra] of itemOperations) {
      if (count >= operations) break;
      bytes += write(`operations/${res}.${action}.yaml`, op(action, method, extra));
      item[method] = { $ref: `operations/${res}.${action}.yaml` };
    }
    if (Object.keys(item).length > 1) paths[`/v1/${res}/{id}`] = item;
  }
  const root = { openapi: '3.1.0', info: { title: 'Synthetic multi-file', version: '1.0.0' }, paths, components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } } };
  bytes += write('openapi.yaml', root);
  return { root: path.join(dir, 'openapi.yaml'), bytes };
}

/**
 * The CLI under /usr/bin/time: wall time, CPU time (user + system, the process tree: the type-check's
 * tsc is a waited-for child) and the peak resident memory of its largest process.
 */
function timeCliWithMemory(args: readonly string[]): { seconds: number; cpuSeconds: number; maxRssMb: number; ok: boolean; summary: string } {
  const run = spawnSync('/usr/bin/time', ['-f', 'TIME %e %U %S %M', process.execPath, '--import', 'tsx', 'codegen/cli.ts', ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }); // thousands of warning lines
  const measured = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(run.stderr ?? '');
  return {
    seconds: Number(measured?.[1] ?? NaN),
    cpuSeconds: Number(measured?.[2] ?? NaN) + Number(measured?.[3] ?? NaN),
    maxRssMb: Number(measured?.[4] ?? NaN) / 1024,
    ok: run.status === 0,
    summary: (run.stdout || run.stderr).trim().split('\n').filter((line) => !line.startsWith('warning:'))[0] ?? '',
  };
}

function timeCli(spec: string, out: string, extra: string[] = []): { ms: number; ok: boolean; summary: string } {
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'codegen/cli.ts', '--spec', spec, '--out', out, ...extra], { encoding: 'utf8' });
  return { ms: performance.now() - started, ok: run.status === 0, summary: (run.stdout || run.stderr).trim().split('\n')[0] ?? '' };
}

/** In-process generate(): wall and CPU (user+system) time, without process start-up. */
async function timeInProcess(spec: string, typeCheck: boolean): Promise<{ wallMs: number; cpuMs: number }> {
  const { generate } = await import('../codegen/generate.js');
  const cpu = process.cpuUsage();
  const started = performance.now();
  await generate(spec, { typeCheck });
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

/** GitHub's REST description (a dev dependency, issue 28.5): ~1,100 operations, 13 MB of JSON. */
const GITHUB_DOCUMENT = 'node_modules/@octokit/openapi/generated/api.github.com.json';

/** Bytes under `folder`: every file, and the TypeScript modules alone. */
function folderBytes(folder: string): { all: number; typescript: number } {
  let all = 0;
  let typescript = 0;
  for (const relative of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
    const stats = statSync(path.join(folder, relative));
    if (!stats.isFile()) continue;
    all += stats.size;
    if (relative.endsWith('.ts')) typescript += stats.size;
  }
  return { all, typescript };
}

/**
 * The targets of issue 28 (bench/README.md#codegen): `npm run generate -- --check --strict` on our
 * contract (≤ 2 s of CPU), GitHub's document and the synthetic 2,000-operation one (≤ 20 s, ≤ 800 MB).
 */
function targetRows(dir: string, operations: number): void {
  const synthetic = path.join(dir, 'targets-synthetic.yaml');
  writeFileSync(synthetic, stringify(buildSyntheticSpec(operations)));
  const rows: Array<[label: string, args: string[], out: string]> = [
    ['openapi/v1.yaml, `--check --strict`', ['--check', '--strict'], 'generated'],
    ...(existsSync(GITHUB_DOCUMENT) ? [['GitHub REST (@octokit/openapi)', ['--spec', GITHUB_DOCUMENT, '--out', path.join(dir, 'github')], path.join(dir, 'github')] as [string, string[], string]] : []),
    [`synthetic, ${operations} operations`, ['--spec', synthetic, '--out', path.join(dir, 'targets-synthetic')], path.join(dir, 'targets-synthetic')],
  ];
  console.log('| document | CPU (user + system) | peak RSS | wall | TypeScript written | all files | output |');
  console.log('|---|---:|---:|---:|---:|---:|---|');
  for (const [label, args, out] of rows) {
    const measured = timeCliWithMemory(args);
    const bytes = existsSync(out) ? folderBytes(out) : { all: NaN, typescript: NaN };
    const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
    console.log(`| ${label} | ${measured.cpuSeconds.toFixed(2)} s | ${measured.maxRssMb.toFixed(0)} MB | ${measured.ok ? `${measured.seconds.toFixed(2)} s` : 'FAILED'} | ${mb(bytes.typescript)} | ${mb(bytes.all)} | ${measured.summary.replace(/ into \S+/, '').replace(/\|/g, '/')} |`);
  }
  console.log('');
}

function readdirCount(folder: string): number {
  return existsSync(folder) && statSync(folder).isDirectory() ? readdirSync(folder).length : 0;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: {
    operations: { type: 'string', default: '2000' },
    'multi-file-operations': { type: 'string', default: '700' },
    only: { type: 'string' },
  } });
  const operations = Number(values.operations);
  const dir = mkdtempSync(path.join(tmpdir(), 'kobana-codegen-bench-'));
  try {
    console.log(`load average before: ${loadavg().map((n) => n.toFixed(2)).join(' ')} (${cpus().length} CPUs, Node ${process.version})`);
    if (values.only === undefined || values.only === 'targets') targetRows(dir, operations);
    if (values.only === 'targets') return;
    console.log('| spec | `npm run generate` wall (type-check on, incl. start-up) | CPU (user + system) | peak RSS | output |');
    console.log('|---|---|---|---|---|');
    const row = (label: string, spec: string, out: string): void => {
      const measured = timeCliWithMemory(['--spec', spec, '--out', out]);
      console.log(`| ${label} | ${measured.ok ? `${measured.seconds.toFixed(2)} s` : 'FAILED'} | ${measured.cpuSeconds.toFixed(2)} s | ${measured.maxRssMb.toFixed(0)} MB | ${measured.summary.replace(/ into \S+/, '').replace(/\|/g, '/')} |`);
    };
    if (values.only === undefined || values.only === 'multi-file') {
      const multi = writeMultiFileSpec(path.join(dir, 'multi-file'), Number(values['multi-file-operations']));
      const files = ['paths', 'operations', 'schemas'].reduce((n, folder) => n + readdirCount(path.join(dir, 'multi-file', folder)), 1);
      row(`multi-file synthetic, ${values['multi-file-operations']} operations, ${(multi.bytes / 1e6).toFixed(2)} MB in ${files} files`, multi.root, path.join(dir, 'multi-out'));
    }
    if (values.only === undefined || values.only === 'corpus') {
      // The corpus of the tests (test/codegen/corpus.ts): fixtures and documents of npm packages.
      for (const document of CORPUS) row(`corpus: ${document.name} (${document.run})`, corpusFile(document), path.join(dir, `corpus-${document.name}`));
    }
    if (values.only !== undefined) return;
    console.log('');
    const synthetic = path.join(dir, 'synthetic.yaml');
    writeFileSync(synthetic, stringify(buildSyntheticSpec(operations)));
    const specs: Array<[string, string]> = [];
    if (existsSync('openapi/v1.yaml')) specs.push(['openapi/v1.yaml', 'openapi/v1.yaml']);
    specs.push([`synthetic, ${operations} operations`, synthetic]);
    // Warm the module cache (swagger-parser, handlebars) so in-process rows measure generation only (in-process CPU leaves out the type-check's tsc child).
    await timeInProcess(specs[0]![1], false);
    console.log('| spec | type-check | `npm run generate` wall (incl. start-up) | in-process wall | in-process CPU | output |');
    console.log('|---|---|---|---|---|---|');
    for (const [label, spec] of specs) {
      for (const typeCheck of [true, false]) {
        const cli = timeCli(spec, path.join(dir, `out-${typeCheck}`), typeCheck ? [] : ['--no-type-check']);
        const inProcess = await timeInProcess(spec, typeCheck);
        console.log(`| ${label} | ${typeCheck ? 'on' : 'off'} | ${cli.ok ? seconds(cli.ms) : 'FAILED'} | ${seconds(inProcess.wallMs)} | ${seconds(inProcess.cpuMs)} | ${cli.summary.replace(/ into \S+/, '').replace(/\|/g, '/')} |`);
      }
    }
    console.log(`load average after: ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
