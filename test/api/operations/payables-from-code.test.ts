/**
 * payables.create_from_code (issue 30 item 1; src/api/operations/payables-from-code.ts): a payable
 * recorded from a bill's code over real HTTP with real tokens, and over MCP, on the database the
 * run uses (SQLite, or PostgreSQL with DATABASE_URL; the concurrent-race test needs PostgreSQL).
 * The app's clock is pinned (2026-01-15 12:00 in São Paulo): a boleto's due-date factor is read
 * relative to it.
 *
 * Fixtures and their sources:
 * - BOLETO_*: @mrmgomes/boleto-utils 1.3.3, test/test.js (as in test/api/codes/boleto.test.ts):
 *   a Caixa (104) boleto of R$ 214,03, factor 8981 (2022-05-10 in the first cycle, 2046-12-30 in
 *   the second), as linha digitável and barcode; and its credit-card boleto with factor 0000 and
 *   amount 0.
 * - UTILITY_BARCODE: the same file's arrecadação barcode (segment 5, órgãos governamentais; effective value R$ 57,25).
 * - PIX_PAYLOAD_README: the pix-payload 1.0.4 README example, static with amount R$ 150,00 and
 *   txid PAY123; PIX_UTILS_README_*: the pix-utils 2.8.2 README's static (R$ 1,00, txid `***`) and
 *   dynamic codes (as in test/api/codes/pix.test.ts). Other Pix codes are built by pix-utils'
 *   createStaticPix (not the module under test); other boletos by test/api/support/payment-codes.ts.
 */
import { expect } from 'chai';
import { createStaticPix } from 'pix-utils';
import { DEMO } from '../../helpers/index.js';
import { createManualClock } from '../../helpers/clock.js';
import { skipWithReason } from '../../helpers/mocha.js';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { boletoReference, freshBoleto } from '../support/payment-codes.js';

const { bankBarcode, bankLine, factorFor } = boletoReference;
import { loadFixtures, type Fixtures } from '../rules/support.js';
import { insertPayable } from '../support/rows.js';
import { isUniqueViolation } from '../../../src/api/records.js';
import { callTool, expectSuccess, expectToolError } from '../../confirmation/support.js';
import { modernRequest, postMcp } from '../../mcp/support/wire.js';

const M = DEMO.workspaces.matriz;
const F = DEMO.workspaces.filial;
const PATH = '/v1/payables/from-code';
const TOOL = 'finance_payables_create_from_code';

const BOLETO_LINE = '10492006506100010004200997263900989810000021403';
const BOLETO_BARCODE = '10499898100000214032006561000100040099726390';
const BOLETO_NO_DUE_NO_AMOUNT = '23794150099001980167035000211405700000000000000';
const UTILITY_BARCODE = '85820000000572503282035607082021053959190446';
const PIX_PAYLOAD_README = '00020126480014BR.GOV.BCB.PIX0126devcarlosalberto@gmail.com5204000053039865406150.005802BR5914Carlos Alberto6012Praia Grande62100506PAY12363042B4F';
const PIX_UTILS_README_STATIC = '00020126650014br.gov.bcb.pix0119nubank@thalesog.com0220Gerado por Pix-Utils52040000530398654041.005802BR5914Thales Ogliari6009Sao Paulo62070503***63046069';
const PIX_UTILS_README_DYNAMIC = '00020126540014br.gov.bcb.pix2532https://pix.thalesogliari.com.br5204000053039865802BR5914Thales Ogliari6009SAO PAULO62070503***63043FD3';

/** A static Pix built by pix-utils: `amount` in reais (0 = none), `txid` (undefined = `***`). */
function pixUtilsStatic(amount: number, txid?: string): string {
  return createStaticPix({
    merchantName: 'Papelaria Central', merchantCity: 'Curitiba', pixKey: 'financeiro@papelaria.com.br', infoAdicional: '',
    transactionAmount: amount, ...(txid ? { txid } : {}),
  }).throwIfError().toBRCode();
}

