/**
 * The state-machine race matrix (support/race-matrix.ts) in CI: every pair of state-changing
 * operations on one title, fired in parallel over REST from every start state, must stay
 * linearizable and keep the ledger and the audit log whole. Bounded to one race per pair × start
 * state × RACE_MATRIX_ROUNDS (default 1); `npm run soak:races` runs it for minutes.
 */
import { expect } from 'chai';
import { startRestApp, type RestApp } from './support/rest-app.js';
import { pairsOf, runRaceMatrix, TITLE_OPERATIONS } from './support/race-matrix.js';

describe('race matrix: every pair of title operations in parallel keeps the ledger, the audit log and the state machine whole', function () {
  this.timeout(120_000);
  let api: RestApp;

  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  it(`covers all ${pairsOf(TITLE_OPERATIONS).length} pairs of ${TITLE_OPERATIONS.map((o) => o.name).join(', ')}`, () => {
    const names = TITLE_OPERATIONS.map((o) => o.name);
    expect(names).to.have.members(['settle', 'reopen', 'cancel', 'delete', 'update', 'link', 'unlink']);
    expect(pairsOf(names)).to.have.length((names.length * (names.length + 1)) / 2);
  });

  it('runs every pair from every start state with no violation', async () => {
    const report = await runRaceMatrix(api, { copies: 2, rounds: 1 });
    expect(report.violations).to.deep.equal([]);
    expect(report.races).to.be.greaterThan(0);
  });
});
