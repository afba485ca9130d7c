/**
 * The oidc-provider configuration of the embedded Account's OAuth 2.1 authorization server
 * (docs/security.md#oauth-login): issuer = PUBLIC_URL (the `iss` the resource server already
 * expects), authorization code + PKCE S256 only, open dynamic client registration for public
 * clients, RFC 8707 resource indicators → JWT access tokens (`typ at+jwt`, ES256, signed with the
 * Account key the resource server trusts) whose `aud` is `/mcp` or `/v1`, refresh-token rotation,
 * revocation; Client ID Metadata Documents beside registration (client-documents.ts); the consent
 * page for every authorization that asks for a write scope. State lives in the database (adapter.ts).
 */
import Provider, { errors, interactionPolicy, type Account, type Adapter, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { AccountKey } from '../auth/account-key.js';
import type { Audience } from '../auth/types.js';
import { OAUTH_SCOPES, isWriteScope } from '../identity/scopes.js';
import { CLOCK_TOLERANCE_SECONDS } from '../auth/verify.js';
import type { Clock } from '../runtime/clock.js';
import type { RevocationList } from '../auth/revocation.js';
import { createAdapterFactory, ISSUED_ACCESS_TOKEN } from './adapter.js';
import { findActiveOrganization } from './people.js';
import { OIDC_SCOPES } from './scopes.js';
import { renderError, pageHeaders } from './pages.js';
import { clientDocumentFeature, clientDocumentFetch, type ClientDocumentTestSeam } from './client-documents.js';

/** Paths of the authorization server (all under PUBLIC_URL). */
export const OAUTH_ROUTES = {
  authorization: '/authorize',
  token: '/token',
  registration: '/register',
  revocation: '/revoke',
  jwks: '/.well-known/jwks.json',
} as const;

export const INTERACTION_PREFIX = '/account/interaction';

/** Access tokens live one hour at most (and never beyond TOKEN_MAX_LIFETIME_SECONDS). */
const ACCESS_TOKEN_TTL_SECONDS = 3600;
const DAY = 86_400;

export interface ProviderOptions {
  readonly issuer: string;
  readonly audiences: Readonly<Record<Audience, string>>;
  readonly db: Kysely<Database>;
  readonly signingKey: AccountKey;
  readonly cookieKeys: readonly string[];
  readonly maxLifetimeSeconds: number;
  readonly revocation: RevocationList;
  readonly clock: Clock;
  /** The largest registered metadata (its JSON), whatever the transfer encoding of the request. */
  readonly maxClientMetadataBytes: number;
  /** Tests only (src/oauth/client-documents.ts): how Client ID Metadata Documents are fetched from the test's server. */
  readonly clientDocumentTestSeam?: ClientDocumentTestSeam;
}

/** Redirect URIs a registered client may use: https anywhere, http on loopback only, or a private-use scheme (RFC 8252). */
function isAllowedRedirectUri(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.hash !== '') return false;
  if (url.protocol === 'https:') return true;
  if (url.protocol === 'http:') return ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
  // Private-use schemes are reverse domain names (com.example.app:/cb); never javascript:, data: and the like.
  return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol);
}

/**
 * oidc-provider calls the validator once per custom property only, so the registration policy
 * hangs on one (never sent by clients) and checks the whole metadata from there.
 */
const POLICY_PROPERTY = 'urn:kobana:registration-policy';

function validateClientMetadata(maxBytes: number, ctx: KoaContextWithOIDC | undefined, metadata: Record<string, unknown>): void {
  // Runs for registrations (ctx set), not for clients read back from storage.
  if (ctx === undefined) return;
  if (Buffer.byteLength(JSON.stringify(metadata)) > maxBytes) {
    throw new errors.InvalidClientMetadata(`client metadata must be at most ${maxBytes} bytes`);
  }
  if (!hasAllowedRedirectUris(metadata)) {
    throw new errors.InvalidRedirectUri('redirect_uris must be https, http on a loopback address, or a private-use scheme');
  }
  if (!isPublicClient(metadata)) {
    throw new errors.InvalidClientMetadata('only public clients (token_endpoint_auth_method none) can register');
  }
}

function hasAllowedRedirectUris(metadata: Record<string, unknown>): boolean {
  const uris = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris : [];
  return uris.every((u) => typeof u === 'string' && isAllowedRedirectUri(u));
}

