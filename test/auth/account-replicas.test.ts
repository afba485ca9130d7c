/**
 * Replicas share the embedded Account through PostgreSQL: with no ACCOUNT_* settings, every app
 * on one database signs with the `account_keys` table's current key and verifies every key in
 * it, so each replica accepts the others' tokens — including a key created after it started
 * (one re-read on the unknown `kid`). Without CONFIRMATION_KEY they also share one generated
 * confirmation key (`shared_secrets`). PostgreSQL only: on SQLite both keys stay in the data
 * folder, which test/auth/account-key.test.ts, token-cli.test.ts and confirmation/state.test.ts cover.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { skipWithReason } from '../helpers/mocha.js';
import { decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { loadDatabaseAccountKey } from '../../src/auth/account-key.js';
import { loadConfirmationKey } from '../../src/api/confirmation/key.js';
import { seedDemoData } from '../../src/seed/index.js';
import { createTestSchema, openTestDatabase, startTestApp, DEMO, type TestApp, type TestSchema } from '../helpers/index.js';
import { startProbe } from './bearer-probe.js';

/** Replicas behind one load balancer share PUBLIC_URL (the issuer and the audiences). */
const PUBLIC_URL = 'http://finance.replicas.test';
const CLI = path.resolve('src/auth/token-cli.ts');

function startReplica(schema: TestSchema, overrides: { seedDemoData?: boolean; dataDir?: string } = {}): Promise<TestApp> {
  return startTestApp({
    config: { databaseUrl: schema.databaseUrl, publicUrl: PUBLIC_URL, accountIssuer: null, accountJwksUrl: null, confirmationKey: null, ...overrides },
  });
}

/** The person the replica's bearer middleware authenticated, or the HTTP status it refused with. */
async function authenticate(app: TestApp, token: string): Promise<string | number> {
  const probe = await startProbe(app.services.auth, 'mcp', app.services.limits);
  try {
    const res = await fetch(`${probe.url}/x`, { headers: { authorization: `Bearer ${token}` } });
    return res.status === 200 ? ((await res.json()) as { person: string }).person : res.status;
  } finally {
    await probe.close();
  }
}

async function readJwks(app: TestApp): Promise<JSONWebKeySet> {
  const res = await fetch(`http://127.0.0.1:${app.services.config.port}/.well-known/jwks.json`);
  expect(res.status).to.equal(200);
  return (await res.json()) as JSONWebKeySet;
}

function kidOf(token: string): string | undefined {
  return decodeProtectedHeader(token).kid;
}

