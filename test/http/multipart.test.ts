/**
 * parseMultipartUpload() over real HTTP on loopback, mounted on a bare Koa app that renders
 * HttpError/ApiError the simplest way, so the parser is tested apart from the REST adapter.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { expect } from 'chai';
import { parseMultipartUpload } from '../../src/http/multipart.js';
import { HttpError } from '../../src/http/errors.js';
import { ApiError } from '../../src/api/errors.js';
import { API_ERROR_STATUS } from '../../src/http/rest-error-status.js';

const CAP = 10 * 1024 * 1024;

interface Reply { status: number; body: unknown; headers: http.IncomingHttpHeaders; sentBytes?: number }

function startParserApp(): Promise<{ url: string; server: http.Server }> {
  const app = new Koa();
  app.use(async (ctx) => {
    try {
      const upload = await parseMultipartUpload(ctx, { maxFileBytes: CAP });
      ctx.body = { fileName: upload.fileName, contentType: upload.contentType, size: upload.bytes.byteLength,
        first: Buffer.from(upload.bytes.subarray(0, 8)).toString('hex'), title: upload.title ?? null };
    } catch (error) {
      if (error instanceof HttpError) {
        ctx.status = error.status;
        ctx.set(error.headers);
        ctx.body = { error: { code: error.reason } };
      } else if (error instanceof ApiError) {
        ctx.status = API_ERROR_STATUS[error.code];
        ctx.body = error.toEnvelope();
      } else {
        throw error;
      }
    }
  });
  const server = http.createServer(app.callback());
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server });
  }));
}

const BOUNDARY = '----kobanaTestBoundary7';

function filePart(name: string, fileName: string, contentType: string, bytes: Buffer): Buffer[] {
  return [Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${fileName}"\r\n` +
    `Content-Type: ${contentType}\r\n\r\n`), bytes, Buffer.from('\r\n')];
}
function fieldPart(name: string, value: string): Buffer[] {
  return [Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)];
}
function closing(): Buffer[] {
  return [Buffer.from(`--${BOUNDARY}--\r\n`)];
}

/**
 * Sends the parts; `chunked` omits Content-Length; `declaredLength` overrides it. With
 * `allowReset`, a connection the server closed before the client read the answer resolves as
 * status 0 (a server that stops reading mid-body may reset a client that is still writing).
 */
function send(url: string, parts: Buffer[], opts: { chunked?: boolean; declaredLength?: number; allowReset?: boolean } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
    if (!opts.chunked) headers['content-length'] = opts.declaredLength ?? parts.reduce((n, p) => n + p.length, 0);
    let offered = 0;
    const req = http.request(url, { method: 'POST', headers }, (res) => {
      const sentBytes = offered;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, sentBytes, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      res.on('error', reject);
    });
    // The server stops reading at the cap and closes: late write errors are expected then.
    let answered = false;
    req.on('response', () => { answered = true; });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (answered || req.writableEnded) return;
      if (opts.allowReset && (error.code === 'EPIPE' || error.code === 'ECONNRESET')) resolve({ status: 0, headers: {}, body: null, sentBytes: offered });
      else reject(error);
    });
    const writeNext = (i: number): void => {
      if (i >= parts.length) return void req.end();
      if (req.destroyed) return;
      offered += parts[i]!.length;
      if (req.write(parts[i])) writeNext(i + 1);
      else req.once('drain', () => writeNext(i + 1));
    };
    writeNext(0);
  });
}

const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(100, 0x20)]);

