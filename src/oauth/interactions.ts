/**
 * The sign-in and consent pages of an authorization request (docs/security.md#oauth-login):
 * `GET /account/interaction/:uid` shows the page the request needs next; the forms post to
 * `…/login` and `…/consent`. Each post must carry the page's CSRF token (an HMAC of the
 * interaction id) and, when the browser sends one, our own Origin; the interaction itself is
 * bound to the browser by oidc-provider's cookie. The address's failed-authentication limit is
 * consulted before the password is checked (over it, even the right password is answered 429, so
 * 429 says nothing about the password) and failed sign-ins count against it.
 */
import Router, { type RouterContext } from '@koa/router';
import type Koa from 'koa';
import type Provider from 'oidc-provider';
import type { Interaction, InteractionResults } from 'oidc-provider';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { HttpError } from '../http/errors.js';
import type { AuthLimits } from '../http/limits.js';
import { INTERACTION_PREFIX } from './provider.js';
import type { AppState } from '../http/app-state.js';
import { DEMO_PASSWORD, credentialsOf, describePerson, findActiveOrganization, signInWithinLimit, type PersonSummary } from './people.js';
import { OIDC_SCOPES, describeAccess, grantedScopes, isFinanceScope } from './scopes.js';
import { renderConsent, renderError, renderLogin, sendPage, type ClientView, type Page } from './pages.js';
import { DEMO_MEMBERS } from '../seed/identity.js';
import { createFormPostGuard, readForm, type FormPostGuard } from './form.js';

export interface InteractionOptions {
  readonly provider: Provider;
  readonly db: Kysely<Database>;
  readonly publicUrl: string;
  readonly csrfKey: string;
  readonly demoSignIn: boolean;
  readonly limits: AuthLimits;
  /** The resource of a request that names none (RFC 8707): the MCP endpoint. */
  readonly defaultResource: string;
}

type PageContext = RouterContext<AppState>;

/** What the handlers of the pages share, built once per router. */
interface Pages {
  readonly options: InteractionOptions;
  readonly guard: FormPostGuard;
  /** The sign-in page's line about the demo people, while demo sign-in is on. */
  readonly demoHint: string | undefined;
}

export function createInteractionRouter(options: InteractionOptions): Router<AppState> {
  const pages: Pages = {
    options,
    guard: createFormPostGuard(options.csrfKey, 'csrf', options.publicUrl),
    demoHint: options.demoSignIn ? demoHint() : undefined,
  };
  const router = new Router<AppState>({ prefix: INTERACTION_PREFIX });
  // Errors on these pages render as HTML, never as the JSON of the API surfaces.
  router.use(renderErrorsAsPages);
  router.get('/:uid', (ctx) => showInteraction(pages, ctx));
  router.post('/:uid/login', (ctx) => submitLogin(pages, ctx));
  router.post('/:uid/consent', (ctx) => submitConsent(pages, ctx));
  return router;
}

function demoHint(): string {
  const emails = DEMO_MEMBERS.filter((m) => m.status === 'active').map((m) => m.email).join(' or ');
  return `Demo: sign in as ${emails} with the password "${DEMO_PASSWORD}".`;
}

async function renderErrorsAsPages(ctx: PageContext, next: Koa.Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    const status = err instanceof HttpError ? err.status : (err as { name?: string }).name === 'SessionNotFound' ? 400 : 500;
    if (status === 500) ctx.app.emit('error', err, ctx);
    if (err instanceof HttpError && err.status === 429) ctx.set(err.headers);
    const message = err instanceof HttpError ? err.message
      : status === 400 ? 'This sign-in has expired or was opened in another browser.' : 'Something went wrong.';
    sendPage(ctx, renderError('Sign-in failed', message), status);
  }
}

/** `GET /:uid`: the page the authorization request needs next, sign-in or consent. */
async function showInteraction(pages: Pages, ctx: PageContext): Promise<void> {
  const details = await pages.options.provider.interactionDetails(ctx.req, ctx.res);
  const client = await clientView(pages.options.provider, details);
  if (details.prompt.name === 'login') {
    sendPage(ctx, loginPage(pages, details.uid, client));
    return;
  }
  sendPage(ctx, await consentPage(pages, details, client));
}

/** `POST /:uid/login`: the sign-in, under the address's failed-authentication limit. */
async function submitLogin(pages: Pages, ctx: PageContext): Promise<void> {
  const { provider, db, limits, demoSignIn } = pages.options;
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  const form = await readOwnForm(pages, ctx, details.uid);
  if (details.prompt.name !== 'login') throw new HttpError(400, 'This sign-in is not waiting for a password.');
  const credentials = credentialsOf(form);
  const result = await signInWithinLimit(db, limits, ctx.ip, credentials, demoSignIn);
  if (!result.ok) {
    const client = await clientView(provider, details);
    sendPage(ctx, loginPage(pages, details.uid, client, { email: credentials.email, error: 'Wrong email or password.' }), 401);
    return;
  }
  const returnTo = await provider.interactionResult(ctx.req, ctx.res, { login: { accountId: result.person.personId } }, { mergeWithLastSubmission: false });
  redirectWithin(ctx, returnTo);
}

/** `POST /:uid/consent`: the person's decision; approving saves the grant. */
async function submitConsent(pages: Pages, ctx: PageContext): Promise<void> {
  const { provider, db } = pages.options;
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  const form = await readOwnForm(pages, ctx, details.uid);
  const accountId = details.session?.accountId;
  if (details.prompt.name !== 'consent' || accountId === undefined) throw new HttpError(400, 'This sign-in is not waiting for consent.');
  // The membership may have ended since the sign-in.
  if (await findActiveOrganization(db, accountId) === null) throw new HttpError(403, 'This person has no active membership.');
  const result: InteractionResults = form.get('decision') !== 'approve'
    ? { error: 'access_denied', error_description: 'The person denied access.' }
    : { consent: { grantId: await saveGrant(pages.options, details, accountId, form.get('allow_writes') === 'yes') } };
  const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: true });
  redirectWithin(ctx, returnTo);
}