interface Issue { path: string; message: string }

describe('payables.create_from_code (POST /v1/payables/from-code)', function () {
  this.timeout(120_000);
  let api: RestApp;
  let f: Fixtures;
  let filial: Fixtures;
  const clock = createManualClock(Date.parse('2026-01-15T15:00:00Z'));
  before(async () => {
    api = await startRestApp({ clock });
    f = await loadFixtures(api.app.services.db, M);
    filial = await loadFixtures(api.app.services.db, F);
  });
  after(async () => { await api?.close(); });

  const record = (body: Record<string, unknown>, workspace: string = M) =>
    api.call('POST', PATH, { workspace, body: { person_id: workspace === M ? f.vendorId : filial.vendorId, ...body } });
  const created = async (body: Record<string, unknown>, workspace: string = M) => {
    const res = await record(body, workspace);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body as Record<string, unknown> & { id: string };
  };
  const issuesOf = (res: { status: number; body: any }): Issue[] => {
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.error.code).to.equal('VALIDATION_ERROR');
    return res.body.error.details.issues as Issue[];
  };

  describe('bank boletos', () => {
    it('records one from its linha digitável (201): amount, due date and bank decoded, payment_code, the create path\'s audit and activity', async () => {
      const payable = await created({ code: BOLETO_LINE, category_id: f.debitCategoryId });
      expect(payable).to.include({
        amount: '214.03', due_date: '2022-05-10', competence_date: '2022-05-10', status: 'pending', description: 'Boleto 104 due 2022-05-10',
        person_id: f.vendorId, category_id: f.debitCategoryId, created_via: 'api', version: 1, overdue: true,
      });
      expect(payable['payment_code']).to.deep.equal({
        kind: 'boleto', barcode: BOLETO_BARCODE, digitable_line: BOLETO_LINE, payload: null, pix_key: null, txid: null, location: null,
      });
      const got = await api.call('GET', `/v1/payables/${payable.id}`, { workspace: M });
      expect(got.body).to.deep.equal(payable);
      const activity = await api.app.services.db.selectFrom('activity').select(['operation', 'resource', 'channel'])
        .where('workspace_id', '=', M).where('record_id', '=', payable.id).execute();
      expect(activity).to.deep.equal([{ operation: 'payables.create_from_code', resource: 'payables', channel: 'api' }]);
    });

    it('refuses the same boleto again, typed as its barcode (409 CONFLICT naming the first); records it again once the first is cancelled', async () => {
      const recorded = await api.app.services.db.selectFrom('titles').select('id')
        .where('workspace_id', '=', M).where('payment_code_key', '=', BOLETO_BARCODE).execute();
      expect(recorded).to.have.length(1);
      const again = await record({ code: BOLETO_BARCODE });
      expect(again.status, JSON.stringify(again.body)).to.equal(409);
      expect(again.body.error.code).to.equal('CONFLICT');
      expect(again.body.error.details).to.deep.equal({ payable_id: recorded[0]!.id });
      const cancel = await api.call('POST', `/v1/payables/${recorded[0]!.id}/cancel`, { workspace: M, headers: { 'idempotency-key': `cancel-${recorded[0]!.id}` } });
      expect(cancel.status, JSON.stringify(cancel.body)).to.equal(200);
      const second = await created({ code: ` ${BOLETO_BARCODE} ` });
      expect(second['payment_code']).to.include({ kind: 'boleto', barcode: BOLETO_BARCODE, digitable_line: BOLETO_LINE });
      expect(second.id).to.not.equal(recorded[0]!.id);
    });

    it('lists payment_code as a sparse field (null on a payable typed by hand)', async () => {
      const typed = await api.call('POST', '/v1/payables', { workspace: M, body: { description: 'NF 77', amount: '10.00', due_date: '2031-07-07', person_id: f.vendorId } });
      expect(typed.status).to.equal(201);
      expect(typed.body['payment_code']).to.equal(null);
      const boleto = freshBoleto('2031-07-07');
      const coded = await created({ code: boleto.line });
      const page = await api.call('GET', '/v1/payables?limit=100&fields=payment_code&due_date=2031-07-07', { workspace: M });
      expect(page.status, JSON.stringify(page.body)).to.equal(200);
      const rows = page.body.data as { id: string; payment_code: Record<string, unknown> | null }[];
      expect(rows.map((r) => r.id).sort()).to.deep.equal([typed.body.id, coded.id].sort());
      for (const row of rows) expect(Object.keys(row).sort()).to.deep.equal(['id', 'payment_code']);
      expect(rows.find((r) => r.id === typed.body.id)?.payment_code).to.equal(null);
      expect(rows.find((r) => r.id === coded.id)?.payment_code).to.deep.equal(coded['payment_code']);
    });

    it('records the same boleto in the other workspace (workspaces never conflict)', async () => {
      const other = await created({ code: BOLETO_LINE }, F);
      expect(other).to.include({ amount: '214.03', due_date: '2022-05-10' });
    });

    it('reads the due-date factor relative to the app\'s clock: a boleto due 2026-03-10 (factor after the 2025-02-22 reset), and a linha with separators', async () => {
      const barcode = bankBarcode({ bank: '237', factor: factorFor('2026-03-10'), amount: 98_765, free: '1234567890123456789012345' });
      expect(factorFor('2026-03-10')).to.equal('1381');
      const line = bankLine(barcode);
      const typed = `${line.slice(0, 5)}.${line.slice(5, 10)} ${line.slice(10, 15)}.${line.slice(15, 21)} ${line.slice(21, 26)}.${line.slice(21 + 5, 32)} ${line[32]} ${line.slice(33)}`;
      const payable = await created({ code: typed, description: 'Aluguel março' });
      expect(payable).to.include({ amount: '987.65', due_date: '2026-03-10', description: 'Aluguel março', overdue: false });
      expect(payable['payment_code']).to.include({ barcode, digitable_line: line });
    });

    it('accepts an amount and due date equal to the code\'s, and refuses different ones (400 on amount / due_date: the code wins)', async () => {
      const boleto = freshBoleto('2026-04-01', 12_345);
      const same = await created({ code: boleto.line, amount: 123.45, due_date: '2026-04-01' });
      expect(same).to.include({ amount: '123.45', due_date: '2026-04-01' });
      const other = freshBoleto('2026-04-01', 12_345);
      expect(issuesOf(await record({ code: other.line, amount: '123.40' }))).to.deep.equal([
        { path: 'amount', message: 'must be the amount the code carries (123.45) or left out' },
      ]);
      expect(issuesOf(await record({ code: other.line, due_date: '2026-04-02' }))).to.deep.equal([
        { path: 'due_date', message: 'must be the due date the code carries (2026-04-01) or left out' },
      ]);
      const rows = await api.app.services.db.selectFrom('titles').select('id').where('workspace_id', '=', M).where('payment_code_key', '=', other.barcode).execute();
      expect(rows).to.deep.equal([]);
    });

    it('needs amount and due_date for a boleto with factor 0000 and amount 0 (400 naming both), then records it', async () => {
      expect(issuesOf(await record({ code: BOLETO_NO_DUE_NO_AMOUNT }))).to.deep.equal([
        { path: 'amount', message: 'is required: the code carries no amount' },
        { path: 'due_date', message: 'is required: the code carries no due date' },
      ]);
      const payable = await created({ code: BOLETO_NO_DUE_NO_AMOUNT, amount: '350.00', due_date: '2026-02-05' });
      expect(payable).to.include({ amount: '350.00', due_date: '2026-02-05', description: 'Boleto 237 due 2026-02-05' });
      expect(payable['payment_code']).to.include({ kind: 'boleto', barcode: '23797000000000000004150090019801673500021140' });
    });

    it('refuses a bad code with 400 whose issue at `code` names the failed check, never echoing the code', async () => {
      const changed = BOLETO_LINE.slice(0, 12) + String((Number(BOLETO_LINE[12]) + 1) % 10) + BOLETO_LINE.slice(13);
      const cases: { code: string; message: string }[] = [
        { code: changed, message: 'field 2 check digit does not match' },
        { code: BOLETO_LINE.slice(0, 40), message: 'must have 44, 47 or 48 digits' },
        { code: `${PIX_PAYLOAD_README.slice(0, -4)}0000`, message: 'the CRC does not match (the code was altered or mistyped)' },
        { code: 'pague este boleto', message: "must be a boleto's linha digitável or barcode (digits) or a Pix copia e cola code (starting 000201)" },
      ];
      expect(cases).to.not.be.empty;
      for (const c of cases) {
        const res = await record({ code: c.code, amount: '10.00', due_date: '2026-02-01' });
        const issues = issuesOf(res);
        expect(issues).to.not.be.empty;
        expect(new Set(issues.map((i) => i.path))).to.deep.equal(new Set(['code']));
        expect(issues.map((i) => i.message), c.code).to.include(c.message);
        expect(JSON.stringify(res.body)).to.not.include(c.code);
      }
    });
  });

  describe('boletos de arrecadação', () => {
    it('needs due_date (400 naming due_date); with it, records the utility bill (201) with its amount', async () => {
      expect(issuesOf(await record({ code: UTILITY_BARCODE }))).to.deep.equal([{ path: 'due_date', message: 'is required: the code carries no due date' }]);
      const payable = await created({ code: UTILITY_BARCODE, due_date: '2026-01-28' });
      expect(payable).to.include({ amount: '57.25', due_date: '2026-01-28', description: 'Utility bill (orgaos governamentais) due 2026-01-28' });
      expect(payable['payment_code']).to.deep.equal({
        kind: 'utility', barcode: UTILITY_BARCODE, digitable_line: '858200000007572503282030560708202107539591904460', payload: null, pix_key: null, txid: null, location: null,
      });
      expect((await record({ code: '858200000007572503282030560708202107539591904460', due_date: '2026-01-28' })).status).to.equal(409);
    });
  });

  describe('Pix codes', () => {
    it('records a static Pix with amount and txid (201; no due date in a Pix code: due_date required), and refuses its txid again (409)', async () => {
      expect(issuesOf(await record({ code: PIX_PAYLOAD_README }))).to.deep.equal([{ path: 'due_date', message: 'is required: the code carries no due date' }]);
      const payable = await created({ code: PIX_PAYLOAD_README, due_date: '2026-01-20' });
      expect(payable).to.include({ amount: '150.00', due_date: '2026-01-20', description: 'Pix to Carlos Alberto' });
      expect(payable['payment_code']).to.deep.equal({
        kind: 'pix_static', barcode: null, digitable_line: null, payload: PIX_PAYLOAD_README, pix_key: 'devcarlosalberto@gmail.com', txid: 'PAY123', location: null,
      });
      const again = await record({ code: PIX_PAYLOAD_README, due_date: '2026-01-21' });
      expect(again.status).to.equal(409);
      expect(again.body.error.details).to.deep.equal({ payable_id: payable.id });
      // Another code with the same txid is the same payment too.
      const sameTxid = await record({ code: pixUtilsStatic(150, 'PAY123'), due_date: '2026-01-21' });
      expect(sameTxid.status, JSON.stringify(sameTxid.body)).to.equal(409);
    });

    it('records a static Pix without txid (`***`) twice: it names no single payment', async () => {
      const first = await created({ code: PIX_UTILS_README_STATIC, due_date: '2026-01-20' });
      const second = await created({ code: PIX_UTILS_README_STATIC, due_date: '2026-02-20' });
      expect(first['payment_code']).to.include({ kind: 'pix_static', txid: null, pix_key: 'nubank@thalesog.com' });
      expect([first['amount'], second['amount']]).to.deep.equal(['1.00', '1.00']);
      expect(second.id).to.not.equal(first.id);
    });

    it('needs amount for a static Pix without one (400), then records it with the caller\'s amount', async () => {
      const code = pixUtilsStatic(0, 'SEMVALOR1');
      expect(issuesOf(await record({ code, due_date: '2026-01-25' }))).to.deep.equal([{ path: 'amount', message: 'is required: the code carries no amount' }]);
      const payable = await created({ code, due_date: '2026-01-25', amount: '42.10' });
      expect(payable).to.include({ amount: '42.10', description: 'Pix to PAPELARIA CENTRAL' });
      expect(payable['payment_code']).to.include({ kind: 'pix_static', txid: 'SEMVALOR1' });
    });

    it('needs amount and due_date for a dynamic Pix, and records it with its location and txid', async () => {
      expect(issuesOf(await record({ code: PIX_UTILS_README_DYNAMIC }))).to.deep.equal([
        { path: 'amount', message: 'is required: the code carries no amount' },
        { path: 'due_date', message: 'is required: the code carries no due date' },
      ]);
      const payable = await created({ code: PIX_UTILS_README_DYNAMIC, amount: '89.90', due_date: '2026-01-30' });
      expect(payable).to.include({ amount: '89.90', due_date: '2026-01-30', description: 'Pix to Thales Ogliari' });
      expect(payable['payment_code']).to.deep.equal({
        kind: 'pix_dynamic', barcode: null, digitable_line: null, payload: PIX_UTILS_README_DYNAMIC, pix_key: null, txid: null, location: 'https://pix.thalesogliari.com.br',
      });
    });
  });

  describe('guarantees shared with payables.create', () => {
    it('answers 422 for a person of the other workspace and 403 to bruno (no payables.manage), writing nothing', async () => {
      const boleto = freshBoleto();
      const foreign = await api.call('POST', PATH, { workspace: M, body: { code: boleto.line, person_id: filial.vendorId } });
      expect(foreign.status).to.equal(422);
      const bruno = await api.call('POST', PATH, { workspace: M, body: { code: boleto.line, person_id: f.vendorId }, token: await api.token('bruno') });
      expect(bruno.status).to.equal(403);
      const rows = await api.app.services.db.selectFrom('titles').select('id').where('workspace_id', 'in', [M, F]).where('payment_code_key', '=', boleto.barcode).execute();
      expect(rows).to.deep.equal([]);
    });

    it('replays an Idempotency-Key with the same body (the first payable, not a CONFLICT)', async () => {
      const boleto = freshBoleto();
      const headers = { 'idempotency-key': `from-code-${boleto.barcode}` };
      const first = await api.call('POST', PATH, { workspace: M, body: { code: boleto.line, person_id: f.vendorId }, headers });
      const again = await api.call('POST', PATH, { workspace: M, body: { code: boleto.line, person_id: f.vendorId }, headers });
      expect(first.status).to.equal(201);
      expect(again.status).to.equal(201);
      expect(again.headers.get('idempotency-replayed')).to.equal('true');
      expect(again.body.id).to.equal(first.body.id);
    });
  });

  describe('over MCP', () => {
    it('lists the tool for ana (payables.manage), not for bruno, and records a boleto through it', async () => {
      const listed = async (person: string) => {
        const token = await api.app.mintToken({ person, scope: 'finance.all.write', type: 'personal', aud: 'mcp' });
        const { body, headers } = modernRequest(1, 'tools/list');
        const reply = await postMcp(`${api.app.url}/mcp`, body, { ...headers, authorization: `Bearer ${token}` });
        const tools = ((reply.json as { result: { tools: { name: string }[] } }).result.tools).map((t) => t.name);
        expect(tools).to.not.be.empty;
        return { token, tools };
      };
      const ana = await listed(DEMO.emails.ana);
      expect(ana.tools).to.include(TOOL);
      expect((await listed(DEMO.emails.bruno)).tools).to.not.include(TOOL);
      const boleto = freshBoleto('2026-02-27', 45_000);
      const payable = expectSuccess(await callTool(api.app.url, ana.token, TOOL, { workspace_id: M, code: boleto.line, person_id: f.vendorId }));
      expect(payable).to.include({ amount: '450.00', due_date: '2026-02-27', created_via: 'mcp', status: 'pending' });
      expect(payable['payment_code']).to.include({ kind: 'boleto', barcode: boleto.barcode });
      expectToolError(await callTool(api.app.url, ana.token, TOOL, { workspace_id: M, code: boleto.barcode, person_id: f.vendorId }), 'CONFLICT');
    });
  });

  describe('the unique index (migration 0011), the backstop behind the pre-check', () => {
    it('refuses a second row with one payment_code_key in a workspace that is not cancelled; a cancelled one, another workspace and null keys do not count', async () => {
      const db = api.app.services.db;
      const boleto = freshBoleto();
      const key = { payment_code_kind: 'boleto' as const, payment_code: boleto.barcode, payment_code_key: boleto.barcode };
      const first = await insertPayable(db, M, f.vendorId);
      await db.updateTable('titles').set(key).where('workspace_id', '=', M).where('id', '=', first).execute();
      const second = await insertPayable(db, M, f.vendorId);
      let refused: unknown;
      try {
        await db.updateTable('titles').set(key).where('workspace_id', '=', M).where('id', '=', second).execute();
      } catch (err) {
        refused = err;
      }
      expect(isUniqueViolation(refused), String(refused)).to.equal(true);
      const other = await insertPayable(db, F, filial.vendorId);
      await db.updateTable('titles').set(key).where('workspace_id', '=', F).where('id', '=', other).execute();
      await db.updateTable('titles').set({ status: 'cancelled' }).where('workspace_id', '=', M).where('id', '=', first).execute();
      await db.updateTable('titles').set(key).where('workspace_id', '=', M).where('id', '=', second).execute();
      const nullKeys = [await insertPayable(db, M, f.vendorId), await insertPayable(db, M, f.vendorId)];
      const rows = await db.selectFrom('titles').select(['id', 'payment_code_key']).where('workspace_id', '=', M).where('id', 'in', [first, second, ...nullKeys]).execute();
      expect(rows).to.have.length(4);
      expect(rows.filter((r) => r.payment_code_key === boleto.barcode).map((r) => r.id).sort()).to.deep.equal([first, second].sort());
    });
  });

  describe('concurrency (PostgreSQL)', () => {
    it('of 10 concurrent records of one boleto, exactly one is 201 and the rest 409; one payable stored', async function () {
      if (!process.env['DATABASE_URL']) skipWithReason(this, 'DATABASE_URL is unset: SQLite runs one write transaction at a time, so there is no race to test');
      const boleto = freshBoleto('2026-05-05');
      const answers = await Promise.all(Array.from({ length: 10 }, () => record({ code: boleto.line })));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses, JSON.stringify(answers.map((a) => a.body))).to.deep.equal([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
      const refused = answers.filter((x) => x.status === 409);
      expect(refused).to.have.length(9);
      for (const a of refused) expect(a.body.error.code).to.equal('CONFLICT');
      const rows = await api.app.services.db.selectFrom('titles').select('id').where('workspace_id', '=', M).where('payment_code_key', '=', boleto.barcode).execute();
      expect(rows.map((r) => r.id)).to.deep.equal([answers.find((a) => a.status === 201)!.body.id]);
    });
  });
});
