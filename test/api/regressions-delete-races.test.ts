/**
 * Regression: check-then-act races between deletes and referencing writes on PostgreSQL (READ
 * COMMITTED). Finance references between records are not foreign keys, so "delete if nothing
 * refers to it" raced "check the referenced row exists, then insert": replica A created a
 * transaction on account X while replica B deleted X, both committed, and the transaction
 * pointed at nothing. Deletes now lock their row FOR UPDATE before looking for references and
 * referencing writes lock the referenced row FOR SHARE when they validate it (records.ts
 * lockRow), so exactly one side wins. PostgreSQL only: SQLite serialises write transactions.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { skipWithReason } from '../helpers/mocha.js';
import { startRestApp, type RestApp } from './support/rest-app.js';
import { insertPayable } from './support/rows.js';
import { loadFixtures, type Fixtures } from './rules/support.js';
import { DEMO } from '../helpers/index.js';

const M = DEMO.workspaces.matriz;
const ROUNDS = 20;

describe('regression: a delete and a write referring to the same record never both succeed (PostgreSQL row locks)', function () {
  this.timeout(180_000);
  let api: RestApp;
  let f: Fixtures;

  before(async function () {
    if (!process.env.DATABASE_URL) return;
    api = await startRestApp();
    f = await loadFixtures(api.app.services.db, M);
  });
  after(async () => { await api?.close(); });
  beforeEach(function () {
    if (!process.env.DATABASE_URL) skipWithReason(this, 'DATABASE_URL is unset; the race and its row locks exist on PostgreSQL only');
  });

  it(`account delete vs transactions.create on that account, ${ROUNDS} rounds`, async () => {
    const db = api.app.services.db;
    const outcomes = { deleteWon: 0, createWon: 0 };
    for (let round = 0; round < ROUNDS; round += 1) {
      const account = await api.call('POST', '/v1/accounts', { workspace: M, body: { name: `Race ${round}`, type: 'checking' } });
      expect(account.status, JSON.stringify(account.body)).to.equal(201);
      const id = account.body.id as string;
      const [removed, created] = await Promise.all([
        api.call('DELETE', `/v1/accounts/${id}`, { workspace: M }),
        api.call('POST', '/v1/transactions', {
          workspace: M, body: { financial_account_id: id, type: 'debit', amount: '10.00', occurred_at: '2026-03-09', description: `race ${round}` },
        }),
      ]);
      const statuses = `delete ${removed.status} ${JSON.stringify(removed.body)}, create ${created.status} ${JSON.stringify(created.body)}`;
      if (removed.status === 204) {
        expect(created.status, statuses).to.equal(422);
        outcomes.deleteWon += 1;
      } else {
        expect(removed.status, statuses).to.equal(409);
        expect(removed.body.error.code, statuses).to.equal('CONFLICT');
        expect(created.status, statuses).to.equal(201);
        outcomes.createWon += 1;
      }
      const exists = await db.selectFrom('accounts').select('id').where('workspace_id', '=', M).where('id', '=', id).executeTakeFirst();
      const referring = await db.selectFrom('transactions').select('id').where('workspace_id', '=', M).where('financial_account_id', '=', id).execute();
      expect({ round, exists: exists !== undefined, referring: referring.length })
        .to.deep.equal({ round, exists: removed.status !== 204, referring: removed.status === 204 ? 0 : 1 });
    }
    expect(outcomes.deleteWon + outcomes.createWon).to.equal(ROUNDS);
  });

  it(`category delete vs payables.create with that category, ${ROUNDS} rounds`, async () => {
    const db = api.app.services.db;
    for (let round = 0; round < ROUNDS; round += 1) {
      const category = await api.call('POST', '/v1/categories', { workspace: M, body: { name: `Race ${round} ${randomUUID()}`, type: 'debit' } });
      expect(category.status, JSON.stringify(category.body)).to.equal(201);
      const id = category.body.id as string;
      const [removed, created] = await Promise.all([
        api.call('DELETE', `/v1/categories/${id}`, { workspace: M }),
        api.call('POST', '/v1/payables', {
          workspace: M, body: { description: `race ${round}`, amount: '100.00', due_date: '2026-03-10', person_id: f.vendorId, category_id: id },
        }),
      ]);
      const statuses = `delete ${removed.status} ${JSON.stringify(removed.body)}, create ${created.status} ${JSON.stringify(created.body)}`;
      if (removed.status === 204) {
        expect(created.status, statuses).to.equal(422);
      } else {
        expect(removed.status, statuses).to.equal(409);
        expect(removed.body.error.code, statuses).to.equal('CONFLICT');
        expect(created.status, statuses).to.equal(201);
      }
      const exists = await db.selectFrom('categories').select('id').where('workspace_id', '=', M).where('id', '=', id).executeTakeFirst();
      const referring = await db.selectFrom('titles').select('id').where('workspace_id', '=', M).where('category_id', '=', id).execute();
      expect({ round, exists: exists !== undefined, referring: referring.length })
        .to.deep.equal({ round, exists: removed.status !== 204, referring: removed.status === 204 ? 0 : 1 });
    }
  });

  it(`attachment delete vs link, ${ROUNDS} rounds`, async () => {
    const db = api.app.services.db;
    const payableId = await insertPayable(db, M, f.vendorId);
    for (let round = 0; round < ROUNDS; round += 1) {
      // The metadata row alone (no blob): delete then has no bytes to drop, which is all this race needs.
      const id = randomUUID();
      const now = new Date().toISOString();
      await db.insertInto('attachments').values({
        id, workspace_id: M, sha256: randomUUID().replace(/-/g, '').padEnd(64, '0'), file_name: `race-${round}.pdf`, title: null,
        content_type: 'application/pdf', size: 10, created_at: now, updated_at: now, created_by: DEMO.persons.ana,
        updated_by: DEMO.persons.ana, created_via: 'web', updated_via: 'web', version: 1,
      }).execute();
      const [removed, linked] = await Promise.all([
        api.call('DELETE', `/v1/attachments/${id}`, { workspace: M }),
        api.call('POST', `/v1/attachments/${id}/links`, { workspace: M, body: { parent_type: 'payable', parent_id: payableId } }),
      ]);
      const statuses = `delete ${removed.status} ${JSON.stringify(removed.body)}, link ${linked.status} ${JSON.stringify(linked.body)}`;
      if (removed.status === 204) {
        // The attachment is the record in the path, so the losing link is NOT_FOUND.
        expect(linked.status, statuses).to.equal(404);
      } else {
        expect(removed.status, statuses).to.equal(409);
        expect(removed.body.error.code, statuses).to.equal('CONFLICT');
        expect(linked.status, statuses).to.equal(201);
      }
      const exists = await db.selectFrom('attachments').select('id').where('workspace_id', '=', M).where('id', '=', id).executeTakeFirst();
      const links = await db.selectFrom('attachment_links').select('id').where('workspace_id', '=', M).where('attachment_id', '=', id).execute();
      expect({ round, exists: exists !== undefined, links: links.length })
        .to.deep.equal({ round, exists: removed.status !== 204, links: removed.status === 204 ? 0 : 1 });
    }
  });

  it(`payable delete vs an attachment link to it, ${ROUNDS} rounds`, async () => {
    const db = api.app.services.db;
    const now = new Date().toISOString();
    const attachmentId = randomUUID();
    await db.insertInto('attachments').values({
      id: attachmentId, workspace_id: M, sha256: randomUUID().replace(/-/g, '').padEnd(64, '0'), file_name: 'race-parent.pdf', title: null,
      content_type: 'application/pdf', size: 10, created_at: now, updated_at: now, created_by: DEMO.persons.ana,
      updated_by: DEMO.persons.ana, created_via: 'web', updated_via: 'web', version: 1,
    }).execute();
    for (let round = 0; round < ROUNDS; round += 1) {
      const payableId = await insertPayable(db, M, f.vendorId);
      const [removed, linked] = await Promise.all([
        api.call('DELETE', `/v1/payables/${payableId}`, { workspace: M }),
        api.call('POST', `/v1/attachments/${attachmentId}/links`, { workspace: M, body: { parent_type: 'payable', parent_id: payableId } }),
      ]);
      const statuses = `delete ${removed.status} ${JSON.stringify(removed.body)}, link ${linked.status} ${JSON.stringify(linked.body)}`;
      expect(removed.status, statuses).to.equal(204);
      expect([201, 404], statuses).to.include(linked.status);
      // Whichever ran first, no link may outlive the payable it points at.
      const orphans = await db.selectFrom('attachment_links').select('id').where('workspace_id', '=', M)
        .where('parent_type', '=', 'payable').where('parent_id', '=', payableId).execute();
      expect({ round, orphans: orphans.length }, statuses).to.deep.equal({ round, orphans: 0 });
    }
  });
});
