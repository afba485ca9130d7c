/**
 * Answers that fit (docs/protocol.md#answers-that-fit): a list page whose rows exceed the MCP
 * byte cap is cut at a row boundary with a working `next_cursor`, a note and `_meta`; following
 * the cursors returns every row exactly once; the text stays under 25,000 o200k tokens; REST
 * pages are never cut.
 */
import { expect } from 'chai';
import { countTokens } from 'gpt-tokenizer';
import { MAX_LIST_PAGE_BYTES } from '../../src/mcp/tools/call.js';
import { PAGE_CUT_META } from '../../src/mcp/tools/result.js';
import { DEMO } from '../../src/seed/ids.js';
import { ALL_WRITE, startTestApp, type TestApp } from './support/app.js';
import { postMcp } from './support/wire.js';

const MATRIZ = DEMO.workspaces.matriz;
/** Notes no tokenizer merges well (digits and punctuation): the worst case for tokens per byte. */
const DENSE_NOTES = Array.from({ length: 400 }, (_, i) => `${i % 10}.${(i * 7) % 10};`).join('').slice(0, 2000);

interface ToolResult { content: { text: string }[]; structuredContent?: { data: { id: string }[]; meta: { next_cursor: string | null } }; _meta?: Record<string, unknown>; isError?: boolean }

describe('answers that fit: list pages over the MCP cap are cut at a row boundary', function () {
  let app: TestApp;
  let token: string;
  const tag = `cap-${Date.now()}`;

  before(async function () {
    app = await startTestApp();
    token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
    const person = await app.services.db.selectFrom('people').select('id').where('workspace_id', '=', MATRIZ).orderBy('id').executeTakeFirstOrThrow();
    // 40 payables of ~2.6 KB each: ~100 KB for a page of 40, four times the cap.
    for (let index = 0; index < 40; index++) {
      const result = await call('finance_payables_create', {
        workspace_id: MATRIZ, description: `${tag} ${index}`, amount: '10.00', due_date: '2031-01-01', person_id: person.id, notes: DENSE_NOTES,
      });
      expect(result.isError, result.content[0]?.text).to.not.equal(true);
    }
  });
  after(async () => app?.close());

  let nextId = 1;
  async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    const response = await postMcp(`${app.url}/mcp`, { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } },
      { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-06-18' });
    expect(response.status).to.equal(200);
    return (response.json as { result: ToolResult }).result;
  }

  const listArgs = (extra: Record<string, unknown> = {}) => ({ workspace_id: MATRIZ, filters: { due_date: '2031-01-01' }, sort_by: 'created_at', ...extra });

  it('cuts the page, says so, and stays under 25,000 tokens', async function () {
    const result = await call('finance_payables_list', listArgs({ limit: 40 }));
    const text = result.content[0]!.text;
    const page = JSON.parse(text) as { data: { id: string }[]; meta: { next_cursor: string | null } };
    expect(page.data.length).to.be.within(1, 39);
    expect(page.meta.next_cursor).to.be.a('string');
    expect(Buffer.byteLength(text)).to.be.at.most(MAX_LIST_PAGE_BYTES + 200);
    // One more row would not have fit.
    expect(Buffer.byteLength(JSON.stringify(page.data)) + Buffer.byteLength(JSON.stringify(page.data[0]))).to.be.greaterThan(MAX_LIST_PAGE_BYTES);
    expect(countTokens(text)).to.be.at.most(25_000);
    // content[1] names the workspace (docs/protocol.md#tools); the note follows it.
    expect(result.content[1]?.text).to.equal(`Workspace: "Matriz" (${MATRIZ}).`);
    expect(result.content[2]?.text).to.match(new RegExp(`^Page cut to ${page.data.length} of 40 rows`));
    expect(result._meta?.[PAGE_CUT_META]).to.deep.equal({ returned: page.data.length, requested: 40 });
    expect(result.structuredContent).to.deep.equal(page);
  });

  it('following next_cursor returns every row exactly once; REST is not cut', async function () {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 20; pages++) {
      const result = await call('finance_payables_list', listArgs({ limit: 40, ...(cursor ? { cursor } : {}) }));
      const page = result.structuredContent!;
      seen.push(...page.data.map((row) => row.id));
      cursor = page.meta.next_cursor;
      if (cursor === null) break;
    }
    const apiToken = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all', aud: 'api' });
    const rest = await fetch(`${app.url}/v1/payables?limit=40&sort=created_at&due_date=2031-01-01`, { headers: { authorization: `Bearer ${apiToken}`, 'x-workspace-id': MATRIZ } });
    const all = (await rest.json()) as { data: { id: string }[] };
    expect(all.data).to.have.length(40);
    expect(seen).to.deep.equal(all.data.map((row) => row.id));
  });

  it('a page within the cap is not cut and carries no note', async function () {
    const result = await call('finance_payables_list', listArgs({ limit: 40, fields: ['description'] }));
    expect(result.structuredContent!.data).to.have.length(40);
    // Only the workspace is named after the page (docs/protocol.md#tools): no note, no page-cut _meta.
    expect(result.content).to.have.length(2);
    expect(result.content[1]?.text).to.equal(`Workspace: "Matriz" (${MATRIZ}).`);
    expect(Object.keys(result._meta ?? {})).to.deep.equal(['app.kobana.finance/workspace']);
  });
});
