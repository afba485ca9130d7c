/**
 * Shared helpers of the confirmation tests: `tools/call` over real HTTP in either era with
 * chosen client capabilities, answers to an `input_required`, and database probes.
 */
import { sql, type Kysely } from 'kysely';
import { expect } from 'chai';
import { handlers } from '../../generated/handlers.gen.js';
import { routes } from '../../generated/registry.gen.js';
import { createConfirmationDescribers } from '../../src/api/confirmation/describe.js';
import { ApiError } from '../../src/api/errors.js';
import type { ConfirmationProof } from '../../src/api/service.js';
import { createConfirmation as createMcpConfirmation, type ConfirmationDeps } from '../../src/mcp/tools/confirmation/confirmation.js';
import { isRefusal, type ConfirmationRequest, type InputRequired } from '../../src/mcp/tools/confirmation/types.js';
import type { Database } from '../../src/store/schema.js';
import { DEMO } from '../../src/seed/ids.js';

export const ALL_WRITE = 'finance.all.write';
export const FORM = { elicitation: { form: {} } } as const;

export interface CallOptions {
  /** Modern-era client capabilities; `null` → a 2025-era request (2025-06-18). */
  readonly capabilities?: Record<string, unknown> | null;
  readonly requestState?: unknown;
  readonly inputResponses?: unknown;
  readonly id?: number;
}

export interface CallAnswer {
  readonly status: number;
  readonly body: { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

let nextId = 1;

/** The sentences of the destructive operations, built as the wiring builds them (src/bootstrap.ts) from the generated registry and handler index. */
export const { describerFor } = createConfirmationDescribers({ routes, handlers });

/** The MCP confirmation's two steps as the proof tests drive them: a refusal either answers instead is thrown. */
export interface ConfirmationSteps {
  ask(request: ConfirmationRequest): Promise<InputRequired>;
  verify(request: ConfirmationRequest): Promise<ConfirmationProof | undefined>;
}

/** The MCP confirmation (src/mcp/tools/confirmation) over those sentences: `ask` answers the input_required result, `verify` the proof or nothing yet. */
export function createConfirmation(deps: Omit<ConfirmationDeps, 'describers'>): ConfirmationSteps {
  const confirmation = createMcpConfirmation({ ...deps, describers: { describerFor } });
  return {
    async ask(request) {
      const question = await confirmation.ask(request);
      if (question instanceof ApiError) throw question;
      return question;
    },
    async verify(request) {
      const verdict = await confirmation.verify(request);
      if (isRefusal(verdict)) throw verdict;
      return verdict;
    },
  };
}

export async function callTool(url: string, token: string, name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallAnswer> {
  const capabilities = options.capabilities === undefined ? FORM : options.capabilities;
  const params: Record<string, unknown> = { name, arguments: args };
  if (options.requestState !== undefined) params['requestState'] = options.requestState;
  if (options.inputResponses !== undefined) params['inputResponses'] = options.inputResponses;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` };
  if (capabilities === null) {
    headers['mcp-protocol-version'] = '2025-06-18';
  } else {
    Object.assign(headers, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name });
    params['_meta'] = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': capabilities,
    };
  }
  const response = await fetch(`${url}/mcp`, {
    method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: options.id ?? nextId++, method: 'tools/call', params }),
  });
  return { status: response.status, body: (await response.json()) as CallAnswer['body'] };
}

export function accept(confirm = true): Record<string, unknown> {
  return { confirm: { action: 'accept', content: { confirm } } };
}

/** The `requestState` of an input_required answer (fails the test otherwise). */
export function expectInputRequired(answer: CallAnswer): { requestState: string; message: string } {
  const result = answer.body.result;
  expect(result?.['resultType'], JSON.stringify(answer.body)).to.equal('input_required');
  const request = (result?.['inputRequests'] as Record<string, { method: string; params: { message: string } }>)['confirm'];
  expect(request?.method).to.equal('elicitation/create');
  return { requestState: result?.['requestState'] as string, message: request?.params.message ?? '' };
}

/** The API error code of a tool error (fails the test otherwise). */
export function expectToolError(answer: CallAnswer, code: string): void {
  const result = answer.body.result;
  expect(result?.['isError'], JSON.stringify(answer.body)).to.equal(true);
  const text = (result?.['content'] as { text: string }[])[0]?.text ?? '';
  expect((JSON.parse(text) as { error: { code: string } }).error.code, text).to.equal(code);
}

export function expectSuccess(answer: CallAnswer): Record<string, unknown> {
  const result = answer.body.result;
  expect(result, JSON.stringify(answer.body)).to.not.equal(undefined);
  expect(result?.['isError'], JSON.stringify(result)).to.equal(undefined);
  expect(result?.['resultType']).to.equal('complete');
  const text = (result?.['content'] as { text: string }[])[0]?.text ?? '{}';
  return JSON.parse(text) as Record<string, unknown>;
}

export function expectInvalidParams(answer: CallAnswer): void {
  expect(answer.body.error?.code, JSON.stringify(answer.body)).to.equal(-32602);
  expect(answer.body.result).to.equal(undefined);
}

/** A pending payable of Matriz that has an account (so settle needs nothing else), not in `used`; adds it there. */
export async function pickPendingPayable(db: Kysely<Database>, used: Set<string> = new Set()): Promise<string> {
  let query = db.selectFrom('titles').select('id')
    .where('workspace_id', '=', DEMO.workspaces.matriz).where('kind', '=', 'payable').where('status', '=', 'pending')
    .where('financial_account_id', 'is not', null)
    // Not one the demo's pending approval requests wait to settle (src/seed/approvals.ts): a second live request of it is refused.
    .where((eb) => eb.not(eb.exists(eb.selectFrom('approval_requests').select('approval_requests.id')
      .where('approval_requests.workspace_id', '=', DEMO.workspaces.matriz).where('approval_requests.status', '=', 'pending_approval')
      .where('approval_requests.items', 'like', sql<string>`'%"record_id":"' || titles.id || '"%'`))));
  if (used.size > 0) query = query.where('id', 'not in', [...used]);
  const row = await query.orderBy('id').limit(1).executeTakeFirstOrThrow();
  used.add(row.id);
  return row.id;
}

export async function readTitle(db: Kysely<Database>, id: string): Promise<{ status: string; version: number } | undefined> {
  const row = await db.selectFrom('titles').select(['status', 'version'])
    .where('workspace_id', '=', DEMO.workspaces.matriz).where('id', '=', id).executeTakeFirst();
  return row ? { status: row.status, version: Number(row.version) } : undefined;
}

export async function countSettlements(db: Kysely<Database>, titleId: string): Promise<number> {
  const rows = await db.selectFrom('transactions').select('id')
    .where('workspace_id', '=', DEMO.workspaces.matriz).where('source', '=', 'settlement').where('source_id', '=', titleId)
    .execute();
  return rows.length;
}

export async function countNonces(db: Kysely<Database>): Promise<number> {
  const rows = await db.selectFrom('confirmation_nonces').select('nonce').where('workspace_id', '=', DEMO.workspaces.matriz).execute();
  return rows.length;
}

export function settleArgs(id: string): Record<string, unknown> {
  return { workspace_id: DEMO.workspaces.matriz, id, payment_date: '2026-03-09' };
}
