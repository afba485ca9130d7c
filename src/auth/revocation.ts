/**
 * The revocation list of token ids (`revoked_tokens`, shared by every replica through the
 * database). Nothing is cached: the bearer reads a token's row on every call, in the same
 * statement as the identity version (src/auth/caller.ts, src/store/db.ts `identityStateReader`),
 * so a revocation written by any replica is refused at the very next call. A row must live at
 * least as long as its token could (its `exp` plus the clock tolerance); expired rows are deleted
 * by `sweepExpired`. Deciding what a revoked token gets is the bearer's job.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

export interface RevocationList {
  isRevoked(jti: string): Promise<boolean>;
  /** Records a revocation; every replica refuses the token from its next call on. */
  revoke(jti: string, expiresAt: Date): Promise<void>;
  /** Deletes the rows of tokens that expired before `now` (their tokens are refused by `exp` anyway). */
  sweepExpired(now: Date): Promise<void>;
}

export function createRevocationList(db: Kysely<Database>, now: () => number): RevocationList {
  return {
    async isRevoked(jti) {
      const row = await db.selectFrom('revoked_tokens').select('jti').where('jti', '=', jti).executeTakeFirst();
      return row !== undefined;
    },
    async revoke(jti, expiresAt) {
      const values = { jti, revoked_at: new Date(now()).toISOString(), expires_at: expiresAt.toISOString() };
      // A second revocation of the same token may only make its row live longer.
      await db.insertInto('revoked_tokens').values(values)
        .onConflict((oc) => oc.column('jti').doUpdateSet({ expires_at: values.expires_at }).where('revoked_tokens.expires_at', '<', values.expires_at))
        .execute();
    },
    async sweepExpired(at) {
      await db.deleteFrom('revoked_tokens').where('expires_at', '<', at.toISOString()).execute();
    },
  };
}
