/**
 * An invariant over the whole registry: no tool with `destructiveHint: true` runs without a
 * consumed confirmation. For every such tool: 2025 era and modern without elicitation →
 * `confirmation_required`; modern with form elicitation → `input_required` first; nothing is
 * written by any of those; an accepted resend that succeeds consumed exactly one nonce.
 */
import { expect } from 'chai';
import type { Kysely } from 'kysely';
import { tools } from '../../generated/registry.gen.js';
import { describerFor } from '../../src/confirmation/describe.js';
import type { Database } from '../../src/store/schema.js';
import { DEMO } from '../../src/store/seed/ids.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { ALL_WRITE, accept, callTool, expectInputRequired, expectToolError, type CallAnswer } from './support.js';

const MATRIZ = DEMO.workspaces.matriz;
const destructive = tools.filter((tool) => tool.annotations.destructiveHint);

type ArgsBuilder = (db: Kysely<Database>) => Promise<Record<string, unknown>>;

async function firstId(db: Kysely<Database>, table: 'accounts' | 'categories' | 'cost_centers' | 'taxes'): Promise<string> {
  return (await db.selectFrom(table).select('id').where('workspace_id', '=', MATRIZ).orderBy('id').executeTakeFirstOrThrow()).id;
}

function titleArgs(kind: 'payable' | 'receivable', status: string, extra: Record<string, unknown> = {}): ArgsBuilder {
  return async (db) => {
    const row = await db.selectFrom('titles').select('id').where('workspace_id', '=', MATRIZ).where('kind', '=', kind)
      .where('status', '=', status as never).where('financial_account_id', 'is not', null).orderBy('id', 'desc').executeTakeFirstOrThrow();
    return { workspace_id: MATRIZ, id: row.id, ...extra };
  };
}

const byId = (table: 'accounts' | 'categories' | 'cost_centers' | 'taxes'): ArgsBuilder => async (db) => ({ workspace_id: MATRIZ, id: await firstId(db, table) });

/** Arguments that pass validation for each destructive operation (a new destructive tool must be added here). */
const ARGS: Readonly<Record<string, ArgsBuilder>> = {
  'payables.settle': titleArgs('payable', 'pending', { payment_date: '2026-03-09' }),
  'payables.reopen': titleArgs('payable', 'paid'),
  'payables.cancel': titleArgs('payable', 'pending'),
  'payables.delete': titleArgs('payable', 'cancelled'),
  'receivables.settle': titleArgs('receivable', 'pending', { payment_date: '2026-03-09' }),
  'receivables.reopen': titleArgs('receivable', 'received'),
  'receivables.cancel': titleArgs('receivable', 'pending'),
  'receivables.delete': titleArgs('receivable', 'cancelled'),
  'accounts.delete': byId('accounts'),
  'categories.delete': byId('categories'),
  'cost_centers.delete': byId('cost_centers'),
  'taxes.delete': byId('taxes'),
  'people.delete': async (db) => ({
    workspace_id: MATRIZ,
    id: (await db.selectFrom('people').select('id').where('workspace_id', '=', MATRIZ).where('deleted_at', 'is', null).orderBy('id').executeTakeFirstOrThrow()).id,
  }),
  'transactions.delete': async (db) => ({
    workspace_id: MATRIZ,
    id: (await db.selectFrom('transactions').select('id').where('workspace_id', '=', MATRIZ).where('source', '=', 'manual').orderBy('id').executeTakeFirstOrThrow()).id,
  }),
  'attachments.delete': async (db) => ({
    workspace_id: MATRIZ,
    id: (await db.selectFrom('attachments').select('id').where('workspace_id', '=', MATRIZ).orderBy('id').executeTakeFirstOrThrow()).id,
  }),
  'attachments.unlink': async (db) => {
    const link = await db.selectFrom('attachment_links').select(['attachment_id', 'parent_type', 'parent_id'])
      .where('workspace_id', '=', MATRIZ).orderBy('id').executeTakeFirstOrThrow();
    return { workspace_id: MATRIZ, id: link.attachment_id, parent_type: link.parent_type, parent_id: link.parent_id };
  },
  'transfers.create': async (db) => {
    const accounts = await db.selectFrom('accounts').select('id').where('workspace_id', '=', MATRIZ).orderBy('id').limit(2).execute();
    return { workspace_id: MATRIZ, from_account_id: accounts[0]?.id, to_account_id: accounts[1]?.id, amount: '1234.56', occurred_at: '2026-03-09' };
  },
};