function isPublicClient(metadata: Record<string, unknown>): boolean {
  return metadata.token_endpoint_auth_method === undefined || metadata.token_endpoint_auth_method === 'none';
}

/** A client of a Client ID Metadata Document is held to the registration policy too (client-documents.ts). */
const allowDocumentClient = (metadata: Record<string, unknown>): boolean => hasAllowedRedirectUris(metadata) && isPublicClient(metadata);

/**
 * The consent prompt of oidc-provider's default policy, plus one check: an authorization that
 * asks for a write scope always shows the consent page, whatever grant already exists (a grant
 * with write scopes is never reused silently; nor is one whose writes were left unticked).
 */
function interactionPrompts(): interactionPolicy.Prompt[] {
  const policy = interactionPolicy.base();
  const consent = policy.get('consent');
  if (consent === undefined) throw new Error('oidc-provider has no consent prompt');
  consent.checks.add(new interactionPolicy.Check('writes_requested', 'write scopes need the person\'s consent every time', 'consent_required', (ctx) => {
    const requested = [...(ctx.oidc.requestParamScopes ?? [])];
    return requested.some(isWriteScope) && ctx.oidc.result?.consent === undefined
      ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT;
  }));
  return [...policy];
}

type Settings<K extends keyof Configuration> = NonNullable<Configuration[K]>;

