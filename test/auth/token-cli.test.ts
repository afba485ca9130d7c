import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { startTestApp, DEMO, type TestApp } from '../helpers/index.js';
import { startProbe, type Probe } from './bearer-probe.js';
import { parseArgs, parseTtl } from '../../src/auth/token-args.js';
import { MintError } from '../../src/auth/mint.js';

const PUBLIC_URL = 'http://kobana.test:3000';
const CLI = path.resolve('src/auth/token-cli.ts');

interface CliResult { code: number | null; stdout: string; stderr: string }

/** Runs `npm run token -- …` the way the script does (tsx), on this Node, with SQLite in dataDir. */
function runTokenCli(dataDir: string, args: string[]): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PUBLIC_URL };
  delete env.DATABASE_URL;
  delete env.ACCOUNT_ISSUER;
  delete env.ACCOUNT_JWKS_URL;
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

describe('npm run token (src/auth/token-cli.ts)', function () {
  this.timeout(60_000);
  let dataDir: string;

  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-cli-'));
  });
  after(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('prints only a token that a server on the same DATA_DIR accepts', async () => {
    const result = await runTokenCli(dataDir, ['--person', 'ana@demo.test', '--scope', 'finance.all.write', '--aud', 'api', '--ttl', '2h']);
    expect(result.stderr).to.equal('');
    expect(result.code).to.equal(0);
    expect(result.stdout).to.match(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const token = result.stdout.trim();
    const claims = decodeJwt(token);
    expect(claims).to.include({ sub: DEMO.persons.ana, org: DEMO.organizationId, scope: 'finance.all.write', token_type: 'personal', iss: PUBLIC_URL, aud: `${PUBLIC_URL}/v1` });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).to.equal(7200);
    await fs.access(path.join(dataDir, 'kobana.sqlite'));
    await fs.access(path.join(dataDir, 'account-key.json'));

    let app: TestApp | undefined;
    let probe: Probe | undefined;
    try {
      app = await startTestApp({ config: { dataDir, databaseUrl: null, publicUrl: PUBLIC_URL } });
      probe = await startProbe(app.services.auth, 'api', app.services.limits);
      const res = await fetch(`${probe.url}/x`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).to.equal(200);
      expect((await res.json()).person).to.equal(DEMO.persons.ana);
    } finally {
      await probe?.close();
      await app?.close();
    }
  });

  it('refuses a --ttl above TOKEN_MAX_LIFETIME_SECONDS (the server would refuse the token), naming the variable', async () => {
    const result = await runTokenCli(dataDir, ['--person', 'ana@demo.test', '--ttl', '31d']);
    expect(result.code).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.match(/TOKEN_MAX_LIFETIME_SECONDS \(2592000 s\)/);
  });

  it('mints finance.security.write when asked, and the server lets that token reach the Seguridad settings', async () => {
    const result = await runTokenCli(dataDir, ['--person', 'ana@demo.test', '--scope', 'finance.all.write finance.security.write', '--aud', 'api']);
    expect(result.stderr).to.equal('');
    expect(result.code).to.equal(0);
    const token = result.stdout.trim();
    expect(decodeJwt(token)).to.include({ sub: DEMO.persons.ana, scope: 'finance.all.write finance.security.write', aud: `${PUBLIC_URL}/v1` });
    const allOnly = (await runTokenCli(dataDir, ['--person', 'ana@demo.test', '--scope', 'finance.all.write', '--aud', 'api'])).stdout.trim();

    let app: TestApp | undefined;
    try {
      app = await startTestApp({ config: { dataDir, databaseUrl: null, publicUrl: PUBLIC_URL } });
      // The tokens' audience names PUBLIC_URL; the request goes to the test app's real address.
      const address = app.services.config.port;
      const patch = (bearer: string) => fetch(`http://127.0.0.1:${address}/v1/security-settings`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${bearer}`, 'x-workspace-id': DEMO.workspaces.matriz, 'content-type': 'application/json' },
        body: JSON.stringify({ blocked: { mcp: [] } }),
      });
      const ok = await patch(token);
      expect(ok.status, await ok.clone().text()).to.equal(200);
      const refused = await patch(allOnly);
      expect(refused.status).to.equal(403);
      expect((await refused.json()).error.code).to.equal('insufficient_scope');
    } finally {
      await app?.close();
    }
  });

  it('defaults to a personal finance.all token for /mcp valid one hour', async () => {
    const result = await runTokenCli(dataDir, ['--person', 'bruno@demo.test']);
    expect(result.code).to.equal(0);
    const claims = decodeJwt(result.stdout.trim());
    expect(claims).to.include({ sub: DEMO.persons.bruno, scope: 'finance.all', token_type: 'personal', aud: `${PUBLIC_URL}/mcp` });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).to.equal(3600);
  });

  it('exits 1 with a clear message and no stdout for an unknown person', async () => {
    const result = await runTokenCli(dataDir, ['--person', 'nobody@demo.test']);
    expect(result.code).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.match(/No person with that email/);
    expect(result.stderr).to.not.contain('nobody@demo.test');
  });

  it('refuses an OAuth token with write scopes', async () => {
    const result = await runTokenCli(dataDir, ['--person', 'ana@demo.test', '--type', 'oauth', '--scope', 'finance.payables.write']);
    expect(result.code).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.match(/read scopes only/);
  });

  it('exits 1 with the usage for an unknown flag', async () => {
    const result = await runTokenCli(dataDir, ['--bogus', 'x']);
    expect(result.code).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.contain('usage: npm run token');
  });
});

describe('parseArgs(argv) of npm run token', () => {
  it('reads every flag and converts the ttl', () => {
    expect(parseArgs(['--person', 'ana@demo.test', '--scope', 'finance.all.write', '--type', 'oauth', '--aud', 'api', '--ttl', '30m']))
      .to.deep.equal({ person: 'ana@demo.test', scope: 'finance.all.write', type: 'oauth', aud: 'api', ttlSeconds: 1800 });
  });

  it('converts ttl units', () => {
    expect([parseTtl('90'), parseTtl('90s'), parseTtl('2m'), parseTtl('1h'), parseTtl('7d')]).to.deep.equal([90, 90, 120, 3600, 604_800]);
  });

  for (const args of [[], ['--person'], ['--bogus', 'x'], ['--person', 'a@b', '--aud', 'web'], ['--person', 'a@b', '--type', 'robot'], ['--person', 'a@b', '--ttl', 'soon']]) {
    it(`rejects ${JSON.stringify(args)}`, () => {
      expect(() => parseArgs(args)).to.throw(MintError);
    });
  }
});
