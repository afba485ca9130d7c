/**
 * statements.import (issue 20, "Done when": importing the demo OFX twice yields the same lines; a
 * malformed OFX and a 10 MB+ one are refused with nothing written). Over REST (JSON base64 and
 * multipart) against the demo data; runs on SQLite and, with DATABASE_URL, on PostgreSQL.
 */
import { expect } from 'chai';
import { DEMO } from '../../helpers/index.js';
import { startRestApp, type RestApp } from '../support/rest-app.js';

const M = DEMO.workspaces.matriz;

describe(`statements.import (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(120_000);
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  const db = () => api.app.services.db;
  /** Every statement line of the workspace, as comparable tuples, and the activity count. */
  async function snapshot(): Promise<{ lines: string[]; activity: number }> {
    const lines = await db().selectFrom('statement_lines').select(['financial_account_id', 'fitid', 'posted_on', 'type', 'amount_cents', 'description'])
      .where('workspace_id', '=', M).orderBy('financial_account_id').orderBy('fitid').execute();
    const activity = await db().selectFrom('activity').select((eb) => eb.fn.countAll<string>().as('n')).where('workspace_id', '=', M).executeTakeFirstOrThrow();
    return { lines: lines.map((l) => JSON.stringify({ ...l, amount_cents: Number(l.amount_cents) })), activity: Number(activity.n) };
  }

  async function demoStatement(): Promise<{ accountId: string; ofx: Buffer }> {
    const list = await api.call('GET', '/v1/attachments?limit=100', { workspace: M });
    const file = (list.body.data as any[]).find((a) => a.file_name === 'extrato-itau.ofx');
    expect(file, 'the demo OFX of the checking account').to.not.equal(undefined);
    const download = await fetch(`${api.url}/v1/attachments/${file.id}/download`, { headers: { authorization: `Bearer ${await api.token('ana')}`, 'x-workspace-id': M } });
    const ofx = Buffer.from(await download.arrayBuffer());
    const accounts = await api.call('GET', '/v1/accounts?limit=100', { workspace: M });
    const accountId = (accounts.body.data as any[]).find((a) => a.name === 'Itaú 1234').id as string;
    return { accountId, ofx };
  }

  const importJson = (accountId: string, bytes: Buffer | string, extra: Record<string, unknown> = {}) => api.call('POST', `/v1/accounts/${accountId}/statements`, {
    workspace: M, body: { file_name: 'extrato.ofx', content_base64: Buffer.from(bytes).toString('base64'), ...extra },
  });

  it('the demo: every account has an OFX file and its lines already imported; importing it again adds nothing', async () => {
    const { accountId, ofx } = await demoStatement();
    const before = await snapshot();
    expect(before.lines.filter((l) => l.includes(accountId)).length).to.be.greaterThan(3);
    const again = await importJson(accountId, ofx);
    expect(again.status, JSON.stringify(again.body)).to.equal(201);
    expect(again.body).to.include({ financial_account_id: accountId, imported: 0, classified: 0 });
    expect(again.body.duplicates).to.equal(again.body.lines);
    expect((await snapshot()).lines).to.deep.equal(before.lines);
  });

  it('a new account: the first import adds every line, the second (multipart) the same lines again → nothing', async () => {
    const { ofx } = await demoStatement();
    const account = await api.call('POST', '/v1/accounts', { workspace: M, body: { name: 'Importação OFX', type: 'checking' } });
    const first = await importJson(account.body.id, ofx);
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    expect(first.body.imported).to.equal(first.body.lines);
    expect(first.body.classified, 'the bank fee line matches the demo rule').to.be.greaterThan(0);
    const afterFirst = await snapshot();
    const boundary = 'ofx-boundary-7d3';
    const multipart = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="extrato.ofx"\r\nContent-Type: application/x-ofx\r\n\r\n`),
      ofx, Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const second = await fetch(`${api.url}/v1/accounts/${account.body.id}/statements`, {
      method: 'POST', body: multipart,
      headers: { authorization: `Bearer ${await api.token('ana')}`, 'x-workspace-id': M, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(second.status).to.equal(201);
    expect(await second.json()).to.include({ imported: 0, duplicates: first.body.lines });
    expect((await snapshot()).lines).to.deep.equal(afterFirst.lines);
  });

  const valid = (amount: string, fitid: string) => `<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260305<TRNAMT>${amount}<FITID>${fitid}<NAME>X</STMTTRN>`;
  const wrap = (transactions: string) => `OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKTRANLIST>${transactions}</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n`;
  const malformed: Record<string, string> = {
    'not OFX at all': 'this is a spreadsheet, honest',
    'a good line followed by a bad amount': wrap(valid('-10.00', 'ok-1') + valid('ten', 'bad-2')),
    'a line without FITID': wrap('<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260305<TRNAMT>-1.00</STMTTRN>'),
    'an impossible date': wrap(valid('-1.00', 'd-1').replace('20260305', '20260231')),
    'a tag with attributes': wrap(`<STMTTRN a="1">${valid('-1.00', 'a-1')}`),
    'a 40-letter tag name (the parser backtracks exponentially on long names)': `<OFX><${'A'.repeat(40)}>x</OFX>`,
    'unbalanced nesting': '<OFX><BANKMSGSRSV1><STMTTRNRS></BANKMSGSRSV1></OFX>',
  };
  for (const [name, text] of Object.entries(malformed)) {
    it(`refuses ${name} with 422 and writes nothing`, async () => {
      const { accountId } = await demoStatement();
      const before = await snapshot();
      const res = await importJson(accountId, text);
      expect(res.status, JSON.stringify(res.body)).to.equal(422);
      expect(res.body.error.code).to.equal('UNPROCESSABLE_ENTITY');
      expect(await snapshot()).to.deep.equal(before);
    });
  }

  it('reads hostile-but-legal input in linear time: 30-letter tag names, long whitespace runs', async () => {
    const { accountId } = await demoStatement();
    const names = `<${'B'.repeat(30)}>x`.repeat(2000);
    const spaces = ' '.repeat(500_000);
    const res = await importJson(accountId, wrap(`${valid('-2.50', `h-${Date.now()}`)}${spaces}`).replace('<BANKMSGSRSV1>', `${names}<BANKMSGSRSV1>`));
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.imported).to.equal(1);
  });

  it('refuses a file over 10 MB (multipart 413, base64 400) with nothing written', async () => {
    const { accountId } = await demoStatement();
    const before = await snapshot();
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 0x20);
    big.write(wrap(valid('-1.00', 'big-1')));
    const json = await importJson(accountId, big);
    expect(json.status).to.equal(400);
    const boundary = 'big-boundary';
    const multipart = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.ofx"\r\nContent-Type: application/x-ofx\r\n\r\n`),
      big, Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await fetch(`${api.url}/v1/accounts/${accountId}/statements`, {
      method: 'POST', body: multipart,
      headers: { authorization: `Bearer ${await api.token('ana')}`, 'x-workspace-id': M, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.status).to.equal(413);
    expect(await snapshot()).to.deep.equal(before);
  });

  it('404 for an account of another workspace, 403 without the reconciliations write scope or permission', async () => {
    const { accountId, ofx } = await demoStatement();
    expect((await api.call('POST', `/v1/accounts/${accountId}/statements`, { workspace: DEMO.workspaces.filial, body: { file_name: 'x.ofx', content_base64: ofx.toString('base64') } })).status).to.equal(404);
    const reader = await api.token('ana', 'finance.reconciliations');
    expect((await api.call('POST', `/v1/accounts/${accountId}/statements`, { workspace: M, token: reader, body: { file_name: 'x.ofx', content_base64: ofx.toString('base64') } })).status).to.equal(403);
    const bruno = await api.token('bruno', 'finance.all.write');
    expect((await api.call('POST', `/v1/accounts/${accountId}/statements`, { workspace: M, token: bruno, body: { file_name: 'x.ofx', content_base64: ofx.toString('base64') } })).status).to.equal(403);
  });
});
