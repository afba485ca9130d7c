/**
 * Smoke test with `@modelcontextprotocol/inspector-cli` (its `mcp-inspector-cli` bin, CLI mode,
 * Streamable HTTP transport, bearer header): `tools/list` and one `tools/call` against the real
 * app, parsing the JSON it prints. The inspector connects with the v1 SDK it bundles, so this
 * is also a third-party client in the 2025 era.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { DEMO } from '../../src/seed/ids.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { countPendingPayables } from './support.js';
import { runConnectingProcess } from '../helpers/connection-retry.js';

const CLI = path.resolve('node_modules/@modelcontextprotocol/inspector-cli/build/cli.js');

interface CliRun { code: number | null; stdout: string; stderr: string }

/**
 * Runs the inspector CLI against `url` with the token as a bearer header (loopback only); a run
 * that failed to connect (reset or refused: a loaded machine) runs again, any other is returned.
 */
function runInspector(url: string, token: string, methodArgs: readonly string[]): Promise<CliRun> {
  return runConnectingProcess(() => runInspectorOnce(url, token, methodArgs));
}

function runInspectorOnce(url: string, token: string, methodArgs: readonly string[]): Promise<CliRun> {
  const args = [
    CLI, '--cli', `${url}/mcp`, '--transport', 'http',
    '--header', `Authorization: Bearer ${token}`,
    '--header', `X-Workspace-Id: ${DEMO.workspaces.matriz}`,
    ...methodArgs,
  ];
  return new Promise((resolve, reject) => {
    // cli.js re-spawns `node` from PATH for its CLI half; ours (Node 20) is first on it.
    // cwd: inspector-cli 1.0.3 probes `../package.json` relative to the working directory but
    // imports it relative to build/index.js, so anywhere else it fails to start.
    const child = spawn(process.execPath, args, {
      cwd: path.dirname(CLI),
      env: { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The JSON document the CLI prints on stdout (anything before the first `{` is not ours to parse). */
function parseOutput(run: CliRun): Record<string, unknown> {
  expect(run.code, run.stderr).to.equal(0);
  const start = run.stdout.indexOf('{');
  expect(start, run.stdout).to.be.at.least(0);
  return JSON.parse(run.stdout.slice(start)) as Record<string, unknown>;
}

describe('mcp-inspector-cli --cli against /mcp', function () {
  this.timeout(60_000);
  let app: TestApp;
  let token: string;

  before(async function () {
    app = await startTestApp();
    token = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all' });
  });
  after(async () => app?.close());

  it('lists the tools the token reaches with --method tools/list', async function () {
    const output = parseOutput(await runInspector(app.url, token, ['--method', 'tools/list']));
    const tools = output['tools'] as { name: string; inputSchema: { type: string } }[];
    const names = tools.map((tool) => tool.name);
    expect(names).to.include('finance_payables_list');
    // A read-only token: no write tool is offered.
    expect(names).to.not.include('finance_payables_cancel');
    expect(names).to.deep.equal([...names].sort());
    expect(tools).to.not.be.empty;
    for (const tool of tools) expect(tool.inputSchema.type).to.equal('object');
  });

  it('calls finance_payables_list with --method tools/call and JSON tool arguments', async function () {
    const output = parseOutput(await runInspector(app.url, token, [
      '--method', 'tools/call', '--tool-name', 'finance_payables_list',
      '--tool-arg', 'limit=100', '--tool-arg', 'filters={"status":"pending"}', '--tool-arg', 'fields=["status"]',
    ]));
    expect(output['isError'], JSON.stringify(output)).to.not.equal(true);
    const content = output['content'] as { type: string; text: string }[];
    expect(content[0]?.type).to.equal('text');
    const body = JSON.parse(content[0]?.text ?? '{}') as { data: { id: string; status: string }[]; meta: { next_cursor: string | null } };
    expect(body.data).to.have.length(await countPendingPayables(app.services.db));
    expect(body.meta.next_cursor).to.equal(null);
    expect(body.data).to.not.be.empty;
    for (const row of body.data) expect(row).to.deep.equal({ id: row.id, status: 'pending' });
  });

  it('fails to connect, and exits non-zero, with a malformed token', async function () {
    const run = await runInspector(app.url, 'not-a-token', ['--method', 'tools/list']);
    expect(run.code).to.not.equal(0);
    // The SDK reports the server's 401 body; the product has no unauthenticated mode to fall back to.
    expect(`${run.stdout}${run.stderr}`).to.match(/Failed to connect to MCP server: .*bearer token is malformed/);
  });
});
