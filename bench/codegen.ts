/**
 * Codegen timing: regenerates openapi/v1.yaml and a synthetic 2,000-operation spec (written to a
 * temp dir) through the real CLI, and prints a table. A script, not a test (STYLE.md §Tests).
 * Usage: npx tsx bench/codegen.ts [--operations 2000]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

function timeCli(spec: string, out: string): { ms: number; ok: boolean; summary: string } {
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'codegen/cli.ts', '--spec', spec, '--out', out], { encoding: 'utf8' });
  return { ms: performance.now() - started, ok: run.status === 0, summary: (run.stdout || run.stderr).trim() };
}

function main(): void {
  const { values } = parseArgs({ options: { operations: { type: 'string', default: '2000' } } });
  const OPERATIONS = Number(values.operations);
  const dir = mkdtempSync(path.join(tmpdir(), 'kobana-codegen-bench-'));
  try {
    const rows: string[][] = [];
    if (existsSync('openapi/v1.yaml')) {
      const ours = timeCli('openapi/v1.yaml', path.join(dir, 'ours'));
      rows.push(['openapi/v1.yaml', ours.ok ? 'ok' : 'FAILED', `${(ours.ms / 1000).toFixed(2)} s`, ours.summary]);
    }
    const synthetic = path.join(dir, 'synthetic.yaml');
    writeFileSync(synthetic, stringify(buildSyntheticSpec(OPERATIONS)));
    const big = timeCli(synthetic, path.join(dir, 'synthetic-out'));
    rows.push([`synthetic (${OPERATIONS} ops)`, big.ok ? 'ok' : 'FAILED', `${(big.ms / 1000).toFixed(2)} s`, big.summary]);
    console.log('| spec | result | wall time (CLI process, incl. tsx start-up) | output |');
    console.log('|---|---|---|---|');
    for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
