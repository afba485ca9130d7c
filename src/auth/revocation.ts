/**
 * The revocation list of token ids (`revoked_tokens`, shared by every replica through the
 * database), reloaded at most every `ttlMs` so a revocation takes effect within that time.
 * Deciding what a revoked token gets is `verify.ts`'s job.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

export interface RevocationList {
  isRevoked(jti: string): Promise<boolean>;
  /** Records a revocation and applies it in this process at once. */
  revoke(jti: string, expiresAt: Date): Promise<void>;
  /** Forgets the cached list (the next check reloads it). */
  invalidate(): void;
}

export function createRevocationList(db: Kysely<Database>, ttlMs = 5_000, now: () => number = Date.now): RevocationList {
  let revoked = new Set<string>();
  let loadedAt = Number.NEGATIVE_INFINITY;
  let inflight: Promise<void> | null = null;

  function reload(): Promise<void> {
    inflight ??= db.selectFrom('revoked_tokens').select('jti')
      .where('expires_at', '>', new Date(now()).toISOString())
      .execute()
      .then((rows) => {
        revoked = new Set(rows.map((r) => r.jti));
        loadedAt = now();
      })
      .finally(() => {
        inflight = null;
      });
    return inflight;
  }

  return {
    async isRevoked(jti) {
      if (now() - loadedAt >= ttlMs) await reload();
      return revoked.has(jti);
    },
    async revoke(jti, expiresAt) {
      await db.insertInto('revoked_tokens')
        .values({ jti, revoked_at: new Date(now()).toISOString(), expires_at: expiresAt.toISOString() })
        .onConflict((oc) => oc.column('jti').doNothing())
        .execute();
      revoked.add(jti);
    },
    invalidate() {
      loadedAt = Number.NEGATIVE_INFINITY;
    },
  };
}
