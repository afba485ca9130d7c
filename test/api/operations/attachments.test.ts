/**
 * The attachments operations over REST (issue 7): JSON and multipart upload, download, links
 * and delete, against the real app with real API tokens (SQLite; PostgreSQL with DATABASE_URL).
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { DEMO, startTestApp, type TestApp } from '../../helpers/index.js';
import {
  TEN_MB, PNG_BYTES, buildForm, buildSizedPdf, buildSmallPdf, callRest, countBlobs, findUnlinkedTitle,
} from './attachments-fixtures.js';

const MATRIZ: string = DEMO.workspaces.matriz;
const FILIAL: string = DEMO.workspaces.filial;

describe('/v1/attachments', function () {
  this.timeout(120_000);
  let app: TestApp;
  let token: string;
  const rest = (method: string, path: string, body?: unknown, workspace = MATRIZ) => callRest(app.url, token, workspace, method, path, body);
  const uploadJson = (bytes: Uint8Array, fileName = 'nota.pdf', contentType = 'application/pdf', title?: string) =>
    rest('POST', '/v1/attachments', { file_name: fileName, content_type: contentType, content_base64: Buffer.from(bytes).toString('base64'), ...(title ? { title } : {}) });

  before(async () => {
    app = await startTestApp();
    token = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write', type: 'personal', aud: 'api' });
  });
  after(async () => { await app?.close(); });

  describe('POST /v1/attachments (application/json)', () => {
    it('stores a PDF and returns its record with 201', async () => {
      const pdf = buildSmallPdf();
      const reply = await uploadJson(pdf, '../../etc/nota\u0007.pdf', 'application/pdf', 'NF 1234');
      expect(reply.status).to.equal(201);
      expect(reply.json).to.include({ file_name: 'nota.pdf', title: 'NF 1234', content_type: 'application/pdf', size: pdf.length, version: 1, created_via: 'api' });
      expect(reply.json.sha256).to.equal(createHash('sha256').update(pdf).digest('hex'));
      expect(reply.json.links).to.deep.equal([]);
      const got = await rest('GET', `/v1/attachments/${reply.json.id}`);
      expect(got.status).to.equal(200);
      expect(got.json).to.deep.equal(reply.json);
    });

    it('accepts exactly 10 MB and rejects 10 MB + 1 byte with VALIDATION_ERROR', async () => {
      const ok = await uploadJson(buildSizedPdf(TEN_MB, 'json-cap'));
      expect(ok.status).to.equal(201);
      expect(ok.json.size).to.equal(TEN_MB);
      const over = await uploadJson(buildSizedPdf(TEN_MB + 1, 'json-over'));
      expect(over.status).to.equal(400);
      expect(over.json.error.code).to.equal('VALIDATION_ERROR');
    });

    it('rejects invalid base64 with VALIDATION_ERROR on content_base64', async () => {
      const reply = await rest('POST', '/v1/attachments', { file_name: 'a.pdf', content_type: 'application/pdf', content_base64: 'JVBER i0xLjQK' });
      expect(reply.status).to.equal(400);
      expect(reply.json.error.code).to.equal('VALIDATION_ERROR');
      expect(reply.json.error.details.issues.map((i: { path: string }) => i.path).join(' ')).to.contain('content_base64');
    });

    it('rejects a PNG declared as PDF with UNPROCESSABLE_ENTITY', async () => {
      const reply = await uploadJson(PNG_BYTES, 'fake.pdf', 'application/pdf');
      expect(reply.status).to.equal(422);
      expect(reply.json.error.code).to.equal('UNPROCESSABLE_ENTITY');
    });

    it('stores the same bytes once (one blob row for two attachments)', async () => {
      const pdf = buildSmallPdf('dedupe');
      const first = await uploadJson(pdf, 'a.pdf');
      const second = await uploadJson(pdf, 'b.pdf');
      expect(first.json.id).to.not.equal(second.json.id);
      expect(second.json.sha256).to.equal(first.json.sha256);
      expect(await countBlobs(app.services.db, MATRIZ, first.json.sha256)).to.equal(1);
    });

    it('stores concurrent uploads of the same bytes once, and every copy downloads', async () => {
      const pdf = buildSmallPdf('concurrent');
      const replies = await Promise.all([1, 2, 3, 4, 5].map((n) => uploadJson(pdf, `c${n}.pdf`)));
      expect(replies.map((r) => r.status)).to.deep.equal([201, 201, 201, 201, 201]);
      expect(await countBlobs(app.services.db, MATRIZ, replies[0]!.json.sha256)).to.equal(1);
      for (const reply of replies) {
        expect((await rest('GET', `/v1/attachments/${reply.json.id}/download`)).bytes.equals(pdf)).to.equal(true);
      }
    });
  });

  describe('POST /v1/attachments (multipart/form-data)', () => {
    it('stores the file part with its name, type and title', async () => {
      const pdf = buildSmallPdf('multipart');
      const reply = await rest('POST', '/v1/attachments', buildForm(pdf, 'C:\\docs\\boleto.pdf', 'application/pdf', 'Boleto'));
      expect(reply.status).to.equal(201);
      expect(reply.json).to.include({ file_name: 'boleto.pdf', title: 'Boleto', content_type: 'application/pdf', size: pdf.length });
    });

    it('accepts exactly 10 MB and answers 413 for 10 MB + 1 byte', async () => {
      const ok = await rest('POST', '/v1/attachments', buildForm(buildSizedPdf(TEN_MB, 'mp-cap'), 'cap.pdf', 'application/pdf'));
      expect(ok.status).to.equal(201);
      expect(ok.json.size).to.equal(TEN_MB);
      const over = await rest('POST', '/v1/attachments', buildForm(buildSizedPdf(TEN_MB + 1, 'mp-over'), 'over.pdf', 'application/pdf'));
      expect(over.status).to.equal(413);
    });

    it('rejects a PNG declared as PDF and a type that is not allowed with UNPROCESSABLE_ENTITY', async () => {
      const png = await rest('POST', '/v1/attachments', buildForm(PNG_BYTES, 'fake.pdf', 'application/pdf'));
      expect(png.status).to.equal(422);
      expect(png.json.error.code).to.equal('UNPROCESSABLE_ENTITY');
      const html = await rest('POST', '/v1/attachments', buildForm(Buffer.from('<html></html>'), 'page.html', 'text/html'));
      expect(html.status).to.equal(422);
      expect(html.json.error.code).to.equal('UNPROCESSABLE_ENTITY');
    });

    it('rejects a body without a file part with VALIDATION_ERROR', async () => {
      const form = new FormData();
      form.append('title', 'no file');
      const reply = await rest('POST', '/v1/attachments', form);
      expect(reply.status).to.equal(400);
      expect(reply.json.error.code).to.equal('VALIDATION_ERROR');
    });
  });

  describe('POST /v1/attachments with Idempotency-Key', () => {
    it('replays a JSON upload instead of storing it twice', async () => {
      const body = { file_name: 'retry.pdf', content_type: 'application/pdf', content_base64: buildSmallPdf('retry').toString('base64') };
      const first = await callRest(app.url, token, MATRIZ, 'POST', '/v1/attachments', body, { 'idempotency-key': 'att-retry-1' });
      const again = await callRest(app.url, token, MATRIZ, 'POST', '/v1/attachments', body, { 'idempotency-key': 'att-retry-1' });
      expect(first.status).to.equal(201);
      expect(again.status).to.equal(201);
      expect(again.json.id).to.equal(first.json.id);
    });

    it('refuses the same key with other file bytes in a multipart upload', async () => {
      const key = { 'idempotency-key': 'att-retry-2' };
      const first = await callRest(app.url, token, MATRIZ, 'POST', '/v1/attachments', buildForm(buildSmallPdf('one'), 'same.pdf', 'application/pdf'), key);
      const other = await callRest(app.url, token, MATRIZ, 'POST', '/v1/attachments', buildForm(buildSmallPdf('two'), 'same.pdf', 'application/pdf'), key);
      expect(first.status).to.equal(201);
      expect(other.status).to.equal(409);
      expect(other.json.error.code).to.equal('CONFLICT');
    });
  });

  describe('permissions', () => {
    it('refuses an upload by a member without attachments.manage', async () => {
      const bruno = await app.mintToken({ person: DEMO.emails.bruno, scope: 'finance.attachments.write', type: 'personal', aud: 'api' });
      const reply = await callRest(app.url, bruno, MATRIZ, 'POST', '/v1/attachments', buildForm(buildSmallPdf('bruno'), 'b.pdf', 'application/pdf'));
      expect(reply.status).to.equal(403);
      expect(reply.json.error.code).to.equal('insufficient_permission');
    });
  });

  describe('GET /v1/attachments/{id}/download', () => {
    it('streams the bytes with their type, length, disposition and no-store caching', async () => {
      const pdf = buildSmallPdf('download');
      const { json } = await uploadJson(pdf, 'nota fiscal.pdf');
      const reply = await rest('GET', `/v1/attachments/${json.id}/download`);
      expect(reply.status).to.equal(200);
      expect(reply.bytes.equals(pdf)).to.equal(true);
      expect(reply.headers.get('content-type')).to.match(/^application\/pdf/);
      expect(reply.headers.get('content-length')).to.equal(String(pdf.length));
      expect(reply.headers.get('content-disposition')).to.match(/^inline; filename="nota fiscal.pdf"/);
      expect(reply.headers.get('cache-control')).to.equal('private, no-store');
    });

    it('offers other types as an attachment', async () => {
      const csv = Buffer.from('data;valor\n2026-01-01;10,00\n');
      const { json } = await uploadJson(csv, 'extrato.csv', 'text/csv');
      const reply = await rest('GET', `/v1/attachments/${json.id}/download`);
      expect(reply.bytes.equals(csv)).to.equal(true);
      expect(reply.headers.get('content-disposition')).to.match(/^attachment;/);
    });

    it('answers 401 to an MCP token', async () => {
      const { json } = await uploadJson(buildSmallPdf('mcp-token'));
      const mcpToken = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write', type: 'personal', aud: 'mcp' });
      const reply = await callRest(app.url, mcpToken, MATRIZ, 'GET', `/v1/attachments/${json.id}/download`);
      expect(reply.status).to.equal(401);
    });

    it('answers NOT_FOUND for an attachment of another workspace', async () => {
      const { json } = await uploadJson(buildSmallPdf('other-ws'));
      const reply = await rest('GET', `/v1/attachments/${json.id}/download`, undefined, FILIAL);
      expect(reply.status).to.equal(404);
      expect(reply.json.error.code).to.equal('NOT_FOUND');
    });
  });

  describe('GET /v1/attachments', () => {
    it('filters by content_type, sorts, pages and trims fields', async () => {
      const names = ['b-list.csv', 'a-list.csv', 'c-list.csv'];
      for (const name of names) await uploadJson(Buffer.from(`col\n${name}\n`), name, 'text/csv');
      const first = await rest('GET', '/v1/attachments?content_type=text/csv&sort=file_name&limit=2&fields=file_name,links');
      expect(first.status).to.equal(200);
      const csvNames = first.json.data.map((a: { file_name: string }) => a.file_name);
      expect(csvNames).to.deep.equal([...csvNames].sort());
      expect(Object.keys(first.json.data[0]).sort()).to.deep.equal(['file_name', 'id', 'links']);
      expect(first.json.meta.next_cursor).to.be.a('string');
      const all: string[] = [...csvNames];
      let cursor: string | null = first.json.meta.next_cursor;
      while (cursor) {
        const page = await rest('GET', `/v1/attachments?content_type=text/csv&sort=file_name&limit=2&cursor=${encodeURIComponent(cursor)}`);
        all.push(...page.json.data.map((a: { file_name: string }) => a.file_name));
        cursor = page.json.meta.next_cursor;
      }
      expect(all).to.include.members(names);
      expect(all).to.deep.equal([...all].sort());
    });

    it('answers BAD_REQUEST for an unknown filter', async () => {
      const reply = await rest('GET', '/v1/attachments?owner=x');
      expect(reply.status).to.equal(400);
      expect(reply.json.error.code).to.equal('BAD_REQUEST');
    });
  });

  describe('links and delete', () => {
    it('links, refuses the same link twice, refuses deleting while linked, unlinks and deletes', async () => {
      const payableId = await findUnlinkedTitle(app.services.db, MATRIZ, 'payable');
      const pdf = buildSmallPdf('links');
      const { json: attachment } = await uploadJson(pdf, 'link.pdf');

      const linked = await rest('POST', `/v1/attachments/${attachment.id}/links`, { parent_type: 'payable', parent_id: payableId });
      expect(linked.status).to.equal(201);
      expect(linked.json.links).to.have.length(1);
      expect(linked.json.links[0]).to.include({ parent_type: 'payable', parent_id: payableId });
      expect(linked.json.version).to.equal(2);
      const payable = await rest('GET', `/v1/payables/${payableId}`);
      expect(payable.json.attachments_count).to.equal(1);
      const listed = await rest('GET', `/v1/attachments?parent_id=${payableId}`);
      expect(listed.json.data.map((a: { id: string }) => a.id)).to.deep.equal([attachment.id]);

      const twice = await rest('POST', `/v1/attachments/${attachment.id}/links`, { parent_type: 'payable', parent_id: payableId });
      expect(twice.status).to.equal(409);
      expect(twice.json.error.code).to.equal('CONFLICT');
      const deleteLinked = await rest('DELETE', `/v1/attachments/${attachment.id}`);
      expect(deleteLinked.status).to.equal(409);
      expect(deleteLinked.json.error.code).to.equal('CONFLICT');

      expect((await rest('DELETE', `/v1/attachments/${attachment.id}/links/payable/${payableId}`)).status).to.equal(204);
      expect((await rest('DELETE', `/v1/attachments/${attachment.id}/links/payable/${payableId}`)).status).to.equal(404);
      expect((await rest('GET', `/v1/payables/${payableId}`)).json.attachments_count).to.equal(0);
      expect((await rest('DELETE', `/v1/attachments/${attachment.id}`)).status).to.equal(204);
      expect((await rest('GET', `/v1/attachments/${attachment.id}`)).status).to.equal(404);
      expect(await countBlobs(app.services.db, MATRIZ, attachment.sha256)).to.equal(0);
    });

    it('answers NOT_FOUND for a parent in another workspace', async () => {
      const filialPayable = await findUnlinkedTitle(app.services.db, FILIAL, 'payable');
      const { json } = await uploadJson(buildSmallPdf('cross-ws'));
      const reply = await rest('POST', `/v1/attachments/${json.id}/links`, { parent_type: 'payable', parent_id: filialPayable });
      expect(reply.status).to.equal(404);
      expect(reply.json.error.code).to.equal('NOT_FOUND');
    });

    it('answers NOT_FOUND when the parent is of another type', async () => {
      const receivable = await findUnlinkedTitle(app.services.db, MATRIZ, 'receivable');
      const { json } = await uploadJson(buildSmallPdf('wrong-type'));
      const reply = await rest('POST', `/v1/attachments/${json.id}/links`, { parent_type: 'payable', parent_id: receivable });
      expect(reply.status).to.equal(404);
    });

    it('keeps the bytes while another attachment still refers to them', async () => {
      const pdf = buildSmallPdf('shared-bytes');
      const first = await uploadJson(pdf, 'one.pdf');
      const second = await uploadJson(pdf, 'two.pdf');
      expect((await rest('DELETE', `/v1/attachments/${first.json.id}`)).status).to.equal(204);
      expect(await countBlobs(app.services.db, MATRIZ, first.json.sha256)).to.equal(1);
      const download = await rest('GET', `/v1/attachments/${second.json.id}/download`);
      expect(download.bytes.equals(pdf)).to.equal(true);
    });

    it('keeps the bytes when an upload races the delete of their last other copy', async () => {
      // Regression: without the blob row lock (blob-store.ts), PostgreSQL orphaned about half of these.
      let orphaned = 0;
      for (let i = 0; i < 15; i += 1) {
        const pdf = buildSmallPdf(`race ${i}`);
        const { json: doomed } = await uploadJson(pdf, 'doomed.pdf');
        const [deleted, survivor] = await Promise.all([rest('DELETE', `/v1/attachments/${doomed.id}`), uploadJson(pdf, 'survivor.pdf')]);
        expect([deleted.status, survivor.status]).to.deep.equal([204, 201]);
        if ((await rest('GET', `/v1/attachments/${survivor.json.id}/download`)).status !== 200) orphaned += 1;
      }
      expect(orphaned).to.equal(0);
    });

    it('records every write in the activity log', async () => {
      const { json } = await uploadJson(buildSmallPdf('activity'));
      const rows = await app.services.db.selectFrom('activity').select(['operation', 'channel'])
        .where('workspace_id', '=', MATRIZ).where('record_id', '=', json.id).execute();
      expect(rows).to.deep.equal([{ operation: 'attachments.upload', channel: 'api' }]);
    });
  });
});
