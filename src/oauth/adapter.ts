/**
 * oidc-provider's storage adapter on the app's database (`oauth_records`, SQLite or PostgreSQL),
 * so clients, grants, sessions, interactions, codes and refresh tokens survive restarts and are
 * shared by every replica (docs/security.md#oauth-login). Expired rows are invisible at once and
 * deleted in the background at most once per `sweepIntervalMs` (with the expired rows of the
 * revocation list). A registered client that no person ever granted anything expires
 * `UNUSED_CLIENT_TTL_SECONDS` after its registration; its first grant makes it permanent. A
 * stored client's `scope` is read back without the scopes the server no longer offers.
 * Ids that cannot be stored (a NUL byte, which PostgreSQL text refuses, or invalid Unicode: src/api/unsafe-text.ts)
 * name no record.
 */
import type { Kysely } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Database } from '../store/schema.js';
import type { RevocationList } from '../auth/revocation.js';
import { isUnsafeText } from '../api/index.js';

const SWEEP_INTERVAL_MS = 10 * 60_000;

/** A dynamically registered client nobody ever signed in with is deleted a day after its registration. */
export const UNUSED_CLIENT_TTL_SECONDS = 86_400;

/**
 * JWT access tokens are not stored by oidc-provider; their ids are kept under this model name
 * (with their grant, for as long as the token lives) so that revoking a grant — a revoked or
 * replayed refresh token, a replayed code — also puts its access tokens on the resource
 * server's revocation list.
 */
export const ISSUED_ACCESS_TOKEN = 'IssuedAccessToken';

export interface AdapterOptions {
  readonly revocation: RevocationList;
  /** The process's clock (src/runtime/clock.ts), in milliseconds. */
  readonly now: () => number;
  readonly sweepIntervalMs?: number;
  /** How long a revocation row lives when its access token's own expiry was not recorded. */
  readonly fallbackRevocationSeconds: number;
  /**
   * The scopes a stored client may name. Clients registered before the Seguridad scopes were
   * withdrawn from OAuth asked for them (they were offered); read back, they keep the others
   * instead of failing oidc-provider's check of every stored client.
   */
  readonly clientScopes: ReadonlySet<string>;
}

/** A value that can name a stored record (a NUL byte fails a PostgreSQL query; nothing stored holds one). */
const isStorableText = (value: string): boolean => !isUnsafeText(value);

export function createAdapterFactory(db: Kysely<Database>, options: AdapterOptions): (model: string) => Adapter {
  const { now } = options;
  const sweepIntervalMs = options.sweepIntervalMs ?? SWEEP_INTERVAL_MS;
  let lastSweep = now();
  const nowIso = () => new Date(now()).toISOString();

  function sweep(): void {
    if (now() - lastSweep < sweepIntervalMs) return;
    lastSweep = now();
    // Fire and forget: a failed sweep only leaves rows that are already invisible (or revocations of expired tokens).
    db.deleteFrom('oauth_records').where('expires_at', '<', nowIso()).execute().catch(() => undefined);
    options.revocation.sweepExpired(new Date(now())).catch(() => undefined);
  }

  const live = (expiresAt: string | null) => expiresAt === null || expiresAt > nowIso();

  /** The first grant of a client makes it a used client: it no longer expires. */
  async function markClientUsed(clientId: string): Promise<void> {
    await db.updateTable('oauth_records').set({ expires_at: null })
      .where('model', '=', 'Client').where('id', '=', clientId).where('expires_at', 'is not', null).execute();
  }

  return (model) => {
    async function findWhere(column: 'id' | 'uid', value: string): Promise<AdapterPayload | undefined> {
      if (!isStorableText(value)) return undefined;
      const row = await db.selectFrom('oauth_records').select(['payload', 'expires_at', 'consumed_at'])
        .where('model', '=', model).where(column, '=', value).executeTakeFirst();
      if (row === undefined || !live(row.expires_at)) return undefined;
      const payload = readPayload(row.payload);
      return row.consumed_at === null ? payload : { ...payload, consumed: Math.floor(Date.parse(row.consumed_at) / 1000) };
    }

    function readPayload(text: string): AdapterPayload {
      const payload = JSON.parse(text) as AdapterPayload;
      if (model !== 'Client' || typeof payload.scope !== 'string') return payload;
      return { ...payload, scope: payload.scope.split(' ').filter((s) => options.clientScopes.has(s)).join(' ') };
    }

    function expiryOf(expiresIn: number | undefined): string | null {
      if (expiresIn) return new Date(now() + expiresIn * 1000).toISOString();
      // oidc-provider gives clients no lifetime: an unused one gets ours.
      return model === 'Client' ? new Date(now() + UNUSED_CLIENT_TTL_SECONDS * 1000).toISOString() : null;
    }

    return {
      async upsert(id, payload, expiresIn) {
        sweep();
        const values = {
          payload: JSON.stringify(payload),
          grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
          uid: typeof payload.uid === 'string' ? payload.uid : null,
          expires_at: expiryOf(expiresIn),
        };
        await db.insertInto('oauth_records').values({ model, id, consumed_at: null, ...values })
          .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet(values))
          .execute();
        if (model === 'Grant' && typeof payload.clientId === 'string') await markClientUsed(payload.clientId);
      },
      find: (id) => findWhere('id', id),
      findByUid: (uid) => findWhere('uid', uid),
      // Device flow is off: no model is ever looked up by user code.
      findByUserCode: async () => undefined,
      async consume(id) {
        if (!isStorableText(id)) return;
        await db.updateTable('oauth_records').set({ consumed_at: nowIso() })
          .where('model', '=', model).where('id', '=', id).execute();
      },
      async destroy(id) {
        if (!isStorableText(id)) return;
        await db.deleteFrom('oauth_records').where('model', '=', model).where('id', '=', id).execute();
      },
      async revokeByGrantId(grantId) {
        if (!isStorableText(grantId)) return;
        const issued = await db.selectFrom('oauth_records').select(['id', 'expires_at'])
          .where('model', '=', ISSUED_ACCESS_TOKEN).where('grant_id', '=', grantId).execute();
        for (const token of issued) {
          const expiresAt = token.expires_at ?? new Date(now() + options.fallbackRevocationSeconds * 1000).toISOString();
          await options.revocation.revoke(token.id, new Date(expiresAt));
        }
        // Every model of the grant (codes, refresh tokens, issued access tokens), not only this adapter's.
        await db.deleteFrom('oauth_records').where('grant_id', '=', grantId).execute();
      },
    };
  };
}
