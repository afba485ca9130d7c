/**
 * The payee allowlist over REST (docs/security.md#payee-allowlist): people's payment details
 * (pix_key, bank_account), payee_allowlist.list/get/approve/delete, the activity entries they
 * write, and a people update or delete taking the changed destinations off the list in the same
 * transaction. Who may reach the endpoints (never an OAuth token, never a tool) is checked here too.
 */
import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { makeCnpj, makeCpf } from '../support/documents.js';
import { buildDefaultClaims, craftToken, DEMO, loadTestAppKey } from '../../helpers/index.js';
import { tools } from '../../../generated/registry.gen.js';

const M = DEMO.workspaces.matriz;
const F = DEMO.workspaces.filial;

interface Entry { id: string; person_id: string; kind: string; value: string; approved_by: string; approved_at: string }

describe('payee allowlist (REST): people payment details, payee_allowlist.*, revocation on edit', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  const createPayee = async (extra: Record<string, unknown> = {}) => {
    const res = await api.call('POST', '/v1/people', {
      workspace: M,
      body: { name: 'Fornecedor Pix', kind: 'juridical', document_number: makeCnpj(), is_supplier: true, pix_key: 'Financeiro@Fornecedor.test', bank_account: { bank_code: '341', agency: '1234', account_number: '12345-x' }, ...extra },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body as { id: string; document_number: string; pix_key: string | null; bank_account: unknown };
  };
  /** What an approver reads before approving: the person's current values of those kinds, as `expected` takes them. */
  const seen = async (personId: string, kinds: readonly string[]): Promise<Record<string, string>> => {
    const res = await api.call('GET', `/v1/people/${personId}`, { workspace: M });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const bank = res.body.bank_account as { bank_code: string; agency: string; account_number: string } | null;
    const values: Record<string, string | null> = {
      document_number: res.body.document_number, pix_key: res.body.pix_key, bank_account: bank ? `${bank.bank_code}/${bank.agency}/${bank.account_number}` : null,
    };
    return Object.fromEntries(kinds.flatMap((kind) => (values[kind] ? [[kind, values[kind] as string]] : [])));
  };
  /** An approval as a person makes it: with the values read just before (unless the test names `expected` itself). */
  const approve = async (body: Record<string, unknown>, workspace: string = M) => api.call('POST', '/v1/payee-allowlist', {
    workspace, body: 'expected' in body ? body : { ...body, expected: await seen(String(body['person_id']), body['kinds'] as string[]) },
  });
  const entriesOf = async (personId: string): Promise<Entry[]> => {
    const res = await api.call('GET', `/v1/payee-allowlist?person_id=${personId}&limit=100`, { workspace: M });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data as Entry[];
  };
  const activityOf = (operation: string, recordIds: readonly string[]) => api.app.services.db.selectFrom('activity').select(['operation', 'resource', 'record_id', 'person_id', 'channel', 'details'])
    .where('workspace_id', '=', M).where('operation', '=', operation).where('record_id', 'in', [...recordIds]).orderBy('created_at').execute();

  it('stores a person\'s Pix key and bank account normalised, and answers null when there are none', async () => {
    const payee = await createPayee();
    expect(payee).to.deep.include({ pix_key: 'financeiro@fornecedor.test', bank_account: { bank_code: '341', agency: '1234', account_number: '12345-X' } });
    const bare = await api.call('POST', '/v1/people', { workspace: M, body: { name: 'Sem dados', kind: 'natural' } });
    expect(bare.body).to.deep.include({ pix_key: null, bank_account: null });
    const cpfKey = makeCpf();
    const formatted = `${cpfKey.slice(0, 3)}.${cpfKey.slice(3, 6)}.${cpfKey.slice(6, 9)}-${cpfKey.slice(9)}`;
    const update = await api.call('PATCH', `/v1/people/${bare.body.id}`, { workspace: M, body: { pix_key: formatted } });
    expect(update.body.pix_key).to.equal(cpfKey);
    for (const key of ['+5511987654321', '3D9F0C1E-8B2A-4C5D-9E6F-7A8B9C0D1E2F']) {
      const res = await api.call('PATCH', `/v1/people/${bare.body.id}`, { workspace: M, body: { pix_key: key } });
      expect(res.body.pix_key, key).to.equal(key.toLowerCase());
    }
    const cleared = await api.call('PATCH', `/v1/people/${payee.id}`, { workspace: M, body: { pix_key: null, bank_account: null } });
    expect(cleared.body).to.deep.include({ pix_key: null, bank_account: null });
    const row = await api.app.services.db.selectFrom('people').select(['bank_code', 'agency', 'account_number']).where('workspace_id', '=', M).where('id', '=', payee.id).executeTakeFirstOrThrow();
    expect(row).to.deep.equal({ bank_code: null, agency: null, account_number: null });
  });

  it('refuses what is not a Pix key or a bank account with VALIDATION_ERROR, without echoing it', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ pix_key: '11987654321x' }, 'pix_key'],
      [{ pix_key: '5511987654321' }, 'pix_key'],
      [{ pix_key: '12345678900' }, 'pix_key'],
      [{ pix_key: 'sem-arroba.test' }, 'pix_key'],
      // A look-alike of another script: Cyrillic а (U+0430) in place of a Latin a.
      [{ pix_key: 'fin\u0430nceiro@fornecedor.test' }, 'pix_key'],
      [{ pix_key: 'financeiro@fornecedor.t\u0435st' }, 'pix_key'],
      [{ pix_key: 'financeiro@-fornecedor.test' }, 'pix_key'],
      [{ bank_account: { bank_code: '34', agency: '1234', account_number: '1' } }, 'bank_account.bank_code'],
      [{ bank_account: { bank_code: '341', agency: '123456', account_number: '1' } }, 'bank_account.agency'],
      [{ bank_account: { bank_code: '341', agency: '1', account_number: '12-34' } }, 'bank_account.account_number'],
    ];
    expect(cases).to.have.length.above(0);
    for (const [body, path] of cases) {
      const res = await api.call('POST', '/v1/people', { workspace: M, body: { name: 'Inválido', kind: 'juridical', ...body } });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path), JSON.stringify(body)).to.include(path);
      expect(JSON.stringify(res.body)).not.to.include('11987654321x').and.not.include('sem-arroba');
    }
  });

  it('approves the person\'s current destinations, logs each one, and an approval of the same value again changes nothing', async () => {
    const payee = await createPayee();
    const res = await approve({ person_id: payee.id, kinds: ['pix_key', 'document_number', 'bank_account'] });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const entries = res.body.data as Entry[];
    expect(entries.map((e) => [e.kind, e.value])).to.deep.equal([
      ['document_number', payee.document_number], ['pix_key', 'financeiro@fornecedor.test'], ['bank_account', '341/1234/12345-X'],
    ]);
    expect(entries.every((e) => e.approved_by === DEMO.persons.ana && e.person_id === payee.id)).to.equal(true);
    const logged = await activityOf('payee_allowlist.approve', entries.map((e) => e.id));
    // One call writes its entries at one instant: compared by entry, not by order.
    expect(Object.fromEntries(logged.map((a) => [a.record_id, JSON.parse(a.details ?? 'null')]))).to.deep.equal(
      Object.fromEntries(entries.map((e) => [e.id, { person_id: payee.id, changes: [{ field: e.kind, old: null, new: e.value }] }])));
    expect(logged.every((a) => a.resource === 'payee_allowlist' && a.person_id === DEMO.persons.ana && a.channel === 'api')).to.equal(true);

    const again = await approve({ person_id: payee.id, kinds: ['pix_key'], expected: { pix_key: 'FINANCEIRO@fornecedor.test' } });
    expect(again.body.data).to.deep.equal([entries[1]]);
    expect(await activityOf('payee_allowlist.approve', entries.map((e) => e.id))).to.have.length(3);
    expect(await entriesOf(payee.id)).to.have.length(3);
    const one = await api.call('GET', `/v1/payee-allowlist/${entries[0]?.id}`, { workspace: M });
    expect(one.body).to.deep.equal(entries[0]);
  });

  it('refuses an approval whose expected value is not the current one (CONFLICT), and a kind the person has none of (422); nothing is stored', async () => {
    const payee = await createPayee({ bank_account: null });
    const stale = await approve({ person_id: payee.id, kinds: ['document_number', 'pix_key'], expected: { document_number: payee.document_number, pix_key: 'antigo@fornecedor.test' } });
    expect(stale.status).to.equal(409);
    expect(stale.body.error).to.deep.include({ code: 'CONFLICT', details: { kind: 'pix_key' } });
    expect(stale.body.error.message).to.include('Pix key').and.not.include('antigo');
    const none = await approve({ person_id: payee.id, kinds: ['bank_account'], expected: { bank_account: '341/1234/12345-X' } });
    expect(none.status).to.equal(422);
    expect(none.body.error).to.deep.include({ code: 'UNPROCESSABLE_ENTITY', details: { kind: 'bank_account' } });
    const outside = await approve({ person_id: payee.id, kinds: ['document_number'], expected: { pix_key: 'financeiro@fornecedor.test' } });
    expect(outside.status).to.equal(400);
    expect(outside.body.error.details.issues[0].path).to.equal('expected.pix_key');
    expect(await entriesOf(payee.id)).to.deep.equal([]);
    const matching = await approve({ person_id: payee.id, kinds: ['document_number'], expected: { document_number: payee.document_number } });
    expect(matching.status).to.equal(200);
  });

  it('refuses an approval that does not say, for every kind, the value the approver saw (VALIDATION_ERROR); nothing is stored', async () => {
    const payee = await createPayee();
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ person_id: payee.id, kinds: ['pix_key'] }, ['expected']],
      [{ person_id: payee.id, kinds: ['pix_key', 'document_number'], expected: { pix_key: payee.pix_key } }, ['expected.document_number']],
      [{ person_id: payee.id, kinds: ['pix_key'], expected: {} }, ['expected']],
    ];
    expect(cases).to.not.be.empty;
    for (const [body, paths] of cases) {
      const res = await api.call('POST', '/v1/payee-allowlist', { workspace: M, body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
      const issues = (res.body.error.details.issues as { path: string }[]).map((issue) => issue.path);
      expect(issues.some((path) => paths.some((expectedPath) => path === expectedPath || path.startsWith(`${expectedPath}`))), JSON.stringify(res.body)).to.equal(true);
    }
    expect(await entriesOf(payee.id)).to.deep.equal([]);
  });

  it('answers NOT_FOUND for a person of another workspace or a deleted one', async () => {
    const payee = await createPayee();
    expect((await approve({ person_id: payee.id, kinds: ['pix_key'] }, F)).status).to.equal(404);
    const expected = await seen(payee.id, ['pix_key']);
    expect((await api.call('DELETE', `/v1/people/${payee.id}`, { workspace: M })).status).to.equal(204);
    expect((await approve({ person_id: payee.id, kinds: ['pix_key'], expected })).status).to.equal(404);
  });

  it('lists by person and kind, and a removal takes one entry off with an activity entry saying what', async () => {
    const payee = await createPayee();
    const other = await createPayee();
    await approve({ person_id: payee.id, kinds: ['document_number', 'pix_key'] });
    await approve({ person_id: other.id, kinds: ['pix_key'] });
    const byKind = await api.call('GET', `/v1/payee-allowlist?person_id[in]=${payee.id},${other.id}&kind=pix_key`, { workspace: M });
    expect(byKind.body.data.map((e: Entry) => e.person_id).sort()).to.deep.equal([payee.id, other.id].sort());
    const pix = (await entriesOf(payee.id)).find((e) => e.kind === 'pix_key') as Entry;
    expect((await api.call('DELETE', `/v1/payee-allowlist/${pix.id}`, { workspace: M })).status).to.equal(204);
    expect((await entriesOf(payee.id)).map((e) => e.kind)).to.deep.equal(['document_number']);
    const [logged] = await activityOf('payee_allowlist.delete', [pix.id]);
    expect(JSON.parse(logged?.details ?? 'null')).to.deep.equal({ person_id: payee.id, changes: [{ field: 'pix_key', old: pix.value, new: null }] });
    expect((await api.call('DELETE', `/v1/payee-allowlist/${pix.id}`, { workspace: M })).status).to.equal(404);
    expect((await api.call('GET', `/v1/payee-allowlist/${pix.id}`, { workspace: M })).status).to.equal(404);
  });

  it('a people update that changes a destination takes that kind off the list (logged); the other kinds and unchanged values stay', async () => {
    const payee = await createPayee();
    const approved = (await approve({ person_id: payee.id, kinds: ['document_number', 'pix_key', 'bank_account'] })).body.data as Entry[];
    // Same values, a name, a kind change that keeps the document: nothing leaves the list.
    await api.call('PATCH', `/v1/people/${payee.id}`, { workspace: M, body: { name: 'Renomeado', pix_key: 'financeiro@FORNECEDOR.test', bank_account: { bank_code: '341', agency: '1234', account_number: '12345-X' } } });
    expect(await entriesOf(payee.id)).to.have.length(3);
    const res = await api.call('PATCH', `/v1/people/${payee.id}`, { workspace: M, body: { pix_key: '+5511987654321' } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect((await entriesOf(payee.id)).map((e) => e.kind).sort()).to.deep.equal(['bank_account', 'document_number']);
    const pix = approved.find((e) => e.kind === 'pix_key') as Entry;
    const [revoked] = await activityOf('people.update', [pix.id]);
    expect(revoked?.resource).to.equal('payee_allowlist');
    expect(JSON.parse(revoked?.details ?? 'null')).to.deep.equal({ person_id: payee.id, reason: 'payment_details_changed', changes: [{ field: 'pix_key', old: 'financeiro@fornecedor.test', new: null }] });
    await api.call('PATCH', `/v1/people/${payee.id}`, { workspace: M, body: { bank_account: { bank_code: '237', agency: '1', account_number: '9' }, document_number: makeCnpj() } });
    expect(await entriesOf(payee.id)).to.deep.equal([]);
    // Approved again at the new value.
    const renewed = await approve({ person_id: payee.id, kinds: ['pix_key', 'bank_account'] });
    expect(renewed.body.data.map((e: Entry) => e.value)).to.deep.equal(['+5511987654321', '237/1/9']);
  });

  it('a refused people update leaves the list as it was', async () => {
    const taken = await createPayee();
    const payee = await createPayee();
    await approve({ person_id: payee.id, kinds: ['document_number', 'pix_key'] });
    const res = await api.call('PATCH', `/v1/people/${payee.id}`, { workspace: M, body: { pix_key: 'novo@fornecedor.test', document_number: taken.document_number } });
    expect(res.status).to.equal(409);
    expect(await entriesOf(payee.id)).to.have.length(2);
  });

  it('deleting a person takes all their destinations off the list', async () => {
    const payee = await createPayee();
    const approved = (await approve({ person_id: payee.id, kinds: ['document_number', 'pix_key', 'bank_account'] })).body.data as Entry[];
    expect((await api.call('DELETE', `/v1/people/${payee.id}`, { workspace: M })).status).to.equal(204);
    expect(await entriesOf(payee.id)).to.deep.equal([]);
    const logged = await activityOf('people.delete', approved.map((e) => e.id));
    expect(logged.map((a) => JSON.parse(a.details ?? 'null').reason)).to.deep.equal(['person_deleted', 'person_deleted', 'person_deleted']);
  });

  it('is Seguridad: an OAuth token never reaches it, a member without security.manage is refused, and no tool exposes it', async () => {
    const payee = await createPayee();
    const key = await loadTestAppKey(api.app);
    const oauth = await craftToken(buildDefaultClaims(api.app, 'api'), {
      key: key.privateKey, kid: key.kid, claims: { token_type: 'oauth', writes_approved: true, scope: 'finance.all.write finance.security.write' },
    });
    const expected = await seen(payee.id, ['pix_key']);
    for (const [method, path, body] of [['GET', '/v1/payee-allowlist', undefined], ['POST', '/v1/payee-allowlist', { person_id: payee.id, kinds: ['pix_key'], expected }]] as const) {
      const res = await api.call(method, path, { workspace: M, token: oauth, ...(body ? { body } : {}) });
      expect(res.body.error?.code, `${method} ${path}`).to.equal('insufficient_scope');
    }
    const byAna = await approve({ person_id: payee.id, kinds: ['pix_key'] }, M);
    expect(byAna.status).to.equal(200);
    const refused = await api.call('POST', '/v1/payee-allowlist', { workspace: M, token: await api.token('bruno', 'finance.security.write'), body: { person_id: payee.id, kinds: ['pix_key'], expected } });
    expect(refused.body.error).to.deep.include({ code: 'insufficient_permission', details: { permission: 'security.manage' } });
    const allowlistTools = tools.filter((tool) => tool.operation.operationId.startsWith('payee_allowlist.'));
    expect(allowlistTools).to.deep.equal([]);
    expect(api.routes.filter((route) => route.operation.operationId.startsWith('payee_allowlist.'))).to.have.length(4);
  });
});
