/**
 * Workspace ids cannot be probed: a workspace of another organization, a nonexistent one and a
 * malformed value (never sent to the database) get the same answer — status, body and headers —
 * at /v1 and /mcp, as the connection default (`X-Workspace-Id`, `?workspace_id=`) and as the
 * `workspace_id` argument of a tool call. A NUL (`%00`, once a PostgreSQL 500) is refused too.
 * Real app, real signed tokens, real HTTP.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { startTestApp, DEMO, type TestApp } from '../helpers/index.js';

interface Answer { status: number; headers: Record<string, string>; body: any } // JSON under test

/** Headers that differ between any two responses (time, request id, the echoed id's length). */
const VARYING_HEADERS = new Set(['date', 'request-id', 'content-length']);

async function readAnswer(res: Response): Promise<Answer> {
  const text = await res.text();
  const headers = Object.fromEntries([...res.headers].filter(([name]) => !VARYING_HEADERS.has(name)));
  return { status: res.status, headers, body: text ? JSON.parse(text) : null };
}

/** The answer with the one value it may echo (`details.workspace_id`, the id that was sent) replaced. */
function withoutEcho(answer: Answer, sent: string): Answer {
  const details = answer.body?.error?.details;
  if (details?.workspace_id === undefined) return answer;
  expect(details.workspace_id).to.equal(sent);
  return { ...answer, body: { ...answer.body, error: { ...answer.body.error, details: { ...details, workspace_id: '<sent>' } } } };
}

describe('workspace ids cannot be probed (foreign, nonexistent and malformed answer alike)', () => {
  let app: TestApp;
  let foreign: string;
  const nonexistent = randomUUID();

  before(async () => {
    app = await startTestApp();
    const now = new Date().toISOString();
    const orgId = randomUUID();
    foreign = randomUUID();
    await app.services.db.insertInto('organizations').values({ id: orgId, name: 'Outra Ltda', created_at: now, deleted_at: null }).execute();
    await app.services.db.insertInto('workspaces').values({ id: foreign, organization_id: orgId, name: 'Outra', created_at: now }).execute();
  });
  after(async () => app?.close());

  const token = (person: 'ana' | 'bruno', aud: 'api' | 'mcp') => app.mintToken({ person: DEMO.emails[person], scope: 'finance.all', aud });

  /** [label, how the id is sent: header value, or raw query text, and the id the server sees]. */
  function connectionDefaults(): { label: string; header?: string; query?: string; sent: string }[] {
    return [
      { label: 'foreign (header)', header: foreign, sent: foreign },
      { label: 'foreign (query)', query: foreign, sent: foreign },
      { label: 'nonexistent (header)', header: nonexistent, sent: nonexistent },
      { label: 'nonexistent (query)', query: nonexistent, sent: nonexistent },
      { label: 'malformed (header)', header: 'not-a-uuid', sent: 'not-a-uuid' },
      { label: 'upper-case (query)', query: nonexistent.toUpperCase(), sent: nonexistent.toUpperCase() },
    ];
  }

  it('/v1: one 403 workspace_access_denied for all, the same a workspace not granted to the person gets', async () => {
    const apiToken = await token('ana', 'api');
    const answers: Record<string, Answer> = {};
    for (const { label, header, query, sent } of connectionDefaults()) {
      const res = await fetch(`${app.url}/v1/payables${query !== undefined ? `?workspace_id=${query}` : ''}`, {
        headers: { authorization: `Bearer ${apiToken}`, ...(header !== undefined ? { 'x-workspace-id': header } : {}) },
      });
      answers[label] = withoutEcho(await readAnswer(res), sent);
    }
    const notGranted = withoutEcho(await readAnswer(await fetch(`${app.url}/v1/payables`, {
      headers: { authorization: `Bearer ${await token('bruno', 'api')}`, 'x-workspace-id': DEMO.workspaces.filial },
    })), DEMO.workspaces.filial);
    expect(notGranted.status).to.equal(403);
    expect(notGranted.body.error.code).to.equal('workspace_access_denied');
    expect(answers).to.not.be.empty;
    for (const [label, answer] of Object.entries(answers)) expect(answer, label).to.deep.equal(notGranted);
  });

  it('/mcp: one 403 before JSON-RPC for all', async () => {
    const mcpToken = await token('ana', 'mcp');
    const answers: Record<string, Answer> = {};
    for (const { label, header, query } of connectionDefaults()) {
      const res = await fetch(`${app.url}/mcp${query !== undefined ? `?workspace_id=${query}` : ''}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${mcpToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18', ...(header !== undefined ? { 'x-workspace-id': header } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      answers[label] = await readAnswer(res);
    }
    const reference = answers['foreign (header)'];
    expect(reference?.status).to.equal(403);
    expect(reference?.body).to.deep.include({ jsonrpc: '2.0', id: null });
    expect(answers).to.not.be.empty;
    for (const [label, answer] of Object.entries(answers)) expect(answer, label).to.deep.equal(reference);
  });

  it('a NUL workspace id (?workspace_id=%00) is refused without reaching the database, at /v1 and /mcp', async () => {
    // Refused as unsafe text before authentication (400) or as a non-UUID (403): never a database error.
    const rest = await fetch(`${app.url}/v1/payables?workspace_id=%00`, { headers: { authorization: `Bearer ${await token('ana', 'api')}` } });
    expect([400, 403]).to.include(rest.status);
    const mcp = await fetch(`${app.url}/mcp?workspace_id=%00`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token('ana', 'mcp')}`, 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect([400, 403]).to.include(mcp.status);
  });

  it('the workspace_id argument of a tool call: one workspace_access_denied result for all', async () => {
    const call = async (bearer: string, workspaceId: string) => {
      const res = await fetch(`${app.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'finance_payables_list', arguments: { workspace_id: workspaceId } } }),
      });
      const { status, headers, body } = await readAnswer(res);
      expect(body.result?.isError, JSON.stringify(body)).to.equal(true);
      const envelope = withoutEcho({ status, headers, body: JSON.parse(body.result.content[0].text) }, workspaceId).body;
      return { status, headers, resultKeys: Object.keys(body.result).sort(), envelope };
    };
    const notGranted = await call(await token('bruno', 'mcp'), DEMO.workspaces.filial);
    expect(notGranted.envelope.error.code).to.equal('workspace_access_denied');
    const anaToken = await token('ana', 'mcp');
    for (const id of [foreign, nonexistent, 'not-a-uuid', '\u0000']) {
      expect(await call(anaToken, id), JSON.stringify(id)).to.deep.equal(notGranted);
    }
  });
});
