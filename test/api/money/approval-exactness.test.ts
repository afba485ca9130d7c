/**
 * An approval runs exactly what the approver was shown (issue 29 item 3: "Approval runs the move
 * exactly once … with the original arguments, the record's version and the limits re-checked (a
 * changed record … is refused, nothing half-done)"). Found in review: a reconciliation's request
 * measures only the payables open when it is asked; a payable of it already paid then, reopened
 * afterwards (reopen needs no approval), would have been settled by the approval unseen — R$ 5.000
 * out under a R$ 200 approval. The move measured again must be the approved items and total.
 * SQLite and, with DATABASE_URL, PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { DEMO } from '../../helpers/index.js';
import { buildSmallOfx } from '../support/coverage-requests.js';
import { createManualClock } from '../../helpers/clock.js';
import { restoreDemoPermissions, setPermissions } from './support.js';

const WS = DEMO.workspaces.matriz;
const START = Date.parse('2026-06-10T12:00:00.000Z');
/** What bruno needs to decide a reconciliation's request: approvals.approve and everything the reconciliation needs. */
// hand-kept-ok: a member's panel permissions for this test (permission names, not a list of operations)
const BRUNO_APPROVER = ['payables.view', 'payables.settle', 'receivables.view', 'receivables.settle', 'reconciliations.view', 'reconciliations.manage',
  'transactions.view', 'approvals.view', 'approvals.approve', 'statements.view', 'accounts.view'];

describe('money controls: an approval runs exactly the move it approved', function () {
  this.timeout(60_000);
  let api: RestApp;
  before(async () => { api = await startRestApp({ clock: createManualClock(START) }); });
  after(async () => {
    if (api) {
      await api.call('PATCH', '/v1/security-settings', { workspace: WS, body: { money_controls: { approvals: { thresholds: { api: null, mcp: null } } } } });
      await restoreDemoPermissions(api.app.services.db, DEMO.persons.bruno);
    }
    await api?.close();
  });

  it('refuses (CONFLICT) a reconciliation whose already-paid payable was reopened since the request: nothing settled, the request stays pending', async () => {
    const db = api.app.services.db;
    const vendor = await db.selectFrom('people').select('id').where('workspace_id', '=', WS).where('is_supplier', '=', 1).orderBy('id').executeTakeFirstOrThrow();
    const account = await api.call('POST', '/v1/accounts', { workspace: WS, body: { name: `Exact ${randomUUID()}`, type: 'checking' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
    const payable = async (amount: string): Promise<string> => {
      const res = await api.call('POST', '/v1/payables', { workspace: WS, body: { description: `exact ${randomUUID()}`, amount, due_date: '2026-06-10', financial_account_id: account.body.id, person_id: vendor.id } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.id;
    };
    const open = await payable('200.00');
    const paid = await payable('5000.00');
    expect((await api.call('POST', `/v1/payables/${paid}/settle`, { workspace: WS, body: { payment_date: '2026-06-10' } })).status).to.equal(200);
    const fitid = randomUUID();
    const imported = await api.call('POST', `/v1/accounts/${account.body.id}/statements`, { workspace: WS, body: { file_name: 'line.ofx', content_base64: buildSmallOfx(fitid, -520_000).toString('base64') } });
    expect(imported.status, JSON.stringify(imported.body)).to.equal(201);
    const lines = await api.call('GET', `/v1/accounts/${account.body.id}/statement-lines?limit=100&status=unreconciled`, { workspace: WS });
    const line = (lines.body.data as { id: string; fitid: string }[]).find((l) => l.fitid === fitid);
    expect(line, 'the imported line').to.not.equal(undefined);

    const threshold = await api.call('PATCH', '/v1/security-settings', { workspace: WS, body: { money_controls: { approvals: { thresholds: { api: '100.00', mcp: null } } } } });
    expect(threshold.status, JSON.stringify(threshold.body)).to.equal(200);
    const asked = await api.call('POST', '/v1/reconciliations', {
      workspace: WS, headers: { 'idempotency-key': randomUUID() }, body: { statement_line_ids: [line?.id], items: [{ type: 'payable', id: open }, { type: 'payable', id: paid }] },
    });
    expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
    // What the approver is shown: the one open payable.
    expect(asked.body.amount).to.equal('200.00');
    expect(asked.body.items.map((item: { record_id: string }) => item.record_id)).to.deep.equal([open]);

    // Reopening needs no approval; the paid payable is open again.
    expect((await api.call('POST', `/v1/payables/${paid}/reopen`, { workspace: WS, headers: { 'idempotency-key': randomUUID() } })).status).to.equal(200);
    await setPermissions(db, DEMO.persons.bruno, BRUNO_APPROVER);
    const approved = await api.call('POST', `/v1/approvals/${asked.body.id}/approve`, {
      workspace: WS, token: await api.token('bruno', 'finance.all.write finance.approvals.write'), headers: { 'idempotency-key': randomUUID() },
    });
    expect(approved.status, JSON.stringify(approved.body)).to.equal(409);
    expect(approved.body.error.code).to.equal('CONFLICT');
    expect(approved.body.error.message).to.match(/no longer do exactly what was approved/);
    const titles = await db.selectFrom('titles').select(['id', 'status']).where('workspace_id', '=', WS).where('id', 'in', [open, paid]).orderBy('id').execute();
    expect(titles.map((t) => t.status)).to.deep.equal(['pending', 'pending']);
    expect(await db.selectFrom('money_moves').select('id').where('workspace_id', '=', WS).where('approval_request_id', '=', asked.body.id).execute()).to.deep.equal([]);
    expect((await api.call('GET', `/v1/approvals/${asked.body.id}`, { workspace: WS })).body.status).to.equal('pending_approval');
  });

});
