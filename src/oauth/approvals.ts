/**
 * Out-of-band approval of a destructive tool call (docs/security.md#approval-links), for clients
 * that cannot confirm in the conversation (the 2025 era, no form elicitation): the call's
 * `confirmation_required` carries an `approval_url`; the person opens it, signs in and approves;
 * the agent's next identical call (same tool and arguments, same person, organization and
 * workspace, within 5 minutes) then runs once — the approval's id is its single-use nonce,
 * consumed in the write's transaction like a `requestState` nonce (which also marks the approval
 * used), and the record version it was approved for is re-checked. Or the person presses Deny,
 * and the agent's next try is refused with USER_DECLINED. A used, denied-and-delivered or stale
 * approval (the record changed since) answers nothing more, so the next try gets a fresh link.
 * Approvals are rows of `oauth_records` (model `Approval`), found by a digest of what they are
 * bound to.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { isUnsafeText } from '../api/index.js';

const APPROVAL_MODEL = 'Approval';
export const APPROVAL_PATH = '/account/approvals';

export interface ApprovalBinding {
  readonly tool: string;
  readonly argsDigest: string;
  readonly personId: string;
  readonly organizationId: string;
  readonly workspaceId: string;
}

export type ApprovalDecision = 'approved' | 'denied';

export interface ApprovalRecord extends ApprovalBinding {
  /** The target record's version when it was asked (null: the operation has no single target). */
  readonly version: number | null;
  /** The sentence the person approves (the same as the elicitation's). */
  readonly message: string;
  readonly approved: boolean;
  /** The person pressed Deny: the agent's next try of the call is refused with USER_DECLINED. */
  readonly denied?: boolean;
  /** When the person answered (epoch milliseconds): the latest answer of a call decides. */
  readonly answeredAt?: number;
}

/** An approval as read back while it lives (`used`: it served its call, or was set aside). */
export interface StoredApproval extends ApprovalRecord {
  /** Epoch seconds. */
  readonly expiresAt: number;
  readonly used: boolean;
}

