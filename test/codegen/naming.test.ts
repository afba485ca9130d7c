import { expect } from 'chai';
import { deriveToolName, extractAction, fitToolName, isValidToolName, toSnakeCase } from '../../codegen/naming.js';
import { toArgumentName } from '../../src/runtime/tool-view.js';

describe('toSnakeCase()', () => {
  const table: Array<{ given: string; want: string }> = [
    { given: 'payables.settle', want: 'payables_settle' },
    { given: 'cost_centers.list', want: 'cost_centers_list' },
    { given: 'getPetById', want: 'get_pet_by_id' },
    { given: 'HTTPServerStatus', want: 'http_server_status' },
    { given: 'catalog-items.search', want: 'catalog_items_search' },
    { given: 'Pagamentos Ação', want: 'pagamentos_acao' },
    { given: '__weird..name__', want: 'weird_name' },
  ];
  for (const { given, want } of table) {
    it(`turns ${JSON.stringify(given)} into ${want}`, () => expect(toSnakeCase(given)).to.equal(want));
  }
});

describe('deriveToolName()', () => {
  it('is the snake_case operationId, after the document\'s prefix when it has one', () => {
    expect(deriveToolName('', 'payables.settle', 'POST', '/v1/payables/{id}/settle')).to.equal('payables_settle');
    expect(deriveToolName('finance_', 'payables.settle', 'POST', '/v1/payables/{id}/settle')).to.equal('finance_payables_settle');
  });
  it('derives a name from method and path when there is no operationId', () => {
    expect(deriveToolName('finance_', undefined, 'DELETE', '/v1/attachments/{id}/links/{parentType}'))
      .to.equal('finance_delete_v1_attachments_by_id_links_by_parent_type');
  });
  it('truncates long names deterministically with a hash suffix that keeps them distinct', () => {
    const a = deriveToolName('finance_', `${'very_long_resource_name.'.repeat(4)}alpha`, 'GET', '/x');
    const b = deriveToolName('finance_', `${'very_long_resource_name.'.repeat(4)}beta`, 'GET', '/x');
    expect(a).to.have.length.at.most(64);
    expect(isValidToolName(a)).to.equal(true);
    expect(a).to.not.equal(b);
    expect(a).to.equal(deriveToolName('finance_', `${'very_long_resource_name.'.repeat(4)}alpha`, 'GET', '/x'));
    expect(a).to.match(/_[0-9a-f]{8}$/);
  });
  it('cuts a name only when it is longer than 64 characters with the prefix it has', () => {
    const slug = 'x'.repeat(60);
    expect(deriveToolName('', slug, 'GET', '/x')).to.equal(slug);
    expect(deriveToolName('finance_', slug, 'GET', '/x')).to.match(/^finance_x{47}_[0-9a-f]{8}$/);
  });
  it('leaves names of 64 characters untouched', () => {
    const name = 'finance_' + 'a'.repeat(56);
    expect(fitToolName(name)).to.equal(name);
  });
});

describe('isValidToolName()', () => {
  const table = [
    { given: 'finance_payables_list', want: true },
    { given: 'a', want: true },
    { given: 'Finance_x', want: false },
    { given: '1abc', want: false },
    { given: 'has-dash', want: false },
    { given: 'a'.repeat(65), want: false },
  ];
  for (const { given, want } of table) it(`says ${want} for ${given.slice(0, 20)}`, () => expect(isValidToolName(given)).to.equal(want));
});

describe('toArgumentName() and extractAction()', () => {
  it('turns header names into snake_case arguments', () => {
    expect(toArgumentName('Idempotency-Key')).to.equal('idempotency_key');
    expect(toArgumentName('X-Request-Id')).to.equal('x_request_id');
  });
  it('reads the action after the last dot', () => {
    expect(extractAction('payables.cancel')).to.equal('cancel');
    expect(extractAction(undefined)).to.equal('');
  });
});
