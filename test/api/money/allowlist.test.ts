/**
 * assertPayeesAllowed (src/api/money/allowlist.ts) against a real database (SQLite, or
 * PostgreSQL with DATABASE_URL): which channels it applies to, every destination of a payee on
 * the list with its current value, the refusal's sentence and details (no values, a 4-character
 * hint), and every read scoped to the workspace (the store's workspace guard is on).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Kysely } from 'kysely';
import type { Database, PeopleTable, PayeeAllowlistTable } from '../../../src/store/schema.js';
import type { Channel, OperationContext } from '../../../src/api/context.js';
import { assertPayeesAllowed } from '../../../src/api/money/allowlist.js';
import { NO_MONEY_CONTROLS, type MoneyControls } from '../../../src/api/money/config.js';
import type { MoneyItem } from '../../../src/api/money/types.js';
import { ApiError } from '../../../src/api/errors.js';
import { createDeadline } from '../../../src/runtime/deadline.js';
import { systemClock } from '../../../src/runtime/clock.js';
import { DEMO, openTestDatabase, type TestDatabase } from '../../helpers/index.js';
import { ANA } from '../rules/support.js';
import { makeCnpj } from '../support/documents.js';

const M = DEMO.workspaces.matriz;
const F = DEMO.workspaces.filial;
const MCP_ONLY: MoneyControls = { ...NO_MONEY_CONTROLS, allowlistChannels: ['mcp'] };

type Details = Partial<Pick<PeopleTable, 'document_number' | 'pix_key' | 'bank_code' | 'agency' | 'account_number'>>;

async function insertPerson(db: Kysely<Database>, details: Details, workspaceId: string = M): Promise<string> {
  const id = randomUUID();
  const now = new Date().toISOString();
  await db.insertInto('people').values({
    id, workspace_id: workspaceId, name: `Payee ${id.slice(0, 8)}`, kind: 'juridical', is_customer: 0, is_supplier: 1, emails: '[]', deleted_at: null,
    document_number: null, pix_key: null, bank_code: null, agency: null, account_number: null, ...details,
    created_at: now, updated_at: now, created_by: DEMO.persons.ana, updated_by: DEMO.persons.ana, created_via: 'api', updated_via: 'api', version: 1,
  }).execute();
  return id;
}

async function approve(db: Kysely<Database>, personId: string, kind: PayeeAllowlistTable['kind'], value: string, workspaceId: string = M): Promise<void> {
  await db.insertInto('payee_allowlist').values({
    id: randomUUID(), workspace_id: workspaceId, person_id: personId, kind, value, approved_by: DEMO.persons.ana, approved_at: new Date().toISOString(),
  }).execute();
}

function payable(payeePersonId: string | null): MoneyItem {
  return { kind: payeePersonId === null ? 'transfer' : 'payable', recordId: null, cents: 12_345, payeePersonId, accountId: null, version: null, label: 'payable "Aluguel"' };
}

/** The refusal, or null when the check passes. */
async function check(db: Kysely<Database>, items: readonly MoneyItem[], options: { channel?: Channel; controls?: MoneyControls } = {}): Promise<ApiError | null> {
  const ctx: OperationContext = {
    caller: { ...ANA, channel: options.channel ?? 'mcp' }, workspaceId: M, db, now: () => new Date(),
    deadline: createDeadline(systemClock, 10_000), bounds: null,
  };
  try {
    await assertPayeesAllowed(ctx, options.controls ?? MCP_ONLY, items);
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

describe('assertPayeesAllowed (payee allowlist check, real database)', () => {
  let store: TestDatabase;
  let db: Kysely<Database>;
  before(async () => {
    store = await openTestDatabase();
    db = store.db;
  });
  after(async () => { await store?.close(); });

  it('applies only on the channels the workspace names: REST and the panel pass, and nothing is required without controls', async () => {
    const payee = await insertPerson(db, { document_number: makeCnpj() });
    expect(await check(db, [payable(payee)], { channel: 'api' })).to.equal(null);
    expect(await check(db, [payable(payee)], { channel: 'web' })).to.equal(null);
    expect(await check(db, [payable(payee)], { controls: NO_MONEY_CONTROLS })).to.equal(null);
    expect((await check(db, [payable(payee)], { channel: 'api', controls: { ...MCP_ONLY, allowlistChannels: ['api', 'mcp'] } }))?.code).to.equal('SECURITY_BLOCKED');
  });

  it('does not check a move without a payee (a transfer between own accounts)', async () => {
    expect(await check(db, [payable(null)])).to.equal(null);
    expect(await check(db, [])).to.equal(null);
  });

  it('refuses a payee whose destination is not approved, naming its kind, with a 4-character hint and never the value', async () => {
    const document = makeCnpj();
    const payee = await insertPerson(db, { document_number: document });
    const refusal = await check(db, [payable(payee)]);
    expect(refusal?.code).to.equal('SECURITY_BLOCKED');
    expect(refusal?.details).to.deep.equal({
      channel: 'mcp', action: 'move_money', reason: 'payee_not_allowlisted', person_id: payee,
      destination: { kind: 'document_number', value_hint: document.slice(-4) },
    });
    expect(refusal?.message).to.include('document number').and.include('payee allowlist');
    expect(refusal?.message).not.to.include(document.slice(-4));
    await approve(db, payee, 'document_number', document);
    expect(await check(db, [payable(payee)])).to.equal(null);
  });

  it('needs every current destination approved: the Pix key and the bank account too, each with its value now', async () => {
    const document = makeCnpj();
    const payee = await insertPerson(db, { document_number: document, pix_key: 'financeiro@fornecedor.test', bank_code: '341', agency: '1234', account_number: '12345-6' });
    await approve(db, payee, 'document_number', document);
    expect((await check(db, [payable(payee)]))?.details?.['destination']).to.deep.equal({ kind: 'pix_key', value_hint: 'test' });
    // A value approved before the key changed is not the key now.
    await approve(db, payee, 'pix_key', 'antigo@fornecedor.test');
    expect((await check(db, [payable(payee)]))?.details?.['destination']).to.deep.equal({ kind: 'pix_key', value_hint: 'test' });
    await approve(db, payee, 'pix_key', 'financeiro@fornecedor.test');
    const bank = await check(db, [payable(payee)]);
    expect(bank?.details?.['destination']).to.deep.equal({ kind: 'bank_account', value_hint: '45-6' });
    expect(bank?.message).to.include('bank account');
    await approve(db, payee, 'bank_account', '341/1234/12345-6');
    expect(await check(db, [payable(payee)])).to.equal(null);
  });

  it('refuses a payee with no destination at all, and a payee that is not a person of the workspace', async () => {
    const bare = await insertPerson(db, {});
    const refusal = await check(db, [payable(bare)]);
    expect(refusal?.details).to.deep.include({ reason: 'payee_has_no_destination', person_id: bare, destination: null });
    expect(refusal?.message).to.include('no document number, Pix key or bank account');
    const elsewhere = await insertPerson(db, { pix_key: '+5511987654321' }, F);
    await approve(db, elsewhere, 'pix_key', '+5511987654321', F);
    expect((await check(db, [payable(elsewhere)]))?.details?.['reason']).to.equal('payee_has_no_destination');
  });

  it('reads the list of the workspace only: an approval in another workspace does not count', async () => {
    const document = makeCnpj();
    const payee = await insertPerson(db, { document_number: document });
    await approve(db, payee, 'document_number', document, F);
    expect((await check(db, [payable(payee)]))?.details?.['reason']).to.equal('payee_not_allowlisted');
  });

  it('checks every payee of a batch and names the first refused one', async () => {
    const okDocument = makeCnpj();
    const ok = await insertPerson(db, { document_number: okDocument });
    await approve(db, ok, 'document_number', okDocument);
    const refused = await insertPerson(db, { pix_key: '3d9f0c1e-8b2a-4c5d-9e6f-7a8b9c0d1e2f' });
    const refusal = await check(db, [payable(ok), payable(null), payable(ok), payable(refused)]);
    expect(refusal?.details).to.deep.include({ person_id: refused, destination: { kind: 'pix_key', value_hint: '1e2f' } });
    expect(await check(db, [payable(ok), payable(ok)])).to.equal(null);
  });
});
