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
  // One store for every model: it carries the expired-record sweep's clock.
  const records = new OAuthRecords(db, options);
  // An arrow, not a class: oidc-provider calls a factory it cannot construct with the model name.
  return (model) => new ModelAdapter(records, model);
}

/** What the adapters of every model share: the table, the clock and the expired-record sweep. */
class OAuthRecords {
  private readonly sweepIntervalMs: number;
  private lastSweep: number;

  constructor(readonly db: Kysely<Database>, readonly options: AdapterOptions) {
    this.sweepIntervalMs = options.sweepIntervalMs ?? SWEEP_INTERVAL_MS;
    this.lastSweep = options.now();
  }

  now(): number {
    return this.options.now();
  }

  nowIso(): string {
    return new Date(this.now()).toISOString();
  }

  /** The instant `seconds` from now, as stored. */
  inSeconds(seconds: number): string {
    return new Date(this.now() + seconds * 1000).toISOString();
  }

  isLive(expiresAt: string | null): boolean {
    return expiresAt === null || expiresAt > this.nowIso();
  }

  /** Deletes the expired rows, at most once per `sweepIntervalMs`. */
  sweep(): void {
    if (this.now() - this.lastSweep < this.sweepIntervalMs) return;
    this.lastSweep = this.now();
    // Fire and forget: a failed sweep only leaves rows that are already invisible (or revocations of expired tokens).
    this.db.deleteFrom('oauth_records').where('expires_at', '<', this.nowIso()).execute().catch(() => undefined);
    this.options.revocation.sweepExpired(new Date(this.now())).catch(() => undefined);
  }

  /** The first grant of a client makes it a used client: it no longer expires. */
  async markClientUsed(clientId: string): Promise<void> {
    await this.db.updateTable('oauth_records').set({ expires_at: null })
      .where('model', '=', 'Client').where('id', '=', clientId).where('expires_at', 'is not', null).execute();
  }
}

/** oidc-provider's adapter of one model (`Client`, `Grant`, `Session`, …) on `oauth_records`. */
class ModelAdapter implements Adapter {
  constructor(private readonly records: OAuthRecords, private readonly model: string) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    this.records.sweep();
    const values = {
      payload: JSON.stringify(payload),
      grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
      uid: typeof payload.uid === 'string' ? payload.uid : null,
      expires_at: this.expiryOf(expiresIn),
    };
    await this.records.db.insertInto('oauth_records').values({ model: this.model, id, consumed_at: null, ...values })
      .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet(values))
      .execute();
    if (this.model === 'Grant' && typeof payload.clientId === 'string') await this.records.markClientUsed(payload.clientId);
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    return this.findWhere('id', id);
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findWhere('uid', uid);
  }

  // Device flow is off: no model is ever looked up by user code.
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }

  async consume(id: string): Promise<void> {
    if (!isStorableText(id)) return;
    await this.records.db.updateTable('oauth_records').set({ consumed_at: this.records.nowIso() })
      .where('model', '=', this.model).where('id', '=', id).execute();
  }

  async destroy(id: string): Promise<void> {
    if (!isStorableText(id)) return;
    await this.records.db.deleteFrom('oauth_records').where('model', '=', this.model).where('id', '=', id).execute();
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    if (!isStorableText(grantId)) return;
    const { db, options } = this.records;
    const issued = await db.selectFrom('oauth_records').select(['id', 'expires_at'])
      .where('model', '=', ISSUED_ACCESS_TOKEN).where('grant_id', '=', grantId).execute();
    for (const token of issued) {
      const expiresAt = token.expires_at ?? this.records.inSeconds(options.fallbackRevocationSeconds);
      await options.revocation.revoke(token.id, new Date(expiresAt));
    }
    // Every model of the grant (codes, refresh tokens, issued access tokens), not only this adapter's.
    await db.deleteFrom('oauth_records').where('grant_id', '=', grantId).execute();
  }

  private async findWhere(column: 'id' | 'uid', value: string): Promise<AdapterPayload | undefined> {
    if (!isStorableText(value)) return undefined;
    const row = await this.records.db.selectFrom('oauth_records').select(['payload', 'expires_at', 'consumed_at'])
      .where('model', '=', this.model).where(column, '=', value).executeTakeFirst();
    if (row === undefined || !this.records.isLive(row.expires_at)) return undefined;
    const payload = this.readPayload(row.payload);
    return row.consumed_at === null ? payload : { ...payload, consumed: Math.floor(Date.parse(row.consumed_at) / 1000) };
  }

  /** A stored client's `scope` names only the scopes still offered (AdapterOptions.clientScopes). */
  private readPayload(text: string): AdapterPayload {
    const payload = JSON.parse(text) as AdapterPayload;
    if (this.model !== 'Client' || typeof payload.scope !== 'string') return payload;
    const { clientScopes } = this.records.options;
    return { ...payload, scope: payload.scope.split(' ').filter((s) => clientScopes.has(s)).join(' ') };
  }

  private expiryOf(expiresIn: number | undefined): string | null {
    if (expiresIn) return this.records.inSeconds(expiresIn);
    // oidc-provider gives clients no lifetime: an unused one gets ours.
    return this.model === 'Client' ? this.records.inSeconds(UNUSED_CLIENT_TTL_SECONDS) : null;
  }
}