function runTokenCli(env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('replicas share the embedded Account through the database (no ACCOUNT_* settings)', function () {
  this.timeout(60_000);
  const cleanups: Array<() => Promise<void>> = [];

  beforeEach(function () {
    if (!process.env.DATABASE_URL) skipWithReason(this, 'DATABASE_URL is unset; replicas share the Account through PostgreSQL only');
  });
  afterEach(async () => {
    // Apps before the schema they share: the last registered closes first.
    while (cleanups.length > 0) await (cleanups.pop() as () => Promise<void>)();
  });

  async function sharedSchema(): Promise<TestSchema> {
    const schema = await createTestSchema();
    cleanups.push(() => schema.drop());
    return schema;
  }
  function track(app: TestApp): TestApp {
    cleanups.push(() => app.close());
    return app;
  }

  it('a token minted by replica A is accepted by replica B, and the other way round', async () => {
    const schema = await sharedSchema();
    const a = track(await startReplica(schema));
    const b = track(await startReplica(schema));
    const fromA = await a.mintToken({ person: 'ana@demo.test' });
    const fromB = await b.mintToken({ person: 'bruno@demo.test' });
    expect(await authenticate(b, fromA)).to.equal(DEMO.persons.ana);
    expect(await authenticate(a, fromB)).to.equal(DEMO.persons.bruno);
    expect(kidOf(fromA)).to.equal(kidOf(fromB));
    const jwks = await readJwks(b);
    expect(jwks).to.deep.equal(await readJwks(a));
    expect(jwks.keys.map((k) => k.kid)).to.deep.equal([kidOf(fromA)]);
    expect(jwks.keys[0]).to.not.have.property('d');
  });

  it('replicas starting at once end with one key', async () => {
    const schema = await sharedSchema();
    const [a, b] = await Promise.all([startReplica(schema, { seedDemoData: false }), startReplica(schema, { seedDemoData: false })]);
    track(a as TestApp);
    track(b as TestApp);
    await seedDemoData((a as TestApp).services.db);
    const rows = await (a as TestApp).services.db.selectFrom('account_keys').select(['kid', 'retired_at']).execute();
    expect(rows).to.have.length(1);
    const fromA = await (a as TestApp).mintToken({ person: 'ana@demo.test' });
    const fromB = await (b as TestApp).mintToken({ person: 'ana@demo.test' });
    expect([kidOf(fromA), kidOf(fromB)]).to.deep.equal([rows[0]?.kid, rows[0]?.kid]);
    expect(await authenticate(b as TestApp, fromA)).to.equal(DEMO.persons.ana);
    expect(await authenticate(a as TestApp, fromB)).to.equal(DEMO.persons.ana);
  });

  it('concurrent first loads on separate connections agree on one stored key', async () => {
    const store = await openTestDatabase({ seed: false });
    cleanups.push(() => store.close());
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadDatabaseAccountKey(store.db, ':memory:')));
    expect(new Set(keys.map((k) => k.kid)).size).to.equal(1);
    expect(await store.db.selectFrom('account_keys').select('kid').execute()).to.deep.equal([{ kid: keys[0]?.kid }]);
  });

  it('replicas with no CONFIRMATION_KEY seal confirmations with one generated key from the database', async () => {
    const store = await openTestDatabase({ seed: false });
    cleanups.push(() => store.close());
    const dirs = Array.from({ length: 4 }, (_, i) => path.join(os.tmpdir(), `kobana-no-such-folder-${process.pid}-${i}`));
    const keys = await Promise.all(dirs.map((dataDir) => loadConfirmationKey({ confirmationKey: null, dataDir }, store.db)));
    expect(new Set(keys.map((k) => Buffer.from(k).toString('base64url'))).size).to.equal(1);
    expect(keys[0]).to.have.length(32);
    expect(await store.db.selectFrom('shared_secrets').select('name').execute()).to.deep.equal([{ name: 'confirmation-key' }]);
    for (const dataDir of dirs) await fs.access(dataDir).then(() => expect.fail('a data folder was written'), () => undefined);
    const override = randomBytes(32).toString('base64url');
    expect(Buffer.from(await loadConfirmationKey({ confirmationKey: override, dataDir: dirs[0] as string }, store.db)).toString('base64url')).to.equal(override);
  });

  it('a key created by a replica started later is accepted after one re-read, and the old key keeps verifying', async () => {
    const schema = await sharedSchema();
    const a = track(await startReplica(schema));
    const before = await a.mintToken({ person: 'ana@demo.test' });
    // Rotation: the current key stops signing; the next replica to start creates the new one.
    await a.services.db.updateTable('account_keys').set({ retired_at: new Date().toISOString() }).where('retired_at', 'is', null).execute();
    const c = track(await startReplica(schema));
    const fromC = await c.mintToken({ person: 'bruno@demo.test' });
    expect(kidOf(fromC)).to.not.equal(kidOf(before));
    expect(await authenticate(a, fromC)).to.equal(DEMO.persons.bruno);
    expect(await authenticate(c, before)).to.equal(DEMO.persons.ana);
    expect((await readJwks(a)).keys.map((k) => k.kid)).to.have.members([kidOf(before), kidOf(fromC)]);
  });

  it('imports a data folder key into an empty table, so tokens it signed stay valid', async () => {
    const schema = await sharedSchema();
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-replica-'));
    cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
    // A single-folder deployment: the server ran on SQLite in dataDir first (creating its key file).
    const folder = track(await startTestApp({ config: { databaseUrl: null, dataDir, publicUrl: PUBLIC_URL } }));
    const old = await folder.mintToken({ person: 'ana@demo.test' });
    await folder.close();
    const a = track(await startReplica(schema, { dataDir }));
    expect(await authenticate(a, old)).to.equal(DEMO.persons.ana);
    expect(kidOf(await a.mintToken({ person: 'ana@demo.test' }))).to.equal(kidOf(old));
  });

  it('npm run token with DATABASE_URL mints with the database key, from any data folder', async () => {
    const schema = await sharedSchema();
    const a = track(await startReplica(schema));
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-replica-cli-'));
    cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: schema.databaseUrl ?? '', DATA_DIR: dataDir, PUBLIC_URL };
    delete env.ACCOUNT_ISSUER;
    delete env.ACCOUNT_JWKS_URL;
    delete env.CONFIRMATION_KEY;
    const result = await runTokenCli(env, ['--person', 'ana@demo.test']);
    expect(result.stderr).to.equal('');
    expect(result.code).to.equal(0);
    expect(await authenticate(a, result.stdout.trim())).to.equal(DEMO.persons.ana);
    await fs.access(path.join(dataDir, 'account-key.json')).then(() => expect.fail('the CLI wrote a key file'), () => undefined);
  });
});
