/**
 * Codegen timing: regenerates openapi/v1.yaml and a synthetic 2,000-operation spec (written to a
 * temp dir) through the real CLI, and prints a table. A script, not a test (docs/architecture.md#conventions).
 * Usage: npx tsx bench/codegen.ts [--operations 2000]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';


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
      return { operationId: `${res}.${action}`, summary: `${action} ${res}`, description: `Does ${action} on ${res}. Ação de teste.`,
        security: [{ bearer: [method === 'get' ? `finance.${res}` : `finance.${res}.write`] }],
        'x-kobana-permission': `${res}.${method === 'get' ? 'view' : 'manage'}`, ...extra };
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

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { operations: { type: 'string', default: '2000' } } });
  const operations = Number(values.operations);
  const dir = mkdtempSync(path.join(tmpdir(), 'kobana-codegen-bench-'));
  try {
    const synthetic = path.join(dir, 'synthetic.yaml');
    writeFileSync(synthetic, stringify(buildSyntheticSpec(operations)));
    const specs: Array<[string, string]> = [];
    if (existsSync('openapi/v1.yaml')) specs.push(['openapi/v1.yaml', 'openapi/v1.yaml']);
    specs.push([`synthetic, ${operations} operations`, synthetic]);
    // Warm the module cache (ts-morph, swagger-parser) so in-process rows measure generation only.
    await timeInProcess(specs[0]![1], false);
    console.log(`load average before: ${loadavg().map((n) => n.toFixed(2)).join(' ')} (${cpus().length} CPUs, Node ${process.version})`);
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