/** The post's form, once it is known to be this page's: our Origin (when one is sent) and the page's CSRF token. */
async function readOwnForm(pages: Pages, ctx: PageContext, uid: string): Promise<URLSearchParams> {
  const form = await readForm(ctx);
  if (!pages.guard.fromOwnOrigin(ctx)) throw new HttpError(403, 'Cross-site form posts are refused.');
  if (!pages.guard.carriesToken(form, uid)) throw new HttpError(403, 'The form has expired; start again.');
  return form;
}

function loginPage(pages: Pages, uid: string, client: ClientView, failed?: { email: string; error: string }): Page {
  return renderLogin({
    action: `${INTERACTION_PREFIX}/${uid}/login`, csrf: pages.guard.token(uid), client, ...failed, ...(pages.demoHint ? { demoHint: pages.demoHint } : {}),
  });
}

/** Who asks, who is signed in, what the requested finance scopes allow, and in which workspaces. */
async function consentPage(pages: Pages, details: Interaction, client: ClientView): Promise<Page> {
  const person = await signedInPerson(pages.options.db, details.session?.accountId);
  if (person === null) throw new HttpError(403, 'This person has no active membership.');
  const scopes = requestedScopes(details);
  return renderConsent({
    action: `${INTERACTION_PREFIX}/${details.uid}/consent`,
    csrf: pages.guard.token(details.uid),
    client,
    person,
    workspaces: person.workspaces,
    ...describeAccess(scopes),
    refresh: scopes.includes('offline_access'),
  });
}

/** The signed-in person, as a member of their first active membership's organization; null without one. */
async function signedInPerson(db: Kysely<Database>, accountId: string | undefined): Promise<PersonSummary | null> {
  if (accountId === undefined) return null;
  const organizationId = await findActiveOrganization(db, accountId);
  return organizationId === null ? null : describePerson(db, accountId, organizationId);
}

/**
 * Saves the grant of an approved consent. Every requested scope is decided: granted, or rejected
 * (a scope neither granted nor rejected would bring the consent page back). The finance scopes
 * are also OpenID-level scopes of oidc-provider (registration validates against those), so they
 * are decided twice.
 */
async function saveGrant(options: InteractionOptions, details: Interaction, accountId: string, approveWrites: boolean): Promise<string> {
  const grant = new options.provider.Grant({ accountId, clientId: details.params.client_id as string });
  const requested = requestedScopes(details);
  const granted = grantedScopes(requested, approveWrites);
  const rejected = requested.filter((s) => isFinanceScope(s) && !granted.includes(s));
  const oidc = [...requested.filter((s) => OIDC_SCOPES.includes(s)), ...granted];
  if (oidc.length > 0) grant.addOIDCScope(oidc.join(' '));
  if (rejected.length > 0) grant.rejectOIDCScope(rejected.join(' '));
  for (const resource of requestedResources(details.params.resource, options.defaultResource)) {
    if (granted.length > 0) grant.addResourceScope(resource, granted.join(' '));
    if (rejected.length > 0) grant.rejectResourceScope(resource, rejected.join(' '));
  }
  return grant.save();
}

function requestedScopes(details: Interaction): string[] {
  return String(details.params.scope ?? '').split(' ');
}

function requestedResources(param: unknown, fallback: string): string[] {
  const values = Array.isArray(param) ? param : param === undefined ? [] : [param];
  const resources = values.filter((v): v is string => typeof v === 'string' && v !== '');
  return resources.length > 0 ? resources : [fallback];
}

/**
 * The client as the pages name it: its self-chosen name, where it returns to, and — for a client
 * identified by its metadata document's URL — that URL's host, the part nobody can self-assert.
 */
async function clientView(provider: Provider, details: Interaction): Promise<ClientView> {
  const clientId = details.params.client_id as string | undefined;
  const client = clientId === undefined ? undefined : await provider.Client.find(clientId);
  const name = typeof client?.clientName === 'string' && client.clientName !== '' ? client.clientName : 'An unnamed application';
  const view = { name, redirectOrigin: describeRedirect(details.params.redirect_uri) };
  const fromDocument = (client as { clientIdMetadataDocument?: boolean } | undefined)?.clientIdMetadataDocument === true;
  return fromDocument && clientId !== undefined ? { ...view, clientIdHost: new URL(clientId).host } : view;
}

/**
 * Where the consent page says the client returns to: the origin of an https or loopback redirect
 * URI, the scheme of a private-use one (RFC 8252 §7.1: `com.example.app:/cb` is the app
 * `com.example.app`; its URL origin is the string "null").
 */
function describeRedirect(redirectUri: unknown): string {
  if (typeof redirectUri !== 'string') return 'an unknown address';
  const url = URL.parse(redirectUri);
  if (url === null) return 'an unknown address';
  if (url.protocol === 'https:' || url.protocol === 'http:') return url.origin;
  return `the app ${url.protocol.slice(0, -1)}`;
}

/**
 * 303 to oidc-provider's resume URL as a path (relative to the page, whose origin is the public
 * one): the URL names PUBLIC_URL's origin (src/oauth/index.ts), and a path keeps the browser on
 * the origin it already uses.
 */
function redirectWithin(ctx: PageContext, returnTo: string): void {
  const url = new URL(returnTo, 'http://placeholder.invalid');
  ctx.status = 303;
  ctx.redirect(`${url.pathname}${url.search}`);
}
