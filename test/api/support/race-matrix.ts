/**
 * The state-machine race matrix of one title: every pair of state-changing operations
 * (generated from TITLE_OPERATIONS, the same operation twice included) is fired in parallel over
 * REST at a fresh payable or receivable, from every start state where at least one of the two
 * can succeed. After each race the outcome must be linearizable: some serial order of all the
 * calls, replayed on a small model of the title (exists, status, linked attachment), gives every
 * call its observed answer (success, 404, 409 or 422 — anything else is a violation) and ends in
 * the observed state. On top of that, each race checks the audit log (exactly one activity
 * entry per successful call, per record), a settled title pays its final amount, the account's
 * REST balance, and each pair's batch ends with checkLedger (ledger.ts) over the workspace.
 * Used by test/api/race-matrix.test.ts (bounded) and scripts/soak-races.ts (for minutes).
 *
 *   runRaceMatrix(api, options): Promise<MatrixReport>   // one pass over every pair × start state
 */
import { randomUUID } from 'node:crypto';
import type { CallResult, RestApp } from './rest-app.js';
import { checkLedger, countActivity } from './ledger.js';
import { DEMO } from '../../helpers/index.js';

type Status = 'pending' | 'settled' | 'cancelled';

/** What the model knows of one title and one attachment that may be linked to it. */
interface TitleState {
  readonly exists: boolean;
  readonly status: Status;
  readonly linked: boolean;
}

interface RaceTarget {
  readonly resource: 'payables' | 'receivables';
  readonly titleId: string;
  readonly attachmentId: string;
}

interface TitleOperation {
  readonly name: string;
  /** Whose activity entry a success writes. */
  readonly records: 'title' | 'attachment';
  readonly successStatus: number;
  call(api: RestApp, target: RaceTarget, workspaceId: string, copy: number): Promise<CallResult>;
  /** The next state and answer on the model: a success, or the refusal it must give. */
  apply(state: TitleState): { readonly next: TitleState; readonly status: number };
}

const refuse = (state: TitleState, status: number) => ({ next: state, status });

/** Every state-changing operation on one title; the matrix pairs are generated from this list. */
export const TITLE_OPERATIONS: readonly TitleOperation[] = [
  {
    name: 'settle', records: 'title', successStatus: 200,
    call: (api, t, ws) => api.call('POST', `/v1/${t.resource}/${t.titleId}/settle`, { workspace: ws, body: { payment_date: '2026-03-10' } }),
    apply: (s) => (!s.exists ? refuse(s, 404) : s.status !== 'pending' ? refuse(s, 422) : { next: { ...s, status: 'settled' }, status: 200 }),
  },
  {
    name: 'reopen', records: 'title', successStatus: 200,
    call: (api, t, ws) => api.call('POST', `/v1/${t.resource}/${t.titleId}/reopen`, { workspace: ws }),
    apply: (s) => (!s.exists ? refuse(s, 404) : s.status !== 'settled' ? refuse(s, 422) : { next: { ...s, status: 'pending' }, status: 200 }),
  },
  {
    name: 'cancel', records: 'title', successStatus: 200,
    call: (api, t, ws) => api.call('POST', `/v1/${t.resource}/${t.titleId}/cancel`, { workspace: ws }),
    apply: (s) => (!s.exists ? refuse(s, 404) : s.status !== 'pending' ? refuse(s, 422) : { next: { ...s, status: 'cancelled' }, status: 200 }),
  },
  {
    name: 'delete', records: 'title', successStatus: 204,
    call: (api, t, ws) => api.call('DELETE', `/v1/${t.resource}/${t.titleId}`, { workspace: ws }),
    apply: (s) => (!s.exists ? refuse(s, 404) : { next: { ...s, exists: false, linked: false }, status: 204 }),
  },
  {
    name: 'update', records: 'title', successStatus: 200,
    // Each copy asks for another amount, so a settlement that paid a stale amount shows.
    call: (api, t, ws, copy) => api.call('PATCH', `/v1/${t.resource}/${t.titleId}`, { workspace: ws, body: { amount: `${110 + copy}.00` } }),
    apply: (s) => (!s.exists ? refuse(s, 404) : s.status !== 'pending' ? refuse(s, 422) : { next: s, status: 200 }),
  },
  {
    name: 'link', records: 'attachment', successStatus: 201,
    call: (api, t, ws) => api.call('POST', `/v1/attachments/${t.attachmentId}/links`, {
      workspace: ws, body: { parent_type: t.resource === 'payables' ? 'payable' : 'receivable', parent_id: t.titleId },
    }),
    apply: (s) => (!s.exists ? refuse(s, 404) : s.linked ? refuse(s, 409) : { next: { ...s, linked: true }, status: 201 }),
  },
  {
    name: 'unlink', records: 'attachment', successStatus: 204,
    call: (api, t, ws) => api.call('DELETE', `/v1/attachments/${t.attachmentId}/links/${t.resource === 'payables' ? 'payable' : 'receivable'}/${t.titleId}`, { workspace: ws }),
    apply: (s) => (!s.linked ? refuse(s, 404) : { next: { ...s, linked: false }, status: 204 }),
  },
];

