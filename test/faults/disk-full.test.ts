/**
 * A full disk is an outage, not a 500 (docs/operations.md#database-outages), on the database
 * under test, with the fault injected without privileges (test/faults/support/disk-full.ts):
 * SQLite `PRAGMA max_page_count` at the current page count, PostgreSQL SQLSTATE 53100 raised by
 * the server itself on every insert.
 *
 * - REST: 503 + Retry-After, `details.reason: "disk_full"`; MCP: HTTP 503 + Retry-After, -32003
 * - a destructive tool call already confirmed: the tool error `confirmation_unavailable`, nothing written
 * - the log names the failure's kind (SQLITE_FULL / 53100), never a message
 * - `/readyz` 503 while the write probe fails; the probe runs at most every 5 s of the app's
 *   clock; lifting the fault and moving the clock turns `/readyz` 200 and writes succeed again,
 *   with no restart
 * - a replica whose writes never failed runs no probe: `/readyz` writes nothing
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { observeQueries } from '../../src/store/db.js';
import { WRITE_PROBE_INTERVAL_MS } from '../../src/store/write-probe.js';
import { DEMO, startTestApp, type TestApp } from '../helpers/index.js';
import { createManualClock, type ManualClock } from '../helpers/clock.js';
import { ALL_WRITE, accept, callTool, expectInputRequired, expectSuccess, expectToolError, type CallAnswer } from '../confirmation/support.js';
import { injectDiskFull, writeUntilRefused, type DiskFault } from './support/disk-full.js';

const M = DEMO.workspaces.matriz;

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  // Checked field by field.
  readonly body: any;
}

type LogLine = Record<string, unknown>;

describe('a full disk is an outage (503 + Retry-After, disk_full), and /readyz probes writes until space is back', function () {
  this.timeout(60_000);
  let app: TestApp;
  let clock: ManualClock;
  let fault: DiskFault;
  let lines: LogLine[];
  let apiToken: string;
  let mcpToken: string;
  /** The kind the database under test reports for "no space left". */
  let spaceKind: string;

  beforeEach(async () => {
    clock = createManualClock();
    lines = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
    app = await startTestApp({ clock, logger });
    apiToken = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE, aud: 'api' });
    mcpToken = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
    fault = await injectDiskFull(app.services.db, app.services.dialect);
    spaceKind = app.services.dialect === 'sqlite' ? 'SQLITE_FULL' : '53100';
  });
  afterEach(async () => {
    await fault?.lift();
    await app?.close();
  });

  async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const response = await fetch(`${app.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiToken}`, 'x-workspace-id': M, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
  }

  function createAccount(index: number): Promise<Answer> {
    // Long names fill the pages left sooner; every create also writes its activity row.
    return send('POST', '/v1/accounts', { name: `Conta ${index} ${'x'.repeat(180)}`, type: 'checking' });
  }

  function createAccountByTool(index: number): Promise<Answer> {
    return send('POST', '/mcp', {
      jsonrpc: '2.0', id: index, method: 'tools/call',
      params: { name: 'finance_accounts_create', arguments: { workspace_id: M, name: `Conta ${index} ${'y'.repeat(180)}`, type: 'checking' } },
    }, { authorization: `Bearer ${mcpToken}`, 'mcp-protocol-version': '2025-06-18', accept: 'application/json' });
  }

  async function readyz(): Promise<Answer> {
    const response = await fetch(`${app.url}/readyz`);
    return { status: response.status, headers: response.headers, body: await response.json() };
  }

  function expectDiskFullRest(answer: Answer): void {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(503);
    expect(answer.headers.get('retry-after')).to.equal('2');
    // Our own sentence only: no driver message, no SQL, no parameters.
    expect(answer.body).to.deep.equal({
      error: { code: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable; retry shortly.', details: { retry_after_seconds: 2, reason: 'disk_full' } },
    });
  }

  function expectDiskFullMcp(answer: Answer, id: number): void {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(503);
    expect(answer.headers.get('retry-after')).to.equal('2');
    expect(answer.headers.get('cache-control')).to.equal('no-store');
    expect(answer.body).to.deep.equal({
      jsonrpc: '2.0', id,
      error: {
        code: -32003, message: 'The service is temporarily unavailable; retry shortly.',
        data: { error: { code: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable; retry shortly.', details: { retry_after_seconds: 2, reason: 'disk_full' } } },
      },
    });
  }

  /** The log lines saying `message`; none may carry an error object (its message or stack). */
  function logged(message: string): LogLine[] {
    expect(lines.filter((line) => 'err' in line), 'a log line carried an error object').to.deep.equal([]);
    return lines.filter((line) => line['msg'] === message);
  }

  it('REST: a write refused for lack of space answers 503 + Retry-After with details.reason disk_full, and the log names SQLITE_FULL / 53100', async () => {
    const { refused, written } = await writeUntilRefused(createAccount, (answer) => answer.status === 201);
    expectDiskFullRest(refused);
    const outages = logged('database unavailable: answered 503');
    expect(outages.map((line) => [line['db_error'], line['reason']])).to.deep.equal([[spaceKind, 'disk_full']]);
    // Nothing of the refused write was applied: the accounts created are those answered 201.
    const names = await app.services.db.selectFrom('accounts').select('name').where('workspace_id', '=', M).where('name', 'like', 'Conta %').execute();
    expect(names.length).to.equal(written);
  });

  it('MCP: a tools/call refused for lack of space answers HTTP 503 + Retry-After with -32003 and reason disk_full', async () => {
    const { refused, written } = await writeUntilRefused(createAccountByTool, (answer) => answer.status === 200 && answer.body.result !== undefined && answer.body.result.isError === undefined);
    expectDiskFullMcp(refused, written);
    expect(logged('database unavailable: answered 503').map((line) => line['db_error'])).to.deep.equal([spaceKind]);
  });

  it('a destructive call already confirmed answers confirmation_unavailable and writes nothing; the log names the kind', async () => {
    const accounts = await app.services.db.selectFrom('accounts').select('id').where('workspace_id', '=', M).orderBy('id').limit(2).execute();
    const args = (index: number): Record<string, unknown> => ({
      workspace_id: M, from_account_id: accounts[0]?.id, to_account_id: accounts[1]?.id, amount: `${index + 1}.00`, occurred_at: '2026-03-09',
    });
    const countTransfers = async (): Promise<number> => (await app.services.db.selectFrom('transfers').select('id').where('workspace_id', '=', M).execute()).length;
    const before = await countTransfers();
    // Each transfer is asked and accepted; the disk fills up under the confirmed ones.
    const { refused, written } = await writeUntilRefused(async (index): Promise<CallAnswer> => {
      const { requestState } = expectInputRequired(await callTool(app.url, mcpToken, 'finance_transfers_create', args(index)));
      return callTool(app.url, mcpToken, 'finance_transfers_create', args(index), { requestState, inputResponses: accept() });
    }, (answer) => answer.body.result?.['isError'] === undefined && expectSuccess(answer)['id'] !== undefined);
    expectToolError(refused, 'confirmation_unavailable');
    expect(await countTransfers()).to.equal(before + written);
    const failures = logged('mcp: confirmed call failed: database unavailable');
    expect(failures.map((line) => [line['db_error'], line['reason'], line['tool']])).to.deep.equal([[spaceKind, 'disk_full', 'finance_transfers_create']]);
  });

  it('/readyz answers 503 while the write probe fails, probes at most every 5 s, and turns 200 once space is back — no restart', async () => {
    const probes: string[] = [];
    const stop = observeQueries(app.services.db, (text) => {
      if (/insert into "write_probes"/i.test(text)) probes.push(text);
    });
    try {
      expect((await readyz()).status, 'ready before any write failed').to.equal(200);
      expect(probes, 'a ready replica ran a write probe').to.deep.equal([]);
      expectDiskFullRest((await writeUntilRefused(createAccount, (answer) => answer.status === 201)).refused);

      const failing = await readyz();
      expect(failing.status).to.equal(503);
      expect(failing.headers.get('retry-after')).to.equal('5');
      expect(failing.body.status).to.equal('unavailable');
      expect(failing.body.checks.database).to.equal('disk_full');
      expect(probes.length).to.equal(1);
      expect(logged('write probe failed: not ready').map((line) => line['db_error'])).to.deep.equal([spaceKind]);

      // Space is back, but the window of the last probe has not passed: no second probe yet.
      await fault.lift();
      clock.advance(WRITE_PROBE_INTERVAL_MS - 1);
      expect((await readyz()).status).to.equal(503);
      expect(probes.length).to.equal(1);

      clock.advance(1);
      const ready = await readyz();
      expect(ready.status, JSON.stringify(ready.body)).to.equal(200);
      expect(ready.body).to.deep.include({ status: 'ready' });
      expect(ready.body.checks.database).to.equal('ok');
      expect(probes.length).to.equal(2);
      expect(logged('write probe succeeded: writes are possible again')).to.have.length(1);

      // Ready again: no more probes, and the same process writes again.
      expect((await readyz()).status).to.equal(200);
      expect(probes.length).to.equal(2);
      expect((await createAccount(10_000)).status).to.equal(201);
      // The probe leaves no row behind.
      expect(await app.services.db.selectFrom('write_probes').select('id').execute()).to.deep.equal([]);
    } finally {
      stop();
    }
  });

  it('/readyz keeps failing while the fault lasts, one probe per window', async () => {
    expectDiskFullRest((await writeUntilRefused(createAccount, (answer) => answer.status === 201)).refused);
    expect((await readyz()).body.checks.database).to.equal('disk_full');
    clock.advance(WRITE_PROBE_INTERVAL_MS);
    expect((await readyz()).body.checks.database).to.equal('disk_full');
    expect(logged('write probe failed: not ready').map((line) => line['db_error'])).to.deep.equal([spaceKind, spaceKind]);
  });
});
