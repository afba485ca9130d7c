import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { ApiError } from '../../src/api/errors.js';
import { HttpError } from '../../src/http/errors.js';
import { buildContentDisposition, renderOutput, renderRestErrors, sanitizeFileName } from '../../src/http/rest-render.js';

describe('buildContentDisposition()', () => {
  const table: { given: [string, string]; want: string }[] = [
    { given: ['application/pdf', 'nota.pdf'], want: 'inline; filename="nota.pdf"; filename*=UTF-8\'\'nota.pdf' },
    { given: ['image/png', 'a b.png'], want: 'inline; filename="a b.png"; filename*=UTF-8\'\'a%20b.png' },
    { given: ['text/csv', 'extrato.csv'], want: 'attachment; filename="extrato.csv"; filename*=UTF-8\'\'extrato.csv' },
    { given: ['application/xml', 'São Paulo.xml'], want: 'attachment; filename="Sao Paulo.xml"; filename*=UTF-8\'\'S%C3%A3o%20Paulo.xml' },
    { given: ['application/pdf', '../../etc/"passwd".pdf'], want: 'inline; filename="_passwd_.pdf"; filename*=UTF-8\'\'%22passwd%22.pdf' },
    { given: ['text/csv', 'a\r\nSet-Cookie: x.csv'], want: 'attachment; filename="aSet-Cookie: x.csv"; filename*=UTF-8\'\'aSet-Cookie%3A%20x.csv' },
  ];
  for (const { given, want } of table) {
    it(`renders ${JSON.stringify(given)}`, () => expect(buildContentDisposition(...given)).to.equal(want));
  }

  it('falls back to "download" when nothing printable is left', () => {
    expect(sanitizeFileName('日本')).to.equal('download');
  });
});

describe('renderRestErrors / renderOutput', () => {
  let server: http.Server;
  let url: string;
  const logged: unknown[] = [];
  const throwers: Record<string, () => unknown> = {
    '/api': () => { throw new ApiError('RATE_LIMITED', 'Budget spent.', { retry_after_seconds: 2.5, limit: 100 }); },
    '/http': () => { throw new HttpError(401, 'Missing token.', { 'WWW-Authenticate': 'Bearer' }, 'missing'); },
    '/boom': () => { throw new Error('secret database detail'); },
  };
  before(async () => {
    const app = new Koa();
    app.use(async (ctx, next) => {
      ctx.state.log = { error: (obj: unknown) => logged.push(obj) };
      await next();
    });
    app.use(renderRestErrors);
    app.use(async (ctx) => {
      const thrower = throwers[ctx.path];
      if (thrower) thrower();
      if (ctx.path === '/file') {
        await renderOutput(ctx, { status: 200, file: { attachmentId: '', contentType: 'application/pdf', size: 4, fileName: 'x.pdf', sha256: '', downloadPath: '', bytes: async () => new Uint8Array([37, 80, 68, 70]) } });
      } else {
        await renderOutput(ctx, { status: 204, headers: { 'RateLimit-Remaining': '3' } });
      }
    });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('renders RATE_LIMITED as 429 with Retry-After and RateLimit-*', async () => {
    const res = await fetch(`${url}/api`);
    expect(res.status).to.equal(429);
    expect(res.headers.get('retry-after')).to.equal('3');
    expect(res.headers.get('ratelimit-limit')).to.equal('100');
    expect(res.headers.get('ratelimit-remaining')).to.equal('0');
    expect((await res.json()).error.code).to.equal('RATE_LIMITED');
  });

  it('renders an HttpError with its status, headers and a lowercase code', async () => {
    const res = await fetch(`${url}/http`);
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.equal('Bearer');
    expect(await res.json()).to.deep.equal({ error: { code: 'unauthorized', message: 'Missing token.' } });
  });

  it('renders anything else as 500 INTERNAL without detail, and logs the cause', async () => {
    const res = await fetch(`${url}/boom`);
    expect(res.status).to.equal(500);
    const text = await res.text();
    expect(JSON.parse(text)).to.deep.equal({ error: { code: 'INTERNAL', message: 'Internal error.' } });
    expect(text).not.to.contain('secret');
    expect(logged).to.have.length(1);
  });

  it('streams a file with its headers and no-store caching', async () => {
    const res = await fetch(`${url}/file`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/pdf');
    expect(res.headers.get('content-length')).to.equal('4');
    expect(res.headers.get('cache-control')).to.equal('private, no-store');
    expect(res.headers.get('content-disposition')).to.match(/^inline; filename="x.pdf"/);
    expect(Buffer.from(await res.arrayBuffer()).toString()).to.equal('%PDF');
  });

  it('answers 204 without a body and applies output headers', async () => {
    const res = await fetch(`${url}/none`);
    expect(res.status).to.equal(204);
    expect(res.headers.get('ratelimit-remaining')).to.equal('3');
    expect(await res.text()).to.equal('');
  });
});