/** Unordered pairs with repetition: n(n+1)/2 of them. */
export function pairsOf<T>(items: readonly T[]): Array<readonly [T, T]> {
  return items.flatMap((a, i) => items.slice(i).map((b) => [a, b] as const));
}

const START_STATES: readonly TitleState[] = (['pending', 'settled'] as const)
  .flatMap((status) => [false, true].map((linked) => ({ exists: true, status, linked })));

export interface MatrixOptions {
  readonly workspaceId?: string;
  /** Parallel calls of each operation of a pair (so 2 × copies calls per race). */
  readonly copies?: number;
  /** Races per pair × start state in one pass. */
  readonly rounds?: number;
  /** Only these pairs (`settle×reopen`); all when unset. */
  readonly pairs?: readonly string[];
  /** Offsets the payable/receivable alternation between passes. */
  readonly pass?: number;
}

export interface MatrixReport {
  /** Races run (one race: one pair from one start state, all its calls in parallel). */
  readonly races: number;
  readonly violations: string[];
}

interface Fixture {
  readonly vendorId: string;
  readonly customerId: string;
}

async function loadFixture(api: RestApp, workspaceId: string): Promise<Fixture> {
  const people = await api.app.services.db.selectFrom('people').select(['id', 'is_supplier', 'is_customer'])
    .where('workspace_id', '=', workspaceId).orderBy('id').execute();
  const vendor = people.find((p) => Number(p.is_supplier) === 1);
  const customer = people.find((p) => Number(p.is_customer) === 1);
  if (!vendor || !customer) throw new Error('the workspace needs a supplier and a customer');
  return { vendorId: vendor.id, customerId: customer.id };
}

function expectStatus(result: CallResult, status: number, what: string): void {
  if (result.status !== status) throw new Error(`setup ${what}: HTTP ${result.status} ${JSON.stringify(result.body)}`);
}

/** A fresh account, a title on it brought to `start`, and an attachment (linked when `start.linked`). */
async function prepare(api: RestApp, ws: string, fixture: Fixture, resource: RaceTarget['resource'], start: TitleState): Promise<RaceTarget & { accountId: string }> {
  const account = await api.call('POST', '/v1/accounts', { workspace: ws, body: { name: `Race ${randomUUID()}`, type: 'checking' } });
  expectStatus(account, 201, 'account');
  const accountId = account.body.id as string;
  const title = await api.call('POST', `/v1/${resource}`, {
    workspace: ws, body: {
      description: 'race matrix', amount: '100.00', due_date: '2026-03-10', financial_account_id: accountId,
      person_id: resource === 'payables' ? fixture.vendorId : fixture.customerId,
    },
  });
  expectStatus(title, 201, resource);
  const titleId = title.body.id as string;
  if (start.status === 'settled') {
    expectStatus(await api.call('POST', `/v1/${resource}/${titleId}/settle`, { workspace: ws, body: { payment_date: '2026-03-01' } }), 200, 'settle');
  }
  // The metadata row alone (no blob): linking never reads the bytes.
  const attachmentId = randomUUID();
  const now = new Date().toISOString();
  await api.app.services.db.insertInto('attachments').values({
    id: attachmentId, workspace_id: ws, sha256: randomUUID().replace(/-/g, '').padEnd(64, '0'), file_name: 'race.pdf', title: null,
    content_type: 'application/pdf', size: 10, created_at: now, updated_at: now, created_by: DEMO.persons.ana,
    updated_by: DEMO.persons.ana, created_via: 'web', updated_via: 'web', version: 1,
  }).execute();
  const target: RaceTarget = { resource, titleId, attachmentId };
  if (start.linked) expectStatus(await (TITLE_OPERATIONS.find((o) => o.name === 'link') as TitleOperation).call(api, target, ws, 0), 201, 'link');
  return { ...target, accountId };
}

interface Observed {
  readonly op: TitleOperation;
  readonly status: number;
  readonly code: string | undefined;
}

/** Whether some serial order of `calls` from `start` gives every observed answer and ends in `end`. */
function isLinearizable(start: TitleState, calls: readonly Observed[], end: TitleState): boolean {
  const search = (state: TitleState, left: readonly Observed[]): boolean => {
    if (left.length === 0) return state.exists === end.exists && state.linked === end.linked && (!end.exists || state.status === end.status);
    const tried = new Set<string>();
    return left.some((call, i) => {
      const key = `${call.op.name} ${call.status}`;
      if (tried.has(key)) return false;
      tried.add(key);
      const step = call.op.apply(state);
      return step.status === call.status && search(step.next, [...left.slice(0, i), ...left.slice(i + 1)]);
    });
  };
  return search(start, calls);
}

