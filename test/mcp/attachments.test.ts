/**
 * The attachments tools over MCP (issue 7): upload through `finance_attachments_upload`, link,
 * download metadata only, and the size limits of the tool channel, against the real app with
 * real MCP tokens; the bytes are fetched back over REST with an API token.
 */
import { expect } from 'chai';
import { DEMO, startTestApp, type TestApp } from '../helpers/index.js';
import { modernRequest, postMcp } from './support/wire.js';
import { TEN_MB, PNG_BYTES, buildSizedPdf, buildSmallPdf, callRest, findUnlinkedTitle } from '../api/operations/attachments-fixtures.js';

const MATRIZ = DEMO.workspaces.matriz;

interface ToolOutcome {
  readonly httpStatus: number;
  readonly isError: boolean;
  readonly payload: any; // tests read nested fields freely
  readonly text: string;
}

describe('tools/call finance_attachments_*', function () {
  this.timeout(120_000);
  let app: TestApp;
  let mcpToken: string;
  let apiToken: string;
  let nextId = 1;

  async function callTool(name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    const { body, headers } = modernRequest(nextId++, 'tools/call', { name, arguments: { workspace_id: MATRIZ, ...args } });
    const reply = await postMcp(`${app.url}/mcp`, body, { ...headers, authorization: `Bearer ${mcpToken}` });
    const result = (reply.json as { result?: { isError?: boolean; content?: { text: string }[] } } | undefined)?.result;
    const text = result?.content?.[0]?.text ?? '';
    return { httpStatus: reply.status, isError: result?.isError === true, payload: text ? JSON.parse(text) : undefined, text: reply.text };
  }
  const upload = (bytes: Uint8Array, fileName = 'nota.pdf', contentType = 'application/pdf') =>
    callTool('finance_attachments_upload', { file_name: fileName, content_type: contentType, content_base64: Buffer.from(bytes).toString('base64') });

  before(async () => {
    app = await startTestApp();
    mcpToken = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write', type: 'personal', aud: 'mcp' });
    apiToken = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all', type: 'personal', aud: 'api' });
  });
  after(async () => { await app?.close(); });

  it('round trip: uploads a PDF over MCP, links it to a payable, and REST downloads the same bytes', async () => {
    const pdf = buildSmallPdf('round trip');
    const payableId = await findUnlinkedTitle(app.services.db, MATRIZ, 'payable');

    const uploaded = await upload(pdf, 'boleto.pdf');
    expect(uploaded.isError, uploaded.text).to.equal(false);
    expect(uploaded.payload).to.include({ file_name: 'boleto.pdf', content_type: 'application/pdf', size: pdf.length, created_via: 'mcp' });

    const linked = await callTool('finance_attachments_link', { id: uploaded.payload.id, parent_type: 'payable', parent_id: payableId });
    expect(linked.isError, linked.text).to.equal(false);
    expect(linked.payload.links).to.deep.include.members([{ parent_type: 'payable', parent_id: payableId, created_at: linked.payload.links[0].created_at }]);

    const download = await callTool('finance_attachments_download', { id: uploaded.payload.id });
    expect(download.isError, download.text).to.equal(false);
    expect(download.payload).to.include({ content_type: 'application/pdf', size: pdf.length, file_name: 'boleto.pdf', sha256: uploaded.payload.sha256 });
    expect(download.payload.download_path).to.equal(`/v1/attachments/${uploaded.payload.id}/download`);
    expect(download.text).to.not.contain(pdf.toString('base64').slice(0, 40));

    const bytes = await callRest(app.url, apiToken, MATRIZ, 'GET', download.payload.download_path);
    expect(bytes.status).to.equal(200);
    expect(bytes.bytes.equals(pdf)).to.equal(true);
    const payable = await callRest(app.url, apiToken, MATRIZ, 'GET', `/v1/payables/${payableId}`);
    expect(payable.json.attachments_count).to.equal(1);
  });

  it('accepts exactly 10 MB and answers VALIDATION_ERROR for 10 MB + 1 byte', async () => {
    const ok = await upload(buildSizedPdf(TEN_MB, 'mcp-cap'));
    expect(ok.isError, ok.text.slice(0, 300)).to.equal(false);
    expect(ok.payload.size).to.equal(TEN_MB);
    const over = await upload(buildSizedPdf(TEN_MB + 1, 'mcp-over'));
    expect(over.isError).to.equal(true);
    expect(over.payload.error.code).to.equal('VALIDATION_ERROR');
  });

  it('answers a 14 MB request body with the tool error, not a crash', async () => {
    const base64 = 'A'.repeat(14_000_000);
    const reply = await callTool('finance_attachments_upload', { file_name: 'huge.pdf', content_type: 'application/pdf', content_base64: base64 });
    expect(reply.httpStatus).to.equal(200);
    expect(reply.isError).to.equal(true);
    expect(reply.payload.error.code).to.equal('VALIDATION_ERROR');
    // …and the server still answers afterwards.
    const after = await upload(buildSmallPdf('after huge'));
    expect(after.isError, after.text).to.equal(false);
  });

  it('answers UNPROCESSABLE_ENTITY for a PNG declared as PDF', async () => {
    const reply = await upload(PNG_BYTES, 'fake.pdf', 'application/pdf');
    expect(reply.isError).to.equal(true);
    expect(reply.payload.error.code).to.equal('UNPROCESSABLE_ENTITY');
  });

  it('answers VALIDATION_ERROR for invalid base64', async () => {
    const reply = await callTool('finance_attachments_upload', { file_name: 'a.pdf', content_type: 'application/pdf', content_base64: 'JVBERi0x$$$=' });
    expect(reply.isError).to.equal(true);
    expect(reply.payload.error.code).to.equal('VALIDATION_ERROR');
  });

  it('answers NOT_FOUND when linking to a payable of another workspace', async () => {
    const filialPayable = await findUnlinkedTitle(app.services.db, DEMO.workspaces.filial, 'payable');
    const uploaded = await upload(buildSmallPdf('cross'));
    const reply = await callTool('finance_attachments_link', { id: uploaded.payload.id, parent_type: 'payable', parent_id: filialPayable });
    expect(reply.isError).to.equal(true);
    expect(reply.payload.error.code).to.equal('NOT_FOUND');
  });
});
