/**
 * The sealed confirmation state: canonical argument digests, JWE seal/open (tamper, wrong key,
 * expiry, malformed), and the key loader (config key, generated 0600 file reused, in memory).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { canonicalizeJson, digestArguments } from '../../src/api/confirmation/canonical-args.js';
import { CONFIRMATION_KEY_FILE, loadConfirmationKey } from '../../src/api/confirmation/key.js';
import { InvalidConfirmationState, createNonce, openState, sealState, type ConfirmationClaims } from '../../src/api/confirmation/state.js';

const claims: ConfirmationClaims = {
  tool: 'finance_payables_settle', argsDigest: digestArguments({ id: 'x' }), personId: 'p', organizationId: 'o',
  workspaceId: 'w', version: 3, nonce: createNonce(), expiresAt: 2_000_000_000,
};

async function expectFault(promise: Promise<unknown>, fault: string): Promise<void> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).to.be.instanceOf(InvalidConfirmationState);
  expect((error as InvalidConfirmationState).fault).to.equal(fault);
}

describe('canonicalizeJson() / digestArguments()', function () {
  it('sorts keys at every depth and keeps array order', function () {
    expect(canonicalizeJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).to.equal('{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
  });
  it('digests equal arguments alike whatever the key order, and differently for any other value', function () {
    expect(digestArguments({ a: 1, b: '2' })).to.equal(digestArguments({ b: '2', a: 1 }));
    expect(digestArguments({ a: 1, b: '2' })).to.not.equal(digestArguments({ a: 1, b: 2 }));
    expect(digestArguments({ a: 1 })).to.not.equal(digestArguments({ a: 1, idempotency_key: 'k' }));
    expect(digestArguments({ a: [1, 2] })).to.not.equal(digestArguments({ a: [2, 1] }));
  });
});

describe('sealState() / openState()', function () {
  const key = new Uint8Array(randomBytes(32));

  it('round-trips every bound claim, and the token does not show them in clear', async function () {
    const token = await sealState(key, claims);
    expect(token).to.not.include(claims.nonce);
    expect(token.split('.')).to.have.length(5);
    expect(await openState(key, token, 1_900_000_000)).to.deep.equal(claims);
  });
  it('keeps version null (transfers)', async function () {
    expect((await openState(key, await sealState(key, { ...claims, version: null }), 0)).version).to.equal(null);
  });
  it('draws a fresh 128-bit nonce each time', function () {
    expect(Buffer.from(createNonce(), 'base64url')).to.have.length(16);
    expect(createNonce()).to.not.equal(createNonce());
  });
  it('refuses a tampered token as malformed', async function () {
    const token = await sealState(key, claims);
    const parts = token.split('.');
    const cipher = Buffer.from(parts[3] ?? '', 'base64url');
    cipher[0] = (cipher[0] ?? 0) ^ 1;
    parts[3] = cipher.toString('base64url');
    await expectFault(openState(key, parts.join('.'), 0), 'malformed');
  });
  it('refuses a token sealed with another key', async function () {
    await expectFault(openState(key, await sealState(new Uint8Array(randomBytes(32)), claims), 0), 'malformed');
  });
  it('refuses an expired token', async function () {
    await expectFault(openState(key, await sealState(key, claims), claims.expiresAt), 'expired');
  });
  for (const token of ['', 'abc', 'a.b.c.d.e', 42, null, 'x'.repeat(5000)]) {
    it(`refuses ${JSON.stringify(token).slice(0, 20)} as malformed`, async function () {
      await expectFault(openState(key, token, 0), 'malformed');
    });
  }
});

describe('loadConfirmationKey()', function () {
  let dir: string;
  beforeEach(async function () {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-ckey-'));
  });
  afterEach(async function () {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('decodes CONFIRMATION_KEY and writes no file', async function () {
    const text = randomBytes(32).toString('base64url');
    expect(Buffer.from(await loadConfirmationKey({ confirmationKey: text, dataDir: dir })).toString('base64url')).to.equal(text);
    expect(await fs.readdir(dir)).to.deep.equal([]);
  });
  it('generates a 0600 key file in the data folder once and reuses it', async function () {
    const first = await loadConfirmationKey({ confirmationKey: null, dataDir: dir });
    const stat = await fs.stat(path.join(dir, CONFIRMATION_KEY_FILE));
    expect(stat.mode & 0o777).to.equal(0o600);
    expect(first).to.have.length(32);
    expect(Buffer.from(await loadConfirmationKey({ confirmationKey: null, dataDir: dir })).equals(Buffer.from(first))).to.equal(true);
  });
  it('agrees on one key when two loaders race on an empty folder', async function () {
    const [a, b] = await Promise.all([
      loadConfirmationKey({ confirmationKey: null, dataDir: dir }),
      loadConfirmationKey({ confirmationKey: null, dataDir: dir }),
    ]);
    expect(Buffer.from(a).equals(Buffer.from(b))).to.equal(true);
  });
  it('rejects a key file that is not 32 bytes', async function () {
    await fs.writeFile(path.join(dir, CONFIRMATION_KEY_FILE), 'short');
    const error = await loadConfirmationKey({ confirmationKey: null, dataDir: dir }).then(() => null, (e: unknown) => e);
    expect(String(error)).to.match(/32 bytes/);
  });
  it('keeps an in-memory key when the data folder is :memory:', async function () {
    expect(await loadConfirmationKey({ confirmationKey: null, dataDir: ':memory:' })).to.have.length(32);
  });
});