describe('parseMultipartUpload()', () => {
  let app: Awaited<ReturnType<typeof startParserApp>>;
  before(async () => { app = await startParserApp(); });
  after(() => new Promise<void>((resolve) => { app.server.closeAllConnections(); app.server.close(() => resolve()); }));

  it('returns the file bytes, its name, its declared type and the title', async () => {
    const reply = await send(app.url, [...fieldPart('title', 'Boleto março'), ...filePart('file', 'nota.pdf', 'application/pdf', PDF), ...closing()]);
    expect(reply.status).to.equal(200);
    expect(reply.body).to.deep.equal({ fileName: 'nota.pdf', contentType: 'application/pdf', size: PDF.length, first: PDF.subarray(0, 8).toString('hex'), title: 'Boleto março' });
  });

  it('reads a UTF-8 file name', async () => {
    const reply = await send(app.url, [...filePart('file', 'março ção.pdf', 'application/pdf', PDF), ...closing()]);
    expect(reply.body).to.have.property('fileName', 'março ção.pdf');
  });

  it('accepts a file of exactly the cap', async () => {
    const reply = await send(app.url, [...filePart('file', 'big.csv', 'text/csv', Buffer.alloc(CAP, 0x61)), ...closing()]);
    expect(reply.status).to.equal(200);
    expect((reply.body as { size: number }).size).to.equal(CAP);
  });

  it('returns 413 for a file one byte over the cap', async () => {
    const reply = await send(app.url, [...filePart('file', 'big.csv', 'text/csv', Buffer.alloc(CAP + 1, 0x61)), ...closing()]);
    expect(reply.status).to.equal(413);
    expect(reply.headers.connection).to.equal('close');
  });

  it('returns 413 before reading when Content-Length is far over the cap', async () => {
    const reply = await send(app.url, [...filePart('file', 'x.csv', 'text/csv', Buffer.alloc(10, 0x61)), ...closing()], { declaredLength: 3 * CAP });
    expect(reply.status).to.equal(413);
  });

  it('stops reading a chunked body without Content-Length at the cap', async () => {
    const parts = [...filePart('file', 'huge.csv', 'text/csv', Buffer.alloc(0)).slice(0, 1)];
    const piece = Buffer.alloc(1024 * 1024, 0x62);
    for (let i = 0; i < 64; i += 1) parts.push(piece); // 64 MB offered, the server must stop near 10 MB
    const reply = await send(app.url, parts, { chunked: true, allowReset: true });
    expect(reply.status).to.be.oneOf([413, 0]);
    // What the client managed to hand over before the answer: the cap plus socket buffers, not 64 MB.
    expect(reply.sentBytes).to.be.below(40 * 1024 * 1024);
  });

  it('rejects a body without a file part', async () => {
    const reply = await send(app.url, [...fieldPart('title', 'x'), ...closing()]);
    expect(reply.status).to.equal(400);
    expect(reply.body).to.have.nested.property('error.code', 'VALIDATION_ERROR');
    expect((reply.body as { error: { details: { issues: { path: string }[] } } }).error.details.issues[0]!.path).to.equal('file');
  });

  it('rejects a second file part', async () => {
    const reply = await send(app.url, [...filePart('file', 'a.pdf', 'application/pdf', PDF), ...filePart('file', 'b.pdf', 'application/pdf', PDF), ...closing()]);
    expect(reply.status).to.equal(400);
    expect(reply.body).to.have.nested.property('error.code', 'VALIDATION_ERROR');
  });

  it('rejects a file part under another name', async () => {
    const reply = await send(app.url, [...filePart('document', 'a.pdf', 'application/pdf', PDF), ...closing()]);
    expect(reply.body).to.have.nested.property('error.code', 'VALIDATION_ERROR');
  });

  it('rejects fields other than title without echoing their values', async () => {
    const reply = await send(app.url, [...fieldPart('owner', 'secret-value'), ...filePart('file', 'a.pdf', 'application/pdf', PDF), ...closing()]);
    expect(reply.status).to.equal(400);
    expect(reply.body).to.have.nested.property('error.code', 'VALIDATION_ERROR');
    expect(JSON.stringify(reply.body)).not.to.contain('secret-value');
  });

  it('rejects a title over its limit', async () => {
    const reply = await send(app.url, [...fieldPart('title', 'x'.repeat(5000)), ...filePart('file', 'a.pdf', 'application/pdf', PDF), ...closing()]);
    expect(reply.body).to.have.nested.property('error.code', 'VALIDATION_ERROR');
  });

  it('rejects a body that is not multipart', async () => {
    const reply = await new Promise<Reply>((resolve, reject) => {
      const req = http.request(app.url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(reply.status).to.equal(400);
    expect(reply.body).to.have.nested.property('error.code', 'VALIDATION_ERROR');
  });

  it('rejects a truncated multipart body', async () => {
    const reply = await send(app.url, [...filePart('file', 'a.pdf', 'application/pdf', PDF)]);
    expect(reply.body).to.have.nested.property('error.code', 'VALIDATION_ERROR');
  });
});
