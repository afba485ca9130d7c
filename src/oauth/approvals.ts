/**
 * Out-of-band approval of a destructive tool call (docs/security.md#approval-links), for clients
 * that cannot confirm in the conversation (the 2025 era, no form elicitation): the call's
 * `confirmation_required` carries an `approval_url`; the person opens it, signs in and approves;
 * the agent's next identical call (same tool and arguments, same person, organization and
 * workspace, within 5 minutes) then runs once — the approval's id is its single-use nonce,
 * consumed in the write's transaction like a `requestState` nonce, and the record version it
 * was approved for is re-checked. Approvals are rows of `oauth_records` (model `Approval`),
 * found by a digest of what they are bound to.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

export const APPROVAL_MODEL = 'Approval';
export const APPROVAL_PATH = '/account/approvals';

export interface ApprovalBinding {
  readonly tool: string;
  readonly argsDigest: string;
  readonly personId: string;
  readonly organizationId: string;
  readonly workspaceId: string;
}

export interface ApprovalRecord extends ApprovalBinding {
  /** The target record's version when it was asked (null: the operation has no single target). */
  readonly version: number | null;
  /** The sentence the person approves (the same as the elicitation's). */
  readonly message: string;
  readonly approved: boolean;
}

export interface ApprovedCall {
  readonly id: string;
  readonly version: number | null;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

export interface ApprovalLinks {
  /** Records a pending approval; returns its URL and expiry (epoch seconds). */
  create(binding: ApprovalBinding, version: number | null, message: string, ttlSeconds: number): Promise<{ url: string; expiresAt: number }>;
  /** An approved, unexpired approval bound to exactly this call, if any. */
  findApproved(binding: ApprovalBinding): Promise<ApprovedCall | undefined>;
  /** The pending or approved approval with this id, while it lives. */
  read(id: string): Promise<(ApprovalRecord & { expiresAt: number }) | undefined>;
  /** Marks it approved; false when it is gone or expired. */
  approve(id: string): Promise<boolean>;
}

function bindingKey(b: ApprovalBinding): string {
  return createHash('sha256').update(JSON.stringify([b.tool, b.argsDigest, b.personId, b.organizationId, b.workspaceId])).digest('base64url');
}

export function createApprovalLinks(db: Kysely<Database>, publicUrl: string, now: () => number = Date.now): ApprovalLinks {
  const nowIso = () => new Date(now()).toISOString();
  const live = () => db.selectFrom('oauth_records').select(['id', 'payload', 'expires_at'])
    .where('model', '=', APPROVAL_MODEL).where('expires_at', '>', nowIso());
  const toSeconds = (iso: string | null) => Math.floor(Date.parse(iso ?? '') / 1000);

  return {
    async create(binding, version, message, ttlSeconds) {
      const id = randomBytes(24).toString('base64url');
      const expiresAtMs = now() + ttlSeconds * 1000;
      const record: ApprovalRecord = { ...binding, version, message, approved: false };
      await db.insertInto('oauth_records').values({
        model: APPROVAL_MODEL, id, payload: JSON.stringify(record), grant_id: null, uid: bindingKey(binding),
        expires_at: new Date(expiresAtMs).toISOString(), consumed_at: null,
      }).execute();
      return { url: `${publicUrl}${APPROVAL_PATH}/${id}`, expiresAt: Math.floor(expiresAtMs / 1000) };
    },
    async findApproved(binding) {
      const rows = await live().where('uid', '=', bindingKey(binding)).execute();
      for (const row of rows) {
        const record = JSON.parse(row.payload) as ApprovalRecord;
        if (record.approved) return { id: row.id, version: record.version, expiresAt: toSeconds(row.expires_at) };
      }
      return undefined;
    },
    async read(id) {
      const row = await live().where('id', '=', id).executeTakeFirst();
      return row === undefined ? undefined : { ...(JSON.parse(row.payload) as ApprovalRecord), expiresAt: toSeconds(row.expires_at) };
    },
    async approve(id) {
      const row = await live().where('id', '=', id).executeTakeFirst();
      if (row === undefined) return false;
      const record = { ...(JSON.parse(row.payload) as ApprovalRecord), approved: true };
      const result = await db.updateTable('oauth_records').set({ payload: JSON.stringify(record) })
        .where('model', '=', APPROVAL_MODEL).where('id', '=', id).where('expires_at', '>', nowIso()).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
