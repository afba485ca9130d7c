import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { startTestApp, DEMO, type TestApp } from '../helpers/index.js';
import { startProbe, type Probe } from './bearer-probe.js';
import { checkScopes, checkTtl, formatTtl, parseArgs, parseTtl, tokenCommandFor } from '../../src/auth/token-args.js';
import { MintError } from '../../src/auth/mint.js';
import { runTokenCommand } from '../../src/auth/token-cli.js';
import { PACKAGE_ROOT } from '../../src/package-root.js';
import { freePort } from '../helpers/ports.js';

const PUBLIC_URL = 'http://kobana.test:3000';
const CLI = path.resolve('src/auth/token-cli.ts');
/** tsx by URL, so `--import` finds it from any working folder. */
const TSX = import.meta.resolve('tsx');

interface CliResult { code: number | null; stdout: string; stderr: string }
interface CliOptions { env?: Record<string, string | undefined>; cwd?: string }

/**
 * The environment the token command gets: this process's, with SQLite in dataDir and PUBLIC_URL;
 * `env` overrides PUBLIC_URL and friends (a value of undefined removes the variable).
 */
function cliEnvironment(dataDir: string, options: CliOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PUBLIC_URL, ...options.env };
  for (const [name, value] of Object.entries(options.env ?? {})) if (value === undefined) delete env[name];
  delete env.DATABASE_URL;
  delete env.ACCOUNT_ISSUER;
  delete env.ACCOUNT_JWKS_URL;
  delete env.TOKEN_MAX_LIFETIME_SECONDS;
  if (options.env?.TOKEN_MAX_LIFETIME_SECONDS) env.TOKEN_MAX_LIFETIME_SECONDS = options.env.TOKEN_MAX_LIFETIME_SECONDS;
  return env;
}

/** Runs the token command in this process (`runTokenCommand`), collecting what it prints. */
async function runTokenCli(dataDir: string, args: string[], options: CliOptions = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const output = { stdout: { write: (text: string) => { stdout += text; } }, stderr: { write: (text: string) => { stderr += text; } } };
  const code = await runTokenCommand(args, cliEnvironment(dataDir, options), output);
  return { code, stdout, stderr };
}

/**
 * Runs the token command as a process (src/auth/token-cli.ts through tsx, as the tests run src/)
 * on this Node, in the working folder `cwd`: the wiring of the script to `runTokenCommand`.
 */