export function createProvider(options: ProviderOptions): Provider {
  const { db } = options;
  const lifetimes = tokenLifetimes(options.maxLifetimeSeconds);
  const scopes = [...OIDC_SCOPES, ...OAUTH_SCOPES];
  // One factory: it carries the expired-record sweep's clock, shared by every model.
  const adapter = createAdapterFactory(db, {
    revocation: options.revocation, now: () => options.clock.now(), fallbackRevocationSeconds: lifetimes.revocationSeconds, clientScopes: new Set(scopes),
  });
  const configuration: Configuration = {
    adapter,
    clients: [],
    jwks: { keys: [{ ...options.signingKey.privateJwk }] as never },
    cookies: cookieSettings(options.cookieKeys),
    scopes,
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    ...publicClientSettings(options.maxClientMetadataBytes),
    ...clientDocumentFetch(options.clientDocumentTestSeam),
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    pkce: { required: () => true },
    routes: OAUTH_ROUTES,
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PREFIX}/${interaction.uid}`, policy: interactionPrompts() },
    findAccount: (_ctx, sub) => findPerson(db, sub),
    extraTokenClaims: accessTokenClaims(db, adapter(ISSUED_ACCESS_TOKEN), lifetimes.revocationSeconds),
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: ttlSettings(lifetimes.accessTokenTTL),
    features: featureSettings(options.audiences, lifetimes.accessTokenTTL, options.clientDocumentTestSeam),
    renderError: renderErrorPage,
  };
  const provider = new Provider(options.issuer, configuration);
  // The public URL, never the request's Host, names every endpoint (index.ts sets the forwarded
  // host and protocol from PUBLIC_URL on every request it hands over).
  provider.proxy = true;
  return provider;
}

interface TokenLifetimes {
  readonly accessTokenTTL: number;
  /** How long a revocation row must live: the verifier accepts a token until `exp` + tolerance. */
  readonly revocationSeconds: number;
}

function tokenLifetimes(maxLifetimeSeconds: number): TokenLifetimes {
  const accessTokenTTL = Math.min(ACCESS_TOKEN_TTL_SECONDS, maxLifetimeSeconds);
  return { accessTokenTTL, revocationSeconds: accessTokenTTL + CLOCK_TOLERANCE_SECONDS };
}

function cookieSettings(cookieKeys: readonly string[]): Settings<'cookies'> {
  return {
    keys: [...cookieKeys],
    // Not the defaults (`_session`…): cookies are not port-scoped, so other local apps would collide.
    names: { session: 'kf_session', interaction: 'kf_interaction', resume: 'kf_resume' },
    long: { httpOnly: true, sameSite: 'lax' },
    short: { httpOnly: true, sameSite: 'lax' },
  };
}

/** Public clients only, registered under the policy of validateClientMetadata. */
function publicClientSettings(maxClientMetadataBytes: number): Pick<Configuration, 'clientAuthMethods' | 'clientDefaults' | 'extraClientMetadata'> {
  return {
    clientAuthMethods: ['none'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    extraClientMetadata: {
      properties: [POLICY_PROPERTY],
      validator: ((ctx: KoaContextWithOIDC | undefined, _key: string, _value: unknown, metadata: Record<string, unknown>) =>
        validateClientMetadata(maxClientMetadataBytes, ctx, metadata)) as never,
    },
  };
}

/** The account of a token's subject: a person not deleted. */
async function findPerson(db: Kysely<Database>, sub: string): Promise<Account | undefined> {
  const person = await db.selectFrom('persons').select('id').where('id', '=', sub).where('deleted_at', 'is', null).executeTakeFirst();
  return person === undefined ? undefined : { accountId: sub, claims: async () => ({ sub }) };
}

/** An access token's own claims: its organization, `token_type: oauth`, and `writes_approved` when it carries a write scope. */
function accessTokenClaims(db: Kysely<Database>, issued: Adapter, revocationSeconds: number): Settings<'extraTokenClaims'> {
  return async (_ctx, token) => {
    if (!('accountId' in token) || typeof token.accountId !== 'string') return undefined;
    // Recorded (awaited, before the token is handed out) with its grant and for as long as it
    // can be used, so revoking the grant revokes it on every replica (adapter.ts).
    if (typeof token.grantId === 'string') await issued.upsert(token.jti, { grantId: token.grantId }, revocationSeconds);
    // An inactive person's token still names an organization: the resource server then answers membership_inactive.
    const org = await findActiveOrganization(db, token.accountId) ?? await firstOrganization(db, token.accountId);
    const scopes = typeof token.scope === 'string' ? token.scope.split(' ') : [];
    // Write scopes reach a token only through the consent page's "also allow changes"; the
    // resource server keeps them only when the token says so (docs/security.md#oauth-login).
    return { org, token_type: 'oauth', ...(scopes.some(isWriteScope) ? { writes_approved: true } : {}) };
  };
}

function ttlSettings(accessTokenTTL: number): Settings<'ttl'> {
  return {
    AccessToken: accessTokenTTL,
    AuthorizationCode: 60,
    Interaction: 600,
    Session: 14 * DAY,
    Grant: 14 * DAY,
    RefreshToken: 14 * DAY,
  };
}

function featureSettings(audiences: Readonly<Record<Audience, string>>, accessTokenTTL: number, seam: ClientDocumentTestSeam | undefined): Settings<'features'> {
  return {
    clientIdMetadataDocument: clientDocumentFeature(seam, allowDocumentClient),
    devInteractions: { enabled: false },
    registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
    // A client revokes its own tokens only.
    revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
    userinfo: { enabled: false },
    rpInitiatedLogout: { enabled: false },
    introspection: { enabled: false },
    // The resource server checks bearer tokens only: a DPoP-bound token would be accepted without its proof.
    dPoP: { enabled: false },
    pushedAuthorizationRequests: { enabled: false },
    resourceIndicators: resourceIndicatorSettings(audiences, accessTokenTTL),
  };
}

/** RFC 8707: the resource is `/mcp` (the default) or `/v1`; its access token is a JWT for that audience. */
function resourceIndicatorSettings(audiences: Readonly<Record<Audience, string>>, accessTokenTTL: number): Settings<'features'>['resourceIndicators'] {
  const resources = new Set([audiences.mcp, audiences.api]);
  return {
    enabled: true,
    defaultResource: async () => audiences.mcp,
    useGrantedResource: async () => true,
    async getResourceServerInfo(_ctx, resourceIndicator) {
      if (!resources.has(resourceIndicator)) throw new errors.InvalidTarget('unknown resource');
      return {
        scope: OAUTH_SCOPES.join(' '),
        audience: resourceIndicator,
        accessTokenTTL,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'ES256' } },
      };
    },
  };
}

/** oidc-provider's own errors (a bad request, an unknown client) as one of our pages. */
const renderErrorPage: Settings<'renderError'> = async (ctx, out) => {
  const page = renderError('Sign-in failed', typeof out.error_description === 'string' ? out.error_description : 'The request could not be completed.');
  ctx.set(pageHeaders(page));
  ctx.type = 'html';
  ctx.body = page.body;
};

async function firstOrganization(db: Kysely<Database>, personId: string): Promise<string | undefined> {
  const row = await db.selectFrom('memberships').select('organization_id').where('person_id', '=', personId)
    .orderBy('created_at').orderBy('id').executeTakeFirst();
  return row?.organization_id;
}
