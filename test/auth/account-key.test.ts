import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadAccountKey, buildJwks } from '../../src/auth/account-key.js';

describe('loadAccountKey(dataDir)', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-key-'));
  });
  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('creates an ES256 key on first start and reuses it afterwards', async () => {
    const first = await loadAccountKey(dataDir);
    const second = await loadAccountKey(dataDir);
    expect(second.kid).to.equal(first.kid);
    expect(second.publicJwk).to.deep.equal(first.publicJwk);
    const stat = await fs.stat(path.join(dataDir, 'account-key.json'));
    expect(stat.mode & 0o777).to.equal(0o600);
  });

  it('agrees on one key when several processes start at once', async () => {
    const keys = await Promise.all(Array.from({ length: 5 }, () => loadAccountKey(dataDir)));
    expect(new Set(keys.map((k) => k.kid)).size).to.equal(1);
  });

  it('publishes only the public half in the JWKS', async () => {
    const jwks = buildJwks(await loadAccountKey(dataDir));
    expect(jwks.keys[0]).to.not.have.property('d');
    expect(jwks.keys[0]).to.include({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
  });

  it('refuses a key file that is not an ES256 private key', async () => {
    await fs.writeFile(path.join(dataDir, 'account-key.json'), JSON.stringify({ kty: 'oct', k: 'c2VjcmV0' }));
    const caught = await loadAccountKey(dataDir).then(() => undefined, (err: unknown) => err);
    expect(caught).to.be.instanceOf(Error);
    expect((caught as Error).message).to.match(/not an ES256 private key/);
  });

  it('keeps a key in memory only for a :memory: data dir', async () => {
    const key = await loadAccountKey(':memory:');
    expect(key.kid).to.be.a('string');
    await fs.access(path.join(process.cwd(), ':memory:')).then(() => expect.fail('a :memory: directory was created'), () => undefined);
  });
});
