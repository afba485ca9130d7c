/**
 * One confirmation runs the tool at most once across replicas (docs/security.md#confirmation): two app
 * instances share one database (the SQLite file of one data folder, or one PostgreSQL schema
 * when DATABASE_URL is set) and one confirmation key.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { DEMO } from '../../src/seed/ids.js';
import { createTestSchema, type TestSchema } from '../helpers/database.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  ALL_WRITE, accept, callTool, countSettlements, expectInputRequired, expectSuccess, expectToolError, pickPendingPayable, settleArgs,
  type CallAnswer,
} from './support.js';

describe('confirmation across two app instances sharing one database', function () {
  this.timeout(60_000);
  let dataDir: string;
  let schema: TestSchema;
  let a: TestApp;
  let b: TestApp;
  let tokenA: string;
  let tokenB: string;
  const used = new Set<string>();

  before(async function () {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-replicas-'));
    schema = await createTestSchema();
    const config = { dataDir, databaseUrl: schema.databaseUrl, confirmationKey: randomBytes(32).toString('base64url') };
    // One after the other: the second start finds the schema migrated and the seed present.
    a = await startTestApp({ config });
    b = await startTestApp({ config });
    // Each instance is its own resource (aud = its URL); the person is the same.
    tokenA = await a.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
    tokenB = await b.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
  });
  after(async function () {
    await a?.close();
    await b?.close();
    await schema?.drop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('asks on A, runs the confirmed retry on B, and answers the same retry on A with confirmation_replayed', async function () {
    const id = await pickPendingPayable(a.services.db, used);
    const { requestState } = expectInputRequired(await callTool(a.url, tokenA, 'finance_payables_settle', settleArgs(id)));
    const ran = await callTool(b.url, tokenB, 'finance_payables_settle', settleArgs(id), { requestState, inputResponses: accept() });
    expect(expectSuccess(ran)['status']).to.equal('paid');
    expectToolError(await callTool(a.url, tokenA, 'finance_payables_settle', settleArgs(id), { requestState, inputResponses: accept() }), 'confirmation_replayed');
    expect(await countSettlements(a.services.db, id)).to.equal(1);
    expect(await countSettlements(b.services.db, id)).to.equal(1);
  });

  it('runs exactly once for 20 concurrent replays of one confirmed state', async function () {
    const id = await pickPendingPayable(a.services.db, used);
    const { requestState } = expectInputRequired(await callTool(a.url, tokenA, 'finance_payables_settle', settleArgs(id)));
    // PostgreSQL: spread over both instances (the primary key serializes them). SQLite: one
    // instance — two connections in one process would wait on each other's write lock synchronously.
    const spread = schema.databaseUrl !== null;
    const answers: CallAnswer[] = await Promise.all(Array.from({ length: 20 }, (_, i) => {
      const [app, token] = spread && i % 2 === 1 ? [b, tokenB] : [a, tokenA];
      return callTool(app.url, token, 'finance_payables_settle', settleArgs(id), { requestState, inputResponses: accept() });
    }));
    const codes = answers.map((answer) => {
      const result = answer.body.result ?? {};
      if (result['isError'] !== true) return 'ok';
      const text = (result['content'] as { text: string }[])[0]?.text ?? '';
      return (JSON.parse(text) as { error: { code: string } }).error.code;
    });
    expect(codes.filter((c) => c === 'ok'), codes.join(',')).to.have.length(1);
    expect(codes.filter((c) => c === 'confirmation_replayed'), codes.join(',')).to.have.length(19);
    expect(await countSettlements(a.services.db, id)).to.equal(1);
  });
});