/** The first words of each kind's sentence (one sentence per kind of destructive tool). */
const OPENINGS: Readonly<Record<string, RegExp>> = {
  'payables.settle': /^Settle payable ".+" of R\$ [\d.]+,\d{2}( to ".+")? from account ".+"\?$/,
  'payables.reopen': /^Reopen payable ".+" of R\$ [\d.]+,\d{2}/,
  'payables.cancel': /^Cancel payable ".+" of R\$ [\d.]+,\d{2}/,
  'payables.delete': /^Delete payable ".+" of R\$ [\d.]+,\d{2}/,
  'receivables.settle': /^Settle receivable ".+" of R\$ [\d.]+,\d{2}( from ".+")? into account ".+"\?$/,
  'receivables.reopen': /^Reopen receivable ".+" of R\$/,
  'receivables.cancel': /^Cancel receivable ".+" of R\$/,
  'receivables.delete': /^Delete receivable ".+" of R\$/,
  'accounts.delete': /^Delete account ".+"\?$/,
  'categories.delete': /^Delete category ".+"\?$/,
  'cost_centers.delete': /^Delete cost center ".+"\?$/,
  'people.delete': /^Delete person ".+"\?$/,
  'taxes.delete': /^Delete tax ".+"\?$/,
  'transactions.delete': /^Delete (debit|credit) transaction.* of R\$ [\d.]+,\d{2}.* dated \d{4}-\d{2}-\d{2}\?$/,
  'attachments.delete': /^Delete attachment ".+"\?$/,
  'attachments.unlink': /^Unlink attachment ".+" from (payable|receivable|transaction|a ).+\?$/,
  'transfers.create': /^Transfer R\$ 1\.234,56 from account ".+" to account ".+"\?$/,
};

const VERSIONED = ['accounts', 'categories', 'cost_centers', 'people', 'taxes', 'titles', 'transactions', 'transfers', 'attachments'] as const;
const UNVERSIONED = ['attachment_links', 'activity', 'allocations', 'confirmation_nonces'] as const;

/** Row counts and version sums of every finance table: any write changes it (activity is appended on each). */
async function snapshot(db: Kysely<Database>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of [...VERSIONED, ...UNVERSIONED]) {
    const rows = await db.selectFrom(table as 'titles').select((VERSIONED as readonly string[]).includes(table) ? ['id', 'version'] : ['workspace_id'])
      .where('workspace_id', 'in', [DEMO.workspaces.matriz, DEMO.workspaces.filial]).execute();
    const versions = rows.reduce((sum, row) => sum + Number((row as { version?: number }).version ?? 0), 0);
    out[table] = `${rows.length}/${versions}`;
  }
  return out;
}

function readCode(answer: CallAnswer): string {
  const result = answer.body.result ?? {};
  if (result['isError'] !== true) return 'ok';
  return (JSON.parse((result['content'] as { text: string }[])[0]?.text ?? '{}') as { error: { code: string } }).error.code;
}

describe('every tool with destructiveHint: true', function () {
  this.timeout(60_000);
  let app: TestApp;
  let token: string;

  before(async function () {
    app = await startTestApp();
    token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
  });
  after(async function () {
    await app?.close();
  });

  it('are the deletes, cancels and money moves, each with a describer and test arguments', function () {
    expect(destructive.length).to.be.greaterThanOrEqual(17);
    for (const tool of destructive) {
      const { operationId, method, movesMoney } = tool.operation;
      expect(method === 'DELETE' || operationId.endsWith('.cancel') || movesMoney, tool.name).to.equal(true);
      expect(describerFor(operationId), `describer for ${operationId}`).to.not.equal(undefined);
      expect(ARGS[operationId], `test arguments for ${operationId}`).to.not.equal(undefined);
    }
  });

  for (const tool of destructive) {
    describe(tool.name, function () {
      it('answers confirmation_required in the 2025 era and without elicitation, then asks with form elicitation; nothing written', async function () {
        const args = await ARGS[tool.operation.operationId]!(app.services.db);
        const before = await snapshot(app.services.db);
        expectToolError(await callTool(app.url, token, tool.name, args, { capabilities: null }), 'confirmation_required');
        expectToolError(await callTool(app.url, token, tool.name, args, { capabilities: {} }), 'confirmation_required');
        const { message } = expectInputRequired(await callTool(app.url, token, tool.name, args));
        expect(message).to.match(OPENINGS[tool.operation.operationId]!);
        expect(await snapshot(app.services.db)).to.deep.equal(before);
      });

      it('runs only on an accepted resend, consuming exactly one nonce, or refuses and writes nothing', async function () {
        const args = await ARGS[tool.operation.operationId]!(app.services.db);
        const { requestState } = expectInputRequired(await callTool(app.url, token, tool.name, args));
        const before = await snapshot(app.services.db);
        const code = readCode(await callTool(app.url, token, tool.name, args, { requestState, inputResponses: accept() }));
        const after = await snapshot(app.services.db);
        const [nonces] = (before['confirmation_nonces'] ?? '0').split('/');
        if (code === 'ok') {
          expect(after['confirmation_nonces']).to.equal(`${Number(nonces) + 1}/0`);
          expectToolError(await callTool(app.url, token, tool.name, args, { requestState, inputResponses: accept() }), 'confirmation_replayed');
        } else {
          // A business refusal (e.g. a record still in use): rolled back with the nonce.
          expect(['CONFLICT', 'UNPROCESSABLE_ENTITY'], code).to.include(code);
          expect(after).to.deep.equal(before);
        }
      });
    });
  }
});