export interface AnsweredCall {
  readonly id: string;
  readonly decision: ApprovalDecision;
  readonly version: number | null;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

export interface ApprovalLinks {
  /** Records a pending approval; returns its URL and expiry (epoch seconds). */
  create(binding: ApprovalBinding, version: number | null, message: string, ttlSeconds: number): Promise<{ url: string; expiresAt: number }>;
  /** The latest answer (approved or denied) to exactly this call that is unexpired and not yet used, if any. */
  findAnswered(binding: ApprovalBinding): Promise<AnsweredCall | undefined>;
  /** The pending or answered approval with this id, while it lives. */
  read(id: string): Promise<StoredApproval | undefined>;
  /** Records the person's answer; false when it is gone, expired, used or already answered. */
  answer(id: string, decision: ApprovalDecision): Promise<boolean>;
  /**
   * Marks it used, so it no longer answers the call: run in the write's transaction (`executor`)
   * when an approval serves its call, on its own when a denial was delivered or the record
   * changed since it was asked.
   */
  markUsed(id: string, executor?: Kysely<Database>): Promise<void>;
  /**
   * Marks every link of this call used: a delivered denial is the person's last word on the call,
   * so an approval they gave an earlier link of it can no longer run it.
   */
  markAllUsed(binding: ApprovalBinding): Promise<void>;
}

function bindingKey(b: ApprovalBinding): string {
  return createHash('sha256').update(JSON.stringify([b.tool, b.argsDigest, b.personId, b.organizationId, b.workspaceId])).digest('base64url');
}

export function createApprovalLinks(db: Kysely<Database>, publicUrl: string, now: () => number): ApprovalLinks {
  const rows = approvalRows(db, now);
  return {
    create: (binding, version, message, ttlSeconds) => insertApproval(rows, publicUrl, { ...binding, version, message, approved: false }, ttlSeconds),
    findAnswered: (binding) => latestAnswer(rows, binding),
    read: (id) => readApproval(rows, id),
    answer: (id, decision) => recordAnswer(rows, id, decision),
    async markUsed(id, executor = db) {
      await executor.updateTable('oauth_records').set({ consumed_at: rows.nowIso() })
        .where('model', '=', APPROVAL_MODEL).where('id', '=', id).execute();
    },
    async markAllUsed(binding) {
      await db.updateTable('oauth_records').set({ consumed_at: rows.nowIso() })
        .where('model', '=', APPROVAL_MODEL).where('uid', '=', bindingKey(binding)).where('consumed_at', 'is', null).execute();
    },
  };
}

/** The approval rows of `oauth_records`, on the app's clock. */
function approvalRows(db: Kysely<Database>, now: () => number) {
  const nowIso = () => new Date(now()).toISOString();
  return {
    db,
    now,
    nowIso,
    /** The unexpired approvals (`id`, `payload`, `expires_at`, `consumed_at`). */
    live: () => db.selectFrom('oauth_records').select(['id', 'payload', 'expires_at', 'consumed_at'])
      .where('model', '=', APPROVAL_MODEL).where('expires_at', '>', nowIso()),
  };
}

type ApprovalRows = ReturnType<typeof approvalRows>;

const toSeconds = (iso: string | null) => Math.floor(Date.parse(iso ?? '') / 1000);

/** A pending approval, found later by a digest of its binding (the row's `uid`); its id is 192 random bits. */
async function insertApproval(rows: ApprovalRows, publicUrl: string, record: ApprovalRecord, ttlSeconds: number): Promise<{ url: string; expiresAt: number }> {
  const id = randomBytes(24).toString('base64url');
  const expiresAtMs = rows.now() + ttlSeconds * 1000;
  await rows.db.insertInto('oauth_records').values({
    model: APPROVAL_MODEL, id, payload: JSON.stringify(record), grant_id: null, uid: bindingKey(record),
    expires_at: new Date(expiresAtMs).toISOString(), consumed_at: null,
  }).execute();
  return { url: `${publicUrl}${APPROVAL_PATH}/${id}`, expiresAt: Math.floor(expiresAtMs / 1000) };
}

/** Of the unused, unexpired links of this call that were answered, the one answered last. */
async function latestAnswer(rows: ApprovalRows, binding: ApprovalBinding): Promise<AnsweredCall | undefined> {
  const found = await rows.live().where('uid', '=', bindingKey(binding)).where('consumed_at', 'is', null).execute();
  let latest: (AnsweredCall & { answeredAt: number }) | undefined;
  for (const row of found) {
    const record = JSON.parse(row.payload) as ApprovalRecord;
    if (!record.approved && record.denied !== true) continue;
    const answeredAt = record.answeredAt ?? 0;
    if (latest !== undefined && latest.answeredAt >= answeredAt) continue;
    latest = { id: row.id, decision: record.approved ? 'approved' : 'denied', version: record.version, expiresAt: toSeconds(row.expires_at), answeredAt };
  }
  return latest === undefined ? undefined : { id: latest.id, decision: latest.decision, version: latest.version, expiresAt: latest.expiresAt };
}

async function readApproval(rows: ApprovalRows, id: string): Promise<StoredApproval | undefined> {
  // An id no link has (a NUL byte would fail the query on PostgreSQL) names nothing.
  if (isUnsafeText(id)) return undefined;
  const row = await rows.live().where('id', '=', id).executeTakeFirst();
  if (row === undefined) return undefined;
  return { ...(JSON.parse(row.payload) as ApprovalRecord), expiresAt: toSeconds(row.expires_at), used: row.consumed_at !== null };
}

async function recordAnswer(rows: ApprovalRows, id: string, decision: ApprovalDecision): Promise<boolean> {
  if (isUnsafeText(id)) return false;
  const row = await rows.live().where('id', '=', id).where('consumed_at', 'is', null).executeTakeFirst();
  if (row === undefined) return false;
  const current = JSON.parse(row.payload) as ApprovalRecord;
  if (current.approved || current.denied === true) return false;
  const record: ApprovalRecord = { ...current, approved: decision === 'approved', denied: decision === 'denied', answeredAt: rows.now() };
  // Compare-and-set on the pending payload: of two answers racing, one wins.
  const result = await rows.db.updateTable('oauth_records').set({ payload: JSON.stringify(record) })
    .where('model', '=', APPROVAL_MODEL).where('id', '=', id).where('payload', '=', row.payload)
    .where('consumed_at', 'is', null).where('expires_at', '>', rows.nowIso()).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
