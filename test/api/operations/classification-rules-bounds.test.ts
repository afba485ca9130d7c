/**
 * H2 (issue 25): classification_rules.preview ran every rule over every unreconciled line of the
 * workspace, synchronously and unbounded (100,000 lines × 100 rules: minutes on the event loop).
 * Now the contract bounds it (x-kobana-bounds): a preview walks at most `max_scanned` lines,
 * newest first, and says so (`meta.truncated`, narrowed with `from`/`to`); a workspace holds at
 * most `max_per_workspace` rules, refused at create with UNPROCESSABLE_ENTITY naming the bound.
 * Rows are inserted straight into the store (the operations under test only read them). On
 * SQLite and, with DATABASE_URL, on PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { routes } from '../../../generated/registry.gen.js';
import { DEMO } from '../../helpers/index.js';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { loadFixtures } from '../rules/support.js';

const M = DEMO.workspaces.matriz;
const boundsOf = (operationId: string) => routes.find((r) => r.operation.operationId === operationId)?.bounds;
const MAX_SCANNED = boundsOf('classification_rules.preview')?.maxScanned ?? 0;
const MAX_RULES = boundsOf('classification_rules.create')?.maxPerWorkspace ?? 0;
const audit = { created_at: '2026-03-01T00:00:00.000Z', updated_at: '2026-03-01T00:00:00.000Z', created_by: DEMO.persons.ana, updated_by: DEMO.persons.ana, created_via: 'api' as const, updated_via: 'api' as const, version: 1 };

/** `YYYY-MM-DD` of 2020-01-01 + `i` days. */
const dayOf = (i: number): string => new Date(Date.UTC(2020, 0, 1 + i)).toISOString().slice(0, 10);

describe(`classification rules: bounded preview and capped rules (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(120_000);
  let api: RestApp;
  let ruleId: string;

  before(async () => {
    expect(MAX_SCANNED, 'the contract bounds the preview').to.be.greaterThan(0);
    expect(MAX_RULES, 'the contract caps the rules').to.be.greaterThan(0);
    api = await startRestApp();
    const { db } = api.app.services;
    const f = await loadFixtures(db, M);
    // MAX_SCANNED + 500 unreconciled lines, one a day from 2020-01-01, that the previewed rule matches.
    const total = MAX_SCANNED + 500;
    for (let start = 0; start < total; start += 500) {
      const rows = Array.from({ length: Math.min(500, total - start) }, (_, k) => ({
        id: randomUUID(), workspace_id: M, financial_account_id: f.accountId, fitid: `bound-${start + k}`, posted_on: dayOf(start + k), type: 'debit' as const,
        amount_cents: 1000 + k, description: `PIX LIMITE ${start + k}`, counterparty: 'Fornecedor Limite', category_id: null, cost_center_id: null,
        person_id: null, rule_id: null, reconciliation_id: null, ...audit,
      }));
      await db.insertInto('statement_lines').values(rows).execute();
    }
    const created = await api.call('POST', '/v1/classification_rules', { workspace: M, body: { name: 'Limite', description_contains: 'limite', position: 1 } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    ruleId = created.body.id;
  });
  after(async () => { await api?.close(); });

  const preview = (query = '') => api.call('POST', `/v1/classification_rules/${ruleId}/preview${query}`, { workspace: M });

  it('walks at most the bound, newest first, and says so', async () => {
    const res = await preview();
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const { oldest_scanned: oldest, ...meta } = res.body.meta;
    expect(meta).to.deep.equal({ truncated: true, lines_scanned: MAX_SCANNED, max_lines_scanned: MAX_SCANNED });
    // The demo's own (newer) lines come first, so at least the fixture's 500 oldest were left out.
    expect(oldest >= dayOf(500), oldest).to.equal(true);
    expect(res.body.count).to.be.at.most(MAX_SCANNED);
    expect(res.body.statement_lines).to.have.length(100);
    expect(res.body.statement_lines[0].posted_on).to.equal(dayOf(MAX_SCANNED + 499));
  });

  // Review of issue 25: the statement lines are records of `reconciliations`; a token that may not
  // read them gets no line, and no line's date either.
  it('a token without finance.reconciliations: no statement line and no oldest_scanned, meta.omitted says why', async () => {
    const res = await api.call('POST', `/v1/classification_rules/${ruleId}/preview`, { workspace: M, token: await api.token('ana', 'finance.rules.write') });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.statement_lines).to.deep.equal([]);
    expect(res.body.meta).to.deep.equal({ truncated: true, lines_scanned: MAX_SCANNED, max_lines_scanned: MAX_SCANNED, omitted: ['reconciliations'] });
  });

  it('narrowed with from/to: the older lines are reached and the answer is whole', async () => {
    const res = await preview(`?from=${dayOf(0)}&to=${dayOf(99)}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.meta).to.deep.equal({ truncated: false, lines_scanned: 100, max_lines_scanned: MAX_SCANNED });
    expect(res.body.count).to.equal(100);
  });

  it('caps the rules of a workspace at create (UNPROCESSABLE_ENTITY naming the bound); a preview over the most rules stays bounded', async () => {
    const { db } = api.app.services;
    const held = Number((await db.selectFrom('classification_rules').select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', M).executeTakeFirst())?.n);
    // Up to the cap less one, rules that match nothing of the fixture (they are still evaluated).
    const missing = MAX_RULES - 1 - held;
    const rows = Array.from({ length: missing }, (_, k) => ({
      id: randomUUID(), workspace_id: M, name: `Filler ${k}`, position: 1000 + k, active: 1, description_contains: `nada-${k}`, counterparty_contains: null,
      min_amount_cents: null, max_amount_cents: null, financial_account_id: null, set_category_id: null, set_cost_center_id: null, set_person_id: null, ...audit,
    }));
    for (let i = 0; i < rows.length; i += 100) await db.insertInto('classification_rules').values(rows.slice(i, i + 100)).execute();
    const last = await api.call('POST', '/v1/classification_rules', { workspace: M, body: { name: 'Última' } });
    expect(last.status, JSON.stringify(last.body)).to.equal(201);
    const refused = await api.call('POST', '/v1/classification_rules', { workspace: M, body: { name: 'Uma a mais' } });
    expect(refused.status).to.equal(422);
    expect(refused.body.error.code).to.equal('UNPROCESSABLE_ENTITY');
    expect(refused.body.error.message).to.include(String(MAX_RULES));
    expect(refused.body.error.details).to.deep.equal({ bound: 'max_per_workspace', limit: MAX_RULES });
    const res = await preview();
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.meta.lines_scanned).to.equal(MAX_SCANNED);
  });
});
