/**
 * classification_rules.* (issue 20, "Done when": the rules classify the imported lines as the
 * preview said). CRUD and its refusals over REST, then a rule previewed against the demo
 * statement lines and the same statement imported into a new account: every line the preview
 * listed gets exactly the values it showed. SQLite and, with DATABASE_URL, PostgreSQL.
 */
import { expect } from 'chai';
import { DEMO } from '../../helpers/index.js';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { loadFixtures, type Fixtures } from '../rules/support.js';

const M = DEMO.workspaces.matriz;

describe(`classification_rules (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(120_000);
  let api: RestApp;
  let f: Fixtures;
  before(async () => {
    api = await startRestApp();
    f = await loadFixtures(api.app.services.db, M);
  });
  after(async () => { await api?.close(); });

  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { workspace: M, ...(body === undefined ? {} : { body }) });

  it('CRUD: create, get, list in position order, update, delete; 422 for a bad amount range or reference', async () => {
    const created = await call('POST', '/v1/classification_rules', { name: 'Energia', description_contains: 'energia', min_amount: '10', category_id: f.debitCategoryId });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.include({ name: 'Energia', active: true, description_contains: 'energia', min_amount: '10.00', max_amount: null, category_id: f.debitCategoryId, version: 1 });
    expect(created.body.position).to.be.greaterThan(2);
    expect((await call('GET', `/v1/classification_rules/${created.body.id}`)).body).to.deep.equal(created.body);
    const list = await call('GET', '/v1/classification_rules?limit=100');
    const positions = list.body.data.map((r: any) => r.position);
    expect(positions).to.deep.equal([...positions].sort((a, b) => a - b));
    const updated = await call('PATCH', `/v1/classification_rules/${created.body.id}`, { cost_center_id: f.costCenters.cost, category_id: null, active: false });
    expect(updated.status).to.equal(200);
    expect(updated.body).to.include({ category_id: null, cost_center_id: f.costCenters.cost, active: false, version: 2 });
    expect((await call('POST', '/v1/classification_rules', { name: 'Faixa', min_amount: '10', max_amount: '5', person_id: f.vendorId })).status, 'min > max').to.equal(422);
    expect((await call('POST', '/v1/classification_rules', { name: 'Conta', financial_account_id: DEMO.workspaces.filial, person_id: f.vendorId })).status, 'unknown account').to.equal(422);
    expect((await call('DELETE', `/v1/classification_rules/${created.body.id}`)).status).to.equal(204);
    expect((await call('GET', `/v1/classification_rules/${created.body.id}`)).status).to.equal(404);
  });

  it('an import classifies the new lines exactly as the preview said, and the preview changes nothing', async () => {
    const rule = await call('POST', '/v1/classification_rules', {
      name: 'Boletos e PIX', position: 0, counterparty_contains: 'pagto', cost_center_id: f.costCenters.both, person_id: f.vendorId,
    });
    expect(rule.status, JSON.stringify(rule.body)).to.equal(201);
    const linesBefore = await api.app.services.db.selectFrom('statement_lines').selectAll().where('workspace_id', '=', M).orderBy('id').execute();
    const preview = await call('POST', `/v1/classification_rules/${rule.body.id}/preview`);
    expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
    expect(preview.body.count).to.be.greaterThan(0);
    expect(await api.app.services.db.selectFrom('statement_lines').selectAll().where('workspace_id', '=', M).orderBy('id').execute()).to.deep.equal(linesBefore);

    // The checking account's demo statement, imported again into a new account.
    const accounts = await call('GET', '/v1/accounts?limit=100');
    const itau = accounts.body.data.find((a: any) => a.name === 'Itaú 1234');
    const itauLines = linesBefore.filter((l) => l.financial_account_id === itau.id);
    const attachments = await call('GET', '/v1/attachments?limit=100');
    const file = attachments.body.data.find((a: any) => a.file_name === 'extrato-itau.ofx');
    const download = await fetch(`${api.url}/v1/attachments/${file.id}/download`, { headers: { authorization: `Bearer ${await api.token('ana')}`, 'x-workspace-id': M } });
    const ofx = Buffer.from(await download.arrayBuffer());
    const account = await call('POST', '/v1/accounts', { name: 'Cópia do Itaú', type: 'checking' });
    const imported = await call('POST', `/v1/accounts/${account.body.id}/statements`, { file_name: 'itau.ofx', content_base64: ofx.toString('base64') });
    expect(imported.status).to.equal(201);
    const fresh = await api.app.services.db.selectFrom('statement_lines').selectAll().where('workspace_id', '=', M).where('financial_account_id', '=', account.body.id).execute();

    const predicted = (preview.body.statement_lines as any[]).filter((p) => itauLines.some((l) => l.id === p.id));
    expect(predicted.length, 'the preview names lines of the checking account').to.be.greaterThan(0);
    for (const p of predicted) {
      const fitid = itauLines.find((l) => l.id === p.id)?.fitid;
      const line = fresh.find((l) => l.fitid === fitid);
      expect({ category_id: line?.category_id, cost_center_id: line?.cost_center_id, person_id: line?.person_id, rule_id: line?.rule_id }, String(fitid))
        .to.deep.equal({ category_id: p.category_id, cost_center_id: p.cost_center_id, person_id: p.person_id, rule_id: rule.body.id });
    }
    // …and the new lines the preview did not name are not this rule's.
    const named = new Set(predicted.map((p) => itauLines.find((l) => l.id === p.id)?.fitid));
    expect(fresh.filter((l) => !named.has(l.fitid)).every((l) => l.rule_id !== rule.body.id)).to.equal(true);
  });

  it('an unsaved rule previews as the same rule once saved, saving nothing; a bad reference is 422; reading needs only finance.rules', async () => {
    const definition = { name: 'Tudo o mais', cost_center_id: f.costCenters.both, person_id: f.vendorId };
    const rulesBefore = await api.app.services.db.selectFrom('classification_rules').selectAll().where('workspace_id', '=', M).orderBy('id').execute();
    const draft = await call('POST', '/v1/classification_rules/preview', definition);
    expect(draft.status, JSON.stringify(draft.body)).to.equal(200);
    expect(draft.body.rule_id).to.equal(null);
    expect(draft.body.count, 'a catch-all placed last wins the lines no other rule matches').to.be.greaterThan(0);
    // A reader of rules alone gets the count, not the statement lines (docs/security.md#resources-touched).
    const reader = await api.token('ana', 'finance.rules');
    const counted = await api.call('POST', '/v1/classification_rules/preview', { workspace: M, token: reader, body: definition });
    expect(counted.status, JSON.stringify(counted.body)).to.equal(200);
    expect(counted.body).to.deep.include({ count: draft.body.count, statement_lines: [] });
    expect(counted.body.meta.omitted).to.deep.equal(['reconciliations']);
    expect(await api.app.services.db.selectFrom('classification_rules').selectAll().where('workspace_id', '=', M).orderBy('id').execute()).to.deep.equal(rulesBefore);
    expect((await api.call('POST', '/v1/classification_rules/preview', { workspace: M, token: reader, body: { ...definition, category_id: DEMO.workspaces.filial } })).status, 'unknown category').to.equal(422);

    const saved = await call('POST', '/v1/classification_rules', definition);
    expect(saved.status, JSON.stringify(saved.body)).to.equal(201);
    const preview = await call('POST', `/v1/classification_rules/${saved.body.id}/preview`);
    expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
    expect({ ...draft.body, rule_id: saved.body.id }).to.deep.equal(preview.body);
    // Placed first, the same draft wins every line it matches (at least what it won last).
    const first = await call('POST', '/v1/classification_rules/preview', { ...definition, position: 0 });
    expect(first.body.count).to.be.at.least(draft.body.count);
    expect((await call('DELETE', `/v1/classification_rules/${saved.body.id}`)).status).to.equal(204);
  });

  it('a new title gets the category and cost center of the first matching rule, only where its body left them out and they fit its kind', async () => {
    const rule = await call('POST', '/v1/classification_rules', {
      name: 'Coworking', position: 0, description_contains: 'coworking', category_id: f.debitCategoryId, cost_center_id: f.costCenters.both,
    });
    expect(rule.status).to.equal(201);
    const base = { amount: '900.00', due_date: '2026-04-10' };
    const payable = await call('POST', '/v1/payables', { ...base, description: 'Mensalidade COWORKING abril', person_id: f.vendorId });
    expect(payable.body).to.include({ category_id: f.debitCategoryId });
    expect(payable.body.cost_center_allocations).to.deep.equal([{ cost_center_id: f.costCenters.both, percentage: '100.00', amount: '900.00' }]);
    const explicit = await call('POST', '/v1/payables', { ...base, description: 'Coworking', person_id: f.vendorId, category_id: null, cost_center_allocations: [] });
    expect(explicit.body.category_id).to.equal(null);
    expect(explicit.body.cost_center_allocations).to.deep.equal([]);
    // A debit category does not fit a receivable: only the cost center (type both) is applied.
    const receivable = await call('POST', '/v1/receivables', { ...base, description: 'Sublocação coworking', person_id: f.customerId });
    expect(receivable.body.category_id).to.equal(null);
    expect(receivable.body.cost_center_allocations).to.have.length(1);
    expect((await call('DELETE', `/v1/classification_rules/${rule.body.id}`)).status).to.equal(204);
    const after = await call('POST', '/v1/payables', { ...base, description: 'Coworking maio', person_id: f.vendorId });
    expect(after.body.category_id).to.equal(null);
  });

  it('403 for a member without the rules permission; reading needs only finance.rules', async () => {
    expect((await api.call('GET', '/v1/classification_rules', { workspace: M, token: await api.token('bruno', 'finance.all') })).status).to.equal(403);
    expect((await api.call('GET', '/v1/classification_rules', { workspace: M, token: await api.token('ana', 'finance.rules') })).status).to.equal(200);
    expect((await api.call('POST', '/v1/classification_rules', { workspace: M, token: await api.token('ana', 'finance.rules'), body: { name: 'x', description_contains: 'x', person_id: f.vendorId } })).status).to.equal(403);
  });
});
