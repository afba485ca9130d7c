/**
 * Regression (review of issue 13's fix): `transactions.update` read the row before locking it,
 * so on PostgreSQL an update that only replaced the cost-center split could plan it against an
 * amount a concurrent update was about to change, and store a split that no longer summed to the
 * transaction. It now locks the row first (like every title transition). After each round of
 * parallel updates the stored split must sum to the stored amount. PostgreSQL only: SQLite runs
 * one write transaction at a time.
 */
import { expect } from 'chai';
import { startRestApp, type RestApp } from './support/rest-app.js';
import { loadFixtures, type Fixtures } from './rules/support.js';
import { DEMO } from '../helpers/index.js';
import { skipWithReason } from '../helpers/mocha.js';

const M = DEMO.workspaces.matriz;
const ROUNDS = 15;

function toCents(text: unknown): number {
  const [whole, fraction = ''] = String(text).split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

describe('regression: parallel updates of one transaction never leave a split that does not sum to its amount (PostgreSQL row lock)', function () {
  this.timeout(120_000);
  let api: RestApp;
  let f: Fixtures;

  before(async function () {
    if (!process.env.DATABASE_URL) return;
    api = await startRestApp();
    f = await loadFixtures(api.app.services.db, M);
  });
  after(async () => { await api?.close(); });
  beforeEach(function () {
    if (!process.env.DATABASE_URL) skipWithReason(this, 'DATABASE_URL is unset; the race and its row lock exist on PostgreSQL only');
  });

  it(`amount change vs split replacement, ${ROUNDS} rounds`, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const created = await api.call('POST', '/v1/transactions', {
        workspace: M,
        body: {
          financial_account_id: f.accountId, type: 'debit', amount: '100.00', occurred_at: '2026-03-09', description: `split race ${round}`,
          cost_center_allocations: [{ cost_center_id: f.costCenters.cost, percentage: 100 }],
        },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const id = created.body.id as string;
      const answers = await Promise.all([
        api.call('PATCH', `/v1/transactions/${id}`, { workspace: M, body: { amount: '200.00' } }),
        api.call('PATCH', `/v1/transactions/${id}`, { workspace: M, body: { cost_center_allocations: [{ cost_center_id: f.costCenters.cost, amount: '100.00' }] } }),
      ]);
      expect(answers).to.have.length(2);
      for (const answer of answers) expect([200, 422], JSON.stringify(answer.body)).to.include(answer.status);
      const after = await api.call('GET', `/v1/transactions/${id}`, { workspace: M });
      const split = after.body.cost_center_allocations as Array<{ amount: string }>;
      const sum = split.reduce((total, share) => total + toCents(share.amount), 0);
      expect(sum, `round ${round}: ${JSON.stringify(after.body)} after ${answers.map((a) => a.status).join('/')}`).to.equal(toCents(after.body.amount));
    }
  });
});
