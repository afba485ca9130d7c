/**
 * oidc-provider's storage adapter on the app's database (`oauth_records`, SQLite or PostgreSQL),
 * so clients, grants, sessions, interactions, codes and refresh tokens survive restarts and are
 * shared by every replica (docs/security.md#oauth-login). Expired rows are invisible at once and
 * deleted in the background at most once per `sweepIntervalMs`.
 */
import type { Kysely } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Database } from '../store/schema.js';
import type { RevocationList } from '../auth/revocation.js';

const SWEEP_INTERVAL_MS = 10 * 60_000;

/**
 * JWT access tokens are not stored by oidc-provider; their ids are kept under this model name
 * (with their grant) so that revoking a grant — a revoked or replayed refresh token — also puts
 * its access tokens on the resource server's revocation list.
 */
export const ISSUED_ACCESS_TOKEN = 'IssuedAccessToken';

export interface AdapterOptions {
  readonly revocation: RevocationList;
  readonly now?: () => number;
  readonly sweepIntervalMs?: number;
}

export function createAdapterFactory(db: Kysely<Database>, options: AdapterOptions): (model: string) => Adapter {
  const now = options.now ?? Date.now;
  const sweepIntervalMs = options.sweepIntervalMs ?? SWEEP_INTERVAL_MS;
  let lastSweep = now();

  function sweep(): void {
    if (now() - lastSweep < sweepIntervalMs) return;
    lastSweep = now();
    // Fire and forget: a failed sweep only leaves rows that are already invisible.
    db.deleteFrom('oauth_records').where('expires_at', '<', new Date(now()).toISOString()).execute().catch(() => undefined);
  }

  const live = (expiresAt: string | null) => expiresAt === null || expiresAt > new Date(now()).toISOString();

  return (model) => {
    async function findWhere(column: 'id' | 'uid', value: string): Promise<AdapterPayload | undefined> {
      const row = await db.selectFrom('oauth_records').select(['payload', 'expires_at', 'consumed_at'])
        .where('model', '=', model).where(column, '=', value).executeTakeFirst();
      if (row === undefined || !live(row.expires_at)) return undefined;
      const payload = JSON.parse(row.payload) as AdapterPayload;
      return row.consumed_at === null ? payload : { ...payload, consumed: Math.floor(Date.parse(row.consumed_at) / 1000) };
    }

    return {
      async upsert(id, payload, expiresIn) {
        sweep();
        const values = {
          payload: JSON.stringify(payload),
          grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
          uid: typeof payload.uid === 'string' ? payload.uid : null,
          expires_at: expiresIn ? new Date(now() + expiresIn * 1000).toISOString() : null,
        };
        await db.insertInto('oauth_records').values({ model, id, consumed_at: null, ...values })
          .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet(values))
          .execute();
      },
      find: (id) => findWhere('id', id),
      findByUid: (uid) => findWhere('uid', uid),
      // Device flow is off: no model is ever looked up by user code.
      findByUserCode: async () => undefined,
      async consume(id) {
        await db.updateTable('oauth_records').set({ consumed_at: new Date(now()).toISOString() })
          .where('model', '=', model).where('id', '=', id).execute();
      },
      async destroy(id) {
        await db.deleteFrom('oauth_records').where('model', '=', model).where('id', '=', id).execute();
      },
      async revokeByGrantId(grantId) {
        const issued = await db.selectFrom('oauth_records').select(['id', 'expires_at'])
          .where('model', '=', ISSUED_ACCESS_TOKEN).where('grant_id', '=', grantId).execute();
        for (const token of issued) {
          await options.revocation.revoke(token.id, new Date(token.expires_at ?? now() + 86_400_000));
        }
        // Every model of the grant (codes, refresh tokens, issued access tokens), not only this adapter's.
        await db.deleteFrom('oauth_records').where('grant_id', '=', grantId).execute();
      },
    };
  };
}