function spawnTokenCli(dataDir: string, args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], { env: cliEnvironment(dataDir, options), cwd: options.cwd ?? PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
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

  it('refuses a --ttl above TOKEN_MAX_LIFETIME_SECONDS (the server would refuse the token), naming the limit and the variable', async () => {
    for (const ttl of ['31d', '3650d']) {
      const result = await runTokenCli(dataDir, ['--person', 'ana@demo.test', '--ttl', ttl]);
      expect(result.code, ttl).to.equal(1);
      expect(result.stdout, ttl).to.equal('');
      expect(result.stderr, ttl).to.equal(`--ttl ${ttl} is longer than the server accepts: at most 30d (TOKEN_MAX_LIFETIME_SECONDS=2592000).\n`);
    }
  });

  it('reads TOKEN_MAX_LIFETIME_SECONDS as the server does: a lower maximum refuses a default one-hour token', async () => {
    const result = await runTokenCli(dataDir, ['--person', 'ana@demo.test'], { env: { TOKEN_MAX_LIFETIME_SECONDS: '600' } });
    expect(result.code).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.contain('--ttl 1h is longer than the server accepts: at most 10m (TOKEN_MAX_LIFETIME_SECONDS=600)');
  });

  it('refuses unknown scopes by name, listing the scopes there are (a token for them would reach nothing)', async () => {
    const result = await runTokenCli(dataDir, ['--person', 'ana@demo.test', '--scope', 'finance.everything']);
    expect(result.code).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.match(/^Unknown scope "finance\.everything"\. Scopes: finance\.all finance\.all\.write /);
    const mixed = await runTokenCli(dataDir, ['--person', 'ana@demo.test', '--scope', 'finance.payables finance.payable.write finance.al']);
    expect(mixed.code).to.equal(1);
    expect(mixed.stdout).to.equal('');
    expect(mixed.stderr).to.match(/^Unknown scopes "finance\.payable\.write", "finance\.al"\./);
  });

  it('refuses an empty --scope', async () => {
    const result = await runTokenCli(dataDir, ['--person', 'ana@demo.test', '--scope', ' ']);
    expect(result.code).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.match(/^--scope is empty/);
  });

  it('refuses a person whose membership is inactive (the server would answer membership_inactive to every call)', async () => {
    const result = await runTokenCli(dataDir, ['--person', 'carla@demo.test']);
    expect(result.code).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.match(/membership is inactive/);
    expect(result.stderr).to.not.contain('carla');
  });

  it('reads PORT and a relative DATA_DIR as the server does, from any working folder (the command as a process)', async () => {
    // DATA_DIR relative to the project folder, run from another folder: the store lands where
    // the server (which resolves it the same way) looks for it, not under the working folder.
    // The one case run as a process: it proves the script calls runTokenCommand with the
    // process's arguments, environment, streams and exit code.
    const relative = path.relative(PACKAGE_ROOT, dataDir);
    const elsewhere = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-cwd-'));
    try {
      const result = await spawnTokenCli(relative, ['--person', 'ana@demo.test'], { cwd: elsewhere, env: { PUBLIC_URL: undefined, PORT: '4321' } });
      expect(result.stderr).to.equal('');
      expect(result.code).to.equal(0);
      expect(decodeJwt(result.stdout.trim())).to.include({ iss: 'http://localhost:4321', aud: 'http://localhost:4321/mcp' });
      expect(await fs.readdir(elsewhere)).to.deep.equal([]);
    } finally {
      await fs.rm(elsewhere, { recursive: true, force: true });
    }
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

describe('the start-up banner\'s token command (src/main.ts)', function () {
  this.timeout(120_000);

  it('prints the exact command, with PORT and DATA_DIR, and that command run as printed mints a token the server accepts', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-banner-'));
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'PUBLIC_URL', 'ACCOUNT_ISSUER', 'ACCOUNT_JWKS_URL', 'TOKEN_MAX_LIFETIME_SECONDS']) delete env[name];
    const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: PACKAGE_ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const command = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /Mint a token: (.+)\n/.exec(out);
          if (match) resolve(match[1] as string);
        });
        server.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
      });
      expect(command).to.equal(`PORT=${port} DATA_DIR=${dataDir} npm run -s token -- --person ana@demo.test --scope "finance.all.write"`);
      // As a person would paste it, from a folder of the project other than its root. npm runs
      // the built command (dist/), which `npm run build` produced before the tests in CI.
      const minted = spawnSync('bash', ['-c', command], { cwd: path.join(PACKAGE_ROOT, 'src'), env: { ...env, PORT: undefined, DATA_DIR: undefined }, encoding: 'utf8' });
      expect(minted.status, minted.stderr).to.equal(0);
      const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${minted.stdout.trim()}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(res.status).to.equal(200);
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => (server.exitCode === null ? server.once('exit', resolve) : resolve(null)));
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('tokenCommandFor(config): the command the banner prints', () => {
  const root = '/srv/kobana';
  it('is the bare command on the defaults', () => {
    expect(tokenCommandFor({ port: 3000, publicUrl: 'http://localhost:3000', dataDir: '/srv/kobana/data' }, root))
      .to.equal('npm run -s token -- --person ana@demo.test --scope "finance.all.write"');
  });
  it('names PUBLIC_URL when it is set (the port then does not matter), and quotes values a shell would split', () => {
    expect(tokenCommandFor({ port: 8080, publicUrl: 'https://finance.example.com', dataDir: '/var/lib/kobana data' }, root))
      .to.equal(`PUBLIC_URL=https://finance.example.com DATA_DIR='/var/lib/kobana data' npm run -s token -- --person ana@demo.test --scope "finance.all.write"`);
  });
});

describe('the checks of npm run token', () => {
  it('checkScopes accepts every scope the server knows and refuses others', () => {
    expect(() => checkScopes('finance.all.write finance.security.write finance.money.write')).to.not.throw();
    expect(() => checkScopes('finance.everything')).to.throw(MintError, 'Unknown scope "finance.everything"');
    expect(() => checkScopes('FINANCE.ALL')).to.throw(MintError, 'Unknown scope');
  });
  it('checkTtl allows the maximum itself and refuses one second more', () => {
    expect(() => checkTtl(2_592_000, 2_592_000)).to.not.throw();
    expect(() => checkTtl(2_592_001, 2_592_000)).to.throw(MintError, 'at most 30d');
    expect(() => checkTtl(0, 2_592_000)).to.throw(MintError);
  });
  it('formatTtl picks the largest exact unit', () => {
    expect([formatTtl(2_592_000), formatTtl(5400), formatTtl(3600), formatTtl(61)]).to.deep.equal(['30d', '90m', '1h', '61s']);
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

  for (const args of [[], ['--person'], ['--bogus', 'x'], ['--person', 'a@b', '--aud', 'web'], ['--person', 'a@b', '--type', 'robot'], ['--person', 'a@b', '--ttl', 'soon'], ['--person', 'a@b', '--scope', 'finance.everything']]) {
    it(`rejects ${JSON.stringify(args)}`, () => {
      expect(() => parseArgs(args)).to.throw(MintError);
    });
  }
});
