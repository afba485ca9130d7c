/**
 * The demo's pending approval requests (docs/domain.md#demo-data, docs/security.md#approval-requests):
 * in Matriz, bruno's agent (channel `mcp`, an OAuth token) asked to settle one payable and, in a
 * batch, three more; both wait for another person — ana, the admin — to approve or reject them
 * over REST or on the Account's approval page. Made through the code a real request goes through
 * (`askForApproval`, src/api/money/ask.ts): the payables.settle / payables.settle_batch sentence
 * bruno would have confirmed, the measured amounts and versions, the stored input, and the
 * workspace's expiry (24 h by default) from the seed's instant. No threshold is configured: the
 * demo's other moves still run at once.
 *
 * The payables are chosen from the seeded rows by a fixed rule, so every id is deterministic for a
 * given day: pending, with an account, due after the coming week (the "due this week" story keeps
 * its titles), no attachment (the attachment story keeps its), at least R$ 1.000,00; the largest
 * is settled alone, the batch takes the next three of three other payees.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { askForApproval, createConfirmationDescribers, type Caller, type DescriberSources } from '../api/index.js';
import { BATCH_APPROVAL_REQUEST_ID, BRUNO_PERSON_ID, DEMO_ORG_ID, MATRIZ_WORKSPACE_ID, SETTLE_APPROVAL_REQUEST_ID } from './ids.js';
import { DEMO_MEMBERS } from './identity.js';
import { addDays } from './finance-titles.js';

const MIN_CENTS = 100_000;
const BATCH_SIZE = 3;
/** What bruno's agent was granted (docs/security.md#money-controls: a move out needs `finance.money.write`). */
const BRUNO_MCP_SCOPES = ['finance.payables.write', 'finance.money.write'];

interface Candidate {
  readonly id: string;
  readonly personId: string | null;
}

/** The pending payables of Matriz the rule allows, largest first (ties by id). */
async function findCandidates(db: Kysely<Database>, today: string): Promise<Candidate[]> {
  const rows = await db.selectFrom('titles').select(['id', 'person_id'])
    .where('workspace_id', '=', MATRIZ_WORKSPACE_ID).where('kind', '=', 'payable').where('status', '=', 'pending')
    .where('financial_account_id', 'is not', null).where('due_date', '>', addDays(today, 7)).where('amount_cents', '>=', MIN_CENTS)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('attachment_links').select('attachment_links.id')
      .where('attachment_links.workspace_id', '=', MATRIZ_WORKSPACE_ID).whereRef('attachment_links.parent_id', '=', 'titles.id'))))
    .orderBy('amount_cents', 'desc').orderBy('id').execute();
  return rows.map((row) => ({ id: row.id, personId: row.person_id }));
}

/** The single settle's payable and the batch's: each of another payee than the ones before it. */
function choose(candidates: readonly Candidate[]): { single: Candidate; batch: Candidate[] } | null {
  const [single] = candidates;
  if (!single) return null;
  const batch: Candidate[] = [];
  const payees = new Set([single.personId]);
  for (const candidate of candidates.slice(1)) {
    if (batch.length === BATCH_SIZE || payees.has(candidate.personId)) continue;
    payees.add(candidate.personId);
    batch.push(candidate);
  }
  return batch.length === BATCH_SIZE ? { single, batch } : null;
}

function brunoOverMcp(): Caller {
  const bruno = DEMO_MEMBERS.find((member) => member.personId === BRUNO_PERSON_ID);
  if (!bruno) throw new Error('the demo identity has no bruno');
  return {
    personId: bruno.personId, organizationId: DEMO_ORG_ID, scopes: new Set(BRUNO_MCP_SCOPES), tokenType: 'oauth', channel: 'mcp',
    membership: {
      status: bruno.status, isAdmin: bruno.isAdmin, permissions: new Set(bruno.permissions), workspaceIds: bruno.workspaceIds,
      workspaceNames: new Map(), // only results name their workspace; a request does not
    },
  };
}

/**
 * Seeds the two requests on the freshly seeded finance records, each in its own transaction.
 * `now`: the seed's instant — the requests' `created_at`, their expiry's start and the payment date's day.
 */
export async function seedDemoApprovals(db: Kysely<Database>, now: Date, sources: DescriberSources): Promise<void> {
  const today = now.toISOString().slice(0, 10);
  const chosen = choose(await findCandidates(db, today));
  if (!chosen) return; // a day whose titles leave too few: the demo simply has no requests
  const deps = { db, routes: sources.routes, describers: createConfirmationDescribers(sources), now: () => new Date(now.getTime()) };
  const caller = brunoOverMcp();
  await askForApproval(deps, {
    id: SETTLE_APPROVAL_REQUEST_ID, caller, workspaceId: MATRIZ_WORKSPACE_ID, operationId: 'payables.settle',
    input: { path: { id: chosen.single.id }, query: {}, body: { payment_date: today } },
  });
  await askForApproval(deps, {
    id: BATCH_APPROVAL_REQUEST_ID, caller, workspaceId: MATRIZ_WORKSPACE_ID, operationId: 'payables.settle_batch',
    input: { path: {}, query: {}, body: { items: chosen.batch.map((payable) => ({ id: payable.id, payment_date: today })) } },
  });
}
