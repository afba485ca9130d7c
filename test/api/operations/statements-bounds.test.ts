/**
 * M3 and the OFX half of L1 (issue 25). An OFX of many small tags (6 MB of `<a>1`) took seconds
 * of the event loop and most of a gigabyte; now the contract bounds a file's tags and lines
 * (statements.import, x-kobana-bounds), a linear pre-scan refuses a file over `max_tags` before
 * any parsing, and a legal file is parsed in a worker thread — shown here by a timer of the
 * main thread that fires while the parse is still running (an order, not a duration). A NUL
 * byte in a field was stored on SQLite and a 500 on PostgreSQL; it is UNPROCESSABLE_ENTITY on
 * both, with nothing written. On SQLite and, with DATABASE_URL, on PostgreSQL.
 */
import { expect } from 'chai';
import { routes } from '../../../generated/registry.gen.js';
import { DEMO } from '../../helpers/index.js';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { parseOfxOffThread } from '../../../src/api/rules/statements/ofx-thread.js';
import { createDeadline } from '../../../src/runtime/deadline.js';
import { systemClock } from '../../../src/runtime/clock.js';

const M = DEMO.workspaces.matriz;
const BOUNDS = routes.find((r) => r.operation.operationId === 'statements.import')?.bounds;
const MAX_TAGS = BOUNDS?.maxTags ?? 0;
const MAX_LINES = BOUNDS?.maxLines ?? 0;

const HEAD = 'OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKTRANLIST>';
const TAIL = '</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n';
const line = (i: number, memo = `Pagamento ${i}`) => `<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260305<TRNAMT>-${(i % 900) + 1}.50<FITID>B${i}<NAME>Fornecedor ${i}<MEMO>${memo}</STMTTRN>`;
const statement = (lines: number, from = 0): string => HEAD + Array.from({ length: lines }, (_, k) => line(from + k)).join('') + TAIL;
/** A file of `count` small elements inside a statement's transaction list (legal SGML, no transaction). */
const manyTags = (count: number): string => HEAD + '<a>1'.repeat(count) + TAIL;

describe(`statements.import: bounded files, parsed off the event loop (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(120_000);
  let api: RestApp;
  let accountId: string;

  before(async () => {
    expect(MAX_TAGS, 'the contract bounds the tags').to.be.greaterThan(0);
    expect(MAX_LINES, 'the contract bounds the lines').to.be.greaterThan(0);
    api = await startRestApp();
    const account = await api.call('POST', '/v1/accounts', { workspace: M, body: { name: 'Limites OFX', type: 'checking' } });
    accountId = account.body.id;
  });
  after(async () => { await api?.close(); });

  const importFile = (text: string) => api.call('POST', `/v1/accounts/${accountId}/statements`, {
    workspace: M, body: { file_name: 'extrato.ofx', content_base64: Buffer.from(text).toString('base64') },
  });
  const lineCount = async (): Promise<number> => Number((await api.app.services.db.selectFrom('statement_lines')
    .select((eb) => eb.fn.countAll<string>().as('n')).where('workspace_id', '=', M).where('financial_account_id', '=', accountId).executeTakeFirstOrThrow()).n);

  it('a 6 MB file of many small tags is refused by the pre-scan, naming the bound', async () => {
    const text = manyTags(1_500_000);
    expect(text.length).to.be.greaterThan(6_000_000);
    const res = await importFile(text);
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.error.code).to.equal('UNPROCESSABLE_ENTITY');
    expect(res.body.error.details).to.deep.equal({ bound: 'max_tags', limit: MAX_TAGS });
    expect(res.body.error.message).to.include(String(MAX_TAGS));
    expect(await lineCount()).to.equal(0);
  });

  it('more transactions than max_lines is refused, naming the bound, with nothing written; a smaller file is imported', async () => {
    const over = await importFile(statement(MAX_LINES + 1));
    expect(over.status, JSON.stringify(over.body)).to.equal(422);
    expect(over.body.error.details).to.deep.equal({ bound: 'max_lines', limit: MAX_LINES });
    expect(await lineCount()).to.equal(0);
    const some = await importFile(statement(50));
    expect(some.status, JSON.stringify(some.body)).to.equal(201);
    expect(some.body).to.include({ lines: 50, imported: 50 });
  });

  it('L1: a NUL byte in a field is UNPROCESSABLE_ENTITY on either database, with nothing written', async () => {
    const before = await lineCount();
    const res = await importFile(HEAD + line(9001, 'Memo\u0000com NUL') + TAIL);
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.error.code).to.equal('UNPROCESSABLE_ENTITY');
    const fitid = await importFile(HEAD + line(9002).replace('<FITID>B9002', '<FITID>B\u00009002') + TAIL);
    expect(fitid.status, JSON.stringify(fitid.body)).to.equal(422);
    expect(await lineCount()).to.equal(before);
  });

  it('a legal file at the tag bound is parsed in a worker: a main-thread timer fires while the parse runs', async () => {
    // Just within the bound: the worst legal shape for the parser.
    const bytes = new TextEncoder().encode(manyTags(MAX_TAGS - 20));
    const events: string[] = [];
    const timer = setInterval(() => { if (events.at(-1) !== 'tick') events.push('tick'); }, 1);
    try {
      const parsing = parseOfxOffThread(bytes, MAX_LINES, createDeadline(systemClock, 60_000)).then((lines) => { events.push('parsed'); return lines; });
      events.push('called');
      expect(await parsing).to.deep.equal([]);
    } finally {
      clearInterval(timer);
    }
    // A parse on the event loop would finish before the call returned: ['parsed', 'called'].
    expect(events[0]).to.equal('called');
    expect(events.indexOf('tick'), events.join(' ')).to.be.within(1, events.indexOf('parsed') - 1);
  });
});
