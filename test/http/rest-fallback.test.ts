import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/index.js';

describe('renderRestFallbacks()', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  it('answers an unknown /v1 path with the JSON error envelope and 404', async () => {
    const res = await fetch(`${app.url}/v1/nothing-here`);
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(await res.json()).to.deep.equal({ error: { code: 'NOT_FOUND', message: 'No such API route.' } });
  });

  it('answers a wrong method on a /v1 route with the JSON error envelope, 405 and Allow', async () => {
    const res = await fetch(`${app.url}/v1/workspaces`, { method: 'PUT' });
    expect(res.status).to.equal(405);
    expect(res.headers.get('allow')).to.include('GET');
    expect(await res.json()).to.deep.equal({ error: { code: 'method_not_allowed', message: 'Method not allowed on this route.' } });
  });

  it('leaves paths outside /v1 to their own surfaces', async () => {
    const res = await fetch(`${app.url}/v10/payables`);
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type') ?? '').to.not.match(/json/);
  });
});
