/**
 * The README works as written: every ```sh block (but the set-up one) runs, unchanged, in one
 * bash session against `npm start` on the README's port (3000), from the project folder, with
 * only DATA_DIR pointed at a temporary folder (for the server and the commands alike). The REST
 * and MCP examples must answer the same rows, the Inspector CLI must list the tools, and every
 * ```json snippet (of the README and of docs/clients.md, where the other clients' configurations
 * went) must parse. The set-up block (`npm install && npm start`, `npm test`) is what
 * `.ci/run` and `scripts/check-install.sh --fresh` run; it is not repeated here.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { PACKAGE_ROOT } from '../src/package-root.js';
import { skipWithReason } from './helpers/mocha.js';

const README_PORT = 3000;
const SETUP_BLOCK = 'npm install && npm start';

interface Block { lang: string; code: string }

function readBlocks(file = 'README.md'): Block[] {
  const readme = readFileSync(path.join(PACKAGE_ROOT, file), 'utf8');
  return [...readme.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1] as string, code: m[2] as string }));
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** The first JSON document on a line of `out` that satisfies `pick`. */
function findJsonLine<T>(out: string, pick: (doc: Record<string, unknown>) => boolean): T {
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const doc = JSON.parse(line) as Record<string, unknown>;
      if (pick(doc)) return doc as T;
    } catch { /* not a one-line document */ }
  }
  throw new Error(`no such JSON line in:\n${out}`);
}

describe('README.md, as written', function () {
  this.timeout(180_000);
  const blocks = readBlocks();

  it('has the set-up block, and every ```json snippet (README, docs/clients.md) parses', () => {
    expect(blocks.filter((b) => b.lang === 'sh' && b.code.includes(SETUP_BLOCK))).to.have.length(1);
    const json = [...blocks, ...readBlocks('docs/clients.md')].filter((b) => b.lang === 'json');
    expect(json.length).to.be.at.least(3);
    for (const block of json) expect(() => JSON.parse(block.code), block.code).to.not.throw();
  });

  describe('its shell blocks against `npm start`', () => {
    let dataDir: string;
    let server: ChildProcess | undefined;
    let serverLog = '';

    before(async function () {
      // The blocks name http://localhost:3000 as a person would; another server there is not ours.
      // The README's commands run the embedded default; `.ci/run` runs the replica-stack suite at
      // the same time, so only the embedded run may take the README's fixed port.
      if (process.env.DATABASE_URL) skipWithReason(this, 'the README runs the embedded default; the SQLite run of the suite covers it');
      if (!(await portIsFree(README_PORT))) skipWithReason(this, `port ${README_PORT} is in use; the README's commands name it`);
      dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-readme-'));
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
      for (const name of ['PORT', 'PUBLIC_URL', 'DATABASE_URL', 'REDIS_URL', 'ACCOUNT_ISSUER', 'ACCOUNT_JWKS_URL', 'TOKEN_MAX_LIFETIME_SECONDS']) delete env[name];
      server = spawn('npm', ['start'], { cwd: PACKAGE_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      server.stdout?.on('data', (chunk: Buffer) => { serverLog += chunk.toString(); });
      server.stderr?.on('data', (chunk: Buffer) => { serverLog += chunk.toString(); });
      const deadline = Date.now() + 150_000;
      for (;;) {
        if (server.exitCode !== null) throw new Error(`npm start exited with ${server.exitCode}:\n${serverLog}`);
        const ready = await fetch(`http://127.0.0.1:${README_PORT}/readyz`).then((r) => r.status === 200, () => false);
        if (ready) break;
        if (Date.now() > deadline) throw new Error(`npm start did not get ready:\n${serverLog}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });

    after(async () => {
      if (server?.pid !== undefined && server.exitCode === null) {
        // npm start → sh → node: signal the whole group this test started.
        process.kill(-server.pid, 'SIGTERM');
        await new Promise((resolve) => server?.once('exit', resolve));
      }
      if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
    });

    it('run in one bash session: REST and MCP answer the same rows, the Inspector lists the tools', () => {
      const script = blocks.filter((b) => b.lang === 'sh' && !b.code.includes(SETUP_BLOCK)).map((b) => b.code).join('\n');
      expect(script).to.contain('npm run -s token');
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
      for (const name of ['PORT', 'PUBLIC_URL', 'DATABASE_URL', 'TOKEN_MAX_LIFETIME_SECONDS']) delete env[name];
      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: PACKAGE_ROOT, env, encoding: 'utf8', timeout: 150_000 });
      expect(run.status, `${run.stderr}\n${run.stdout}`).to.equal(0);

      type Page = { data: Record<string, unknown>[]; meta: Record<string, unknown> };
      const rest = findJsonLine<Page>(run.stdout, (doc) => Array.isArray(doc['data']));
      const mcp = findJsonLine<{ result: { isError?: boolean; content: { type: string; text: string }[] } }>(run.stdout, (doc) => doc['jsonrpc'] === '2.0');
      expect(mcp.result.isError, JSON.stringify(mcp)).to.not.equal(true);
      const overMcp = JSON.parse(mcp.result.content[0]?.text ?? '{}') as Page;
      expect(rest.data.length, 'the demo data has pending payables due this week').to.be.greaterThan(0);
      expect(overMcp.data).to.deep.equal(rest.data);
      for (const row of rest.data) expect(Object.keys(row).sort()).to.deep.equal(['amount', 'description', 'due_date', 'id']);

      // The Inspector prints one indented document after the MCP example's line.
      const afterMcp = run.stdout.slice(run.stdout.indexOf('"jsonrpc"'));
      const inspectorOut = afterMcp.slice(afterMcp.indexOf('\n') + 1);
      const inspector = JSON.parse(inspectorOut.slice(inspectorOut.indexOf('{'))) as { tools: { name: string }[] };
      expect(inspector.tools.map((t) => t.name)).to.include('finance_payables_list');
    });
  });
});
