/**
 * The safety metadata the generator derives and enforces (codegen/classify.ts, docs/generator.md#safety-metadata),
 * over variants of the Kobana fixture spec: an operation that declares `changes: []` is read-only
 * even as a POST (idempotent, not destructive), and must need only read scopes and a `.view`
 * permission or `none`; a destructive or money-moving operation that is not idempotent must take
 * the Idempotency-Key header. A foreign document is held to neither.
 */
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { CodegenError } from '../../codegen/errors.js';
import { generate } from '../../codegen/generate.js';
import { makeTempDir, MINI_SPEC, readYaml, writeSpec, type Doc } from './support.js';

/** A POST that reads payables and writes nothing (a preview), as the fixture's operations are written. */
function previewOperation(): Doc {
  return {
    operationId: 'payables.preview_batch',
    summary: 'Preview a payment batch',
    description: 'Shows what paying the pending payables would do; changes nothing.',
    security: [{ bearer: ['finance.payables'] }],
    'x-kobana-permission': 'payables.view',
    'x-kobana-touches': { changes: [], shows: ['payables'] },
    responses: { '200': { description: 'The preview.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Payable' } } } }, default: { $ref: '#/components/responses/Error' } },
  };
}

describe('codegen: safety metadata (read-only by changes: [], Idempotency-Key on non-idempotent destructive writes)', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => { dir = makeTempDir(); });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const variant = (name: string, edit: (doc: Doc) => void): string => {
    const doc = readYaml(MINI_SPEC);
    edit(doc);
    return writeSpec(dir, name, doc);
  };
  async function refusal(file: string): Promise<CodegenError> {
    try {
      await generate(file, { typeCheck: false });
    } catch (error) {
      if (error instanceof CodegenError) return error;
      throw error;
    }
    throw new Error(`${file} was accepted`);
  }

  it('a POST declaring changes: [] is read-only, idempotent and not destructive; a POST that writes is neither read-only nor idempotent', async () => {
    const file = variant('preview.yaml', (doc) => { doc.paths['/v1/payables/preview'] = { post: previewOperation() }; });
    const { plan } = await generate(file, { typeCheck: false });
    const preview = plan.tools.find((tool) => tool.name === 'finance_payables_preview_batch');
    expect(preview?.annotations).to.include({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    const create = plan.tools.find((tool) => tool.name === 'finance_payables_create');
    expect(create?.annotations).to.include({ readOnlyHint: false, idempotentHint: false });
  });

  it('refuses an operation that changes nothing but needs a write scope or a permission other than .view or none', async () => {
    const write = await refusal(variant('preview-write.yaml', (doc) => {
      doc.paths['/v1/payables/preview'] = { post: { ...previewOperation(), security: [{ bearer: ['finance.payables.write'] }] } };
    }));
    expect(write.code).to.equal('INVALID_EXTENSION');
    expect(write.pointer).to.equal('#/paths/~1v1~1payables~1preview/post/security');
    expect(write.message).to.match(/payables\.preview_batch changes nothing: it needs read scopes only, not finance\.payables\.write/);
    const manage = await refusal(variant('preview-manage.yaml', (doc) => {
      doc.paths['/v1/payables/preview'] = { post: { ...previewOperation(), 'x-kobana-permission': 'payables.manage' } };
    }));
    expect(manage.pointer).to.equal('#/paths/~1v1~1payables~1preview/post/x-kobana-permission');
    expect(manage.message).to.match(/a \.view permission or none, not payables\.manage/);
  });

  it('accepts a read whose permission is none (a list every member may call)', async () => {
    const file = variant('none.yaml', (doc) => { doc.paths['/v1/payables/preview'] = { post: { ...previewOperation(), 'x-kobana-permission': 'none', 'x-kobana-touches': { changes: [], shows: [] } } }; });
    const { plan } = await generate(file, { typeCheck: false });
    expect(plan.tools.find((tool) => tool.name === 'finance_payables_preview_batch')?.annotations.readOnlyHint).to.equal(true);
  });

  it('refuses readOnlyHint: true on a POST that does not declare changes: []', async () => {
    const failure = await refusal(variant('hint.yaml', (doc) => { doc.paths['/v1/payables'].post['x-mcp'] = { annotations: { readOnlyHint: true } }; }));
    expect(failure.pointer).to.equal('#/paths/~1v1~1payables/post/x-mcp/annotations/readOnlyHint');
  });

  it('refuses a cancel (destructive) and a money-moving POST without the Idempotency-Key header, naming the operation', async () => {
    const dropKey = (operation: Doc) => {
      operation.parameters = (operation.parameters as Doc[]).filter((parameter) => parameter.$ref !== '#/components/parameters/IdempotencyKey');
    };
    const cancel = await refusal(variant('cancel.yaml', (doc) => dropKey(doc.paths['/v1/payables/{id}/cancel'].post)));
    expect(cancel.code).to.equal('MISSING_EXTENSION');
    expect(cancel.pointer).to.equal('#/paths/~1v1~1payables~1{id}~1cancel/post/parameters');
    expect(cancel.message).to.match(/payables\.cancel is destructive or moves money and is not idempotent: it must take the Idempotency-Key header/);
    const transfer = await refusal(variant('transfer.yaml', (doc) => dropKey(doc.paths['/v1/transfers'].post)));
    expect(transfer.message).to.match(/^.*transfers\.create is destructive or moves money/);
    // A DELETE is idempotent: it needs no key (the fixture's payables.delete takes none).
    const { plan } = await generate(MINI_SPEC, { typeCheck: false });
    expect(plan.tools.find((tool) => tool.name === 'finance_payables_delete')?.annotations).to.include({ destructiveHint: true, idempotentHint: true });
  });

  it('holds a foreign document (no x-kobana-permission) to neither rule', async () => {
    const doc: Doc = {
      openapi: '3.1.0', info: { title: 'Foreign', version: '1' },
      paths: { '/orders/{id}/cancel': { post: { operationId: 'orders.cancel', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { '200': { description: 'ok' } } } } },
    };
    const { plan } = await generate(writeSpec(dir, 'foreign.yaml', doc), { typeCheck: false });
    expect(plan.tools.map((tool) => tool.annotations)).to.deep.equal([{ title: 'orders.cancel', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false }]);
  });
});
