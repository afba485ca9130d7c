/**
 * The /v1 check order of docs/security.md#check-order-and-error-catalogue — membership → scope → permission → workspace before
 * arguments — holds for what the REST adapter parses itself (query, JSON and multipart bodies):
 * a caller who may not make the call is refused before its query is parsed or its body is read.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DEMO } from '../../src/seed/ids.js';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';

const M = DEMO.workspaces.matriz;
const MB = 1024 * 1024;

interface EarlyAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: { error?: { code: string } };
  /** Bytes of the body the client had written when the answer arrived. */
  readonly sent: number;
}

/**
 * Sends `first` as the start of a body announced as `declared` bytes (chunked when undefined),
 * then stalls: the answer can only arrive if the server answers without reading the rest.
 */
function postStalledBody(url: string, path: string, headers: Record<string, string>, first: Buffer, declared?: number): Promise<EarlyAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const request = http.request(target, {
      method: 'POST',
      headers: { ...headers, ...(declared !== undefined ? { 'content-length': String(declared) } : {}) },
    });
    const timer = setTimeout(() => {
      request.destroy();
      reject(new Error('no answer while the upload was stalled: the server waited for the body'));
    }, 10_000);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        request.destroy();
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text) as EarlyAnswer['body'], sent: first.length });
      });
    });
    request.write(first);
    // No end(): the rest of the upload never comes.
  });
}

describe('/v1 check order before the request is read', function () {
  let rest: RestApp;

  before(async function () {
    rest = await startRestApp();
  });
  after(async function () {
    await rest?.close();
  });

  describe('membership_inactive', () => {
    it('answers 403 membership_inactive, not VALIDATION_ERROR, for an inactive member posting malformed JSON', async () => {
      const res = await rest.call('POST', '/v1/taxes', {
        token: await rest.token('carla'), workspace: M, raw: '{bad', contentType: 'application/json',
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(403);
      expect(res.body.error.code).to.equal('membership_inactive');
    });

    it('answers 403 membership_inactive for an inactive member with a malformed query', async () => {
      const res = await rest.call('GET', '/v1/accounts?limit=abc', { token: await rest.token('carla', 'finance.all'), workspace: M });
      expect(res.status).to.equal(403);
      expect(res.body.error.code).to.equal('membership_inactive');
    });
  });

  describe('insufficient_scope', () => {
    it('answers 403 insufficient_scope, not VALIDATION_ERROR, for GET /v1/accounts?limit=abc with a payables-only token', async () => {
      const res = await rest.call('GET', '/v1/accounts?limit=abc', { token: await rest.token('bruno', 'finance.payables') });
      expect(res.status, JSON.stringify(res.body)).to.equal(403);
      expect(res.body.error).to.deep.include({ code: 'insufficient_scope', details: { required: ['finance.accounts'], granted: ['finance.payables'] } });
    });

    it('answers 403 insufficient_scope for a read-only token posting malformed JSON', async () => {
      const res = await rest.call('POST', '/v1/taxes', { token: await rest.token('ana', 'finance.all'), workspace: M, raw: '{bad', contentType: 'application/json' });
      expect(res.status).to.equal(403);
      expect(res.body.error.code).to.equal('insufficient_scope');
    });
  });

  describe('insufficient_permission and the workspace', () => {
    it('answers insufficient_permission before a malformed query', async () => {
      const res = await rest.call('GET', '/v1/accounts?limit=abc', { token: await rest.token('bruno', 'finance.all') });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.deep.include({ code: 'insufficient_permission', details: { permission: 'accounts.view' } });
    });

    it('answers workspace_access_denied before a malformed query or body', async () => {
      const missing = randomUUID();
      const query = await rest.call('GET', '/v1/accounts?limit=abc', { token: await rest.token('ana', 'finance.all'), workspace: missing });
      expect(query.status).to.equal(403);
      expect(query.body.error).to.deep.include({ code: 'workspace_access_denied', details: { workspace_id: missing } });
      const body = await rest.call('POST', '/v1/taxes', { token: await rest.token('ana'), workspace: missing, raw: '{bad', contentType: 'application/json' });
      expect(body.status).to.equal(403);
      expect(body.body.error.code).to.equal('workspace_access_denied');
    });

    it('answers workspace_required before a malformed query when no workspace is named', async () => {
      const res = await rest.call('GET', '/v1/accounts?limit=abc', { token: await rest.token('ana', 'finance.all') });
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('workspace_required');
    });

    it('still answers VALIDATION_ERROR once every earlier check passed', async () => {
      const query = await rest.call('GET', '/v1/accounts?limit=abc', { token: await rest.token('ana', 'finance.all'), workspace: M });
      expect(query.status).to.equal(400);
      expect(query.body.error.code).to.equal('VALIDATION_ERROR');
      const body = await rest.call('POST', '/v1/taxes', { token: await rest.token('ana'), workspace: M, raw: '{bad', contentType: 'application/json' });
      expect(body.status).to.equal(400);
      expect(body.body.error.code).to.equal('VALIDATION_ERROR');
    });
  });

  describe('POST /v1/attachments with a read-only token', () => {
    it('answers 403 insufficient_scope to a 5 MB JSON upload that stalls after 1 MB, and closes the connection', async () => {
      const first = Buffer.concat([Buffer.from('{"file_name":"a.pdf","content_type":"application/pdf","content_base64":"'), Buffer.alloc(MB, 'A')]);
      const answer = await postStalledBody(rest.url, '/v1/attachments', {
        authorization: `Bearer ${await rest.token('ana', 'finance.all')}`, 'x-workspace-id': M, 'content-type': 'application/json',
      }, first, 5 * MB);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(403);
      expect(answer.body.error?.code).to.equal('insufficient_scope');
      expect(answer.sent).to.be.below(5 * MB);
      expect(answer.headers['connection']).to.equal('close');
    });

    it('answers 403 insufficient_scope to a chunked multipart upload that stalls after 1 MB', async () => {
      const boundary = 'x-stalled-boundary';
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n`;
      const answer = await postStalledBody(rest.url, '/v1/attachments', {
        authorization: `Bearer ${await rest.token('ana', 'finance.all')}`, 'x-workspace-id': M,
        'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked',
      }, Buffer.concat([Buffer.from(head), Buffer.alloc(MB, 0x20)]));
      expect(answer.status, JSON.stringify(answer.body)).to.equal(403);
      expect(answer.body.error?.code).to.equal('insufficient_scope');
    });

    it('keeps serving after the refused uploads', async () => {
      const res = await rest.call('GET', '/v1/accounts?limit=1', { token: await rest.token('ana', 'finance.all'), workspace: M });
      expect(res.status).to.equal(200);
    });
  });
});