const describeState = (s: TitleState): string => (s.exists ? `${s.status}${s.linked ? '+linked' : ''}` : 'deleted');

async function observe(api: RestApp, ws: string, target: RaceTarget): Promise<{ state: TitleState; paid: number | null; amount: number }> {
  const db = api.app.services.db;
  const title = await db.selectFrom('titles').select(['status', 'paid_amount_cents', 'amount_cents'])
    .where('workspace_id', '=', ws).where('id', '=', target.titleId).executeTakeFirst();
  const link = await db.selectFrom('attachment_links').select('id')
    .where('workspace_id', '=', ws).where('attachment_id', '=', target.attachmentId).where('parent_id', '=', target.titleId).executeTakeFirst();
  const status: Status = !title ? 'pending' : title.status === 'paid' || title.status === 'received' ? 'settled' : title.status;
  return {
    state: { exists: title !== undefined, status, linked: link !== undefined },
    paid: title?.paid_amount_cents === null || title === undefined ? null : Number(title.paid_amount_cents),
    amount: Number(title?.amount_cents ?? 0),
  };
}

async function race(
  api: RestApp, ws: string, fixture: Fixture, pair: readonly [TitleOperation, TitleOperation], start: TitleState,
  resource: RaceTarget['resource'], copies: number,
): Promise<string[]> {
  const label = `${pair[0].name}×${pair[1].name} from ${describeState(start)} (${resource})`;
  const target = await prepare(api, ws, fixture, resource, start);
  const db = api.app.services.db;
  const before = await countActivity(db, ws, [target.titleId, target.attachmentId]);
  const ops = Array.from({ length: copies }, () => pair).flat();
  const results = await Promise.all(ops.map((op, i) => op.call(api, target, ws, i)));
  const calls: Observed[] = results.map((r, i) => ({ op: ops[i] as TitleOperation, status: r.status, code: r.body?.error?.code }));
  const after = await countActivity(db, ws, [target.titleId, target.attachmentId]);
  const seen = await observe(api, ws, target);
  const violations: string[] = [];
  const answers = calls.map((c) => `${c.op.name} ${c.status}${c.code && c.status >= 400 ? ` ${c.code}` : ''}`).join(', ');

  if (!isLinearizable(start, calls, seen.state)) {
    violations.push(`${label}: not linearizable — answers [${answers}], ended ${describeState(seen.state)}`);
  }
  for (const [records, id] of [['title', target.titleId], ['attachment', target.attachmentId]] as const) {
    const successes = calls.filter((c) => c.op.records === records && c.status === c.op.successStatus).length;
    const entries = (after.get(id) ?? 0) - (before.get(id) ?? 0);
    if (entries !== successes) violations.push(`${label}: ${entries} activity entries for the ${records}, ${successes} successful calls [${answers}]`);
  }
  if (seen.state.exists && seen.state.status === 'settled' && seen.paid !== seen.amount) {
    violations.push(`${label}: settled for ${seen.paid} cents, the amount is ${seen.amount} [${answers}]`);
  }
  const account = await api.call('GET', `/v1/accounts/${target.accountId}`, { workspace: ws });
  const settledCents = seen.state.exists && seen.state.status === 'settled' ? seen.paid ?? 0 : 0;
  const want = ((resource === 'payables' ? -settledCents : settledCents) / 100).toFixed(2);
  if (account.body?.balance !== want) violations.push(`${label}: account balance ${account.body?.balance}, expected ${want} [${answers}]`);
  return violations;
}

/** One pass: every pair × every start state where one of the two can succeed, `rounds` times. */
export async function runRaceMatrix(api: RestApp, options: MatrixOptions = {}): Promise<MatrixReport> {
  const ws = options.workspaceId ?? DEMO.workspaces.matriz;
  const copies = options.copies ?? 2;
  const rounds = options.rounds ?? 1;
  const fixture = await loadFixture(api, ws);
  const pairs = pairsOf(TITLE_OPERATIONS).filter(([a, b]) => !options.pairs || options.pairs.includes(`${a.name}×${b.name}`));
  const violations: string[] = [];
  let races = 0;
  for (const pair of pairs) {
    const starts = START_STATES.filter((s) => pair.some((op) => op.apply(s).status === op.successStatus));
    for (let round = 0; round < rounds; round += 1) {
      // The start states of a pair race at once, on separate titles: more contention per second.
      const found = await Promise.all(starts.map((start, i) => {
        const resource = (round + i + (options.pass ?? 0)) % 2 === 0 ? 'payables' : 'receivables';
        return race(api, ws, fixture, pair, start, resource, copies)
          .catch((err: unknown) => [`${pair[0].name}×${pair[1].name} from ${describeState(start)}: ${String(err)}`]);
      }));
      violations.push(...found.flat());
      races += starts.length;
    }
    const ledger = await checkLedger(api.app.services.db, ws);
    violations.push(...ledger.violations.map((v) => `after ${pair[0].name}×${pair[1].name}: ${v}`));
  }
  return { races, violations };
}
