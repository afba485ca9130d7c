/**
 * The sign-in and consent pages of an authorization request (docs/security.md#oauth-login):
 * `GET /account/interaction/:uid` shows the page the request needs next; the forms post to
 * `…/login` and `…/consent`. Each post must carry the page's CSRF token (an HMAC of the
 * interaction id) and, when the browser sends one, our own Origin; the interaction itself is
 * bound to the browser by oidc-provider's cookie. The address's failed-authentication limit is
 * consulted before the password is checked (over it, even the right password is answered 429, so
 * 429 says nothing about the password) and failed sign-ins count against it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import type Koa from 'koa';
import type Provider from 'oidc-provider';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { HttpError } from '../http/errors.js';
import type { AuthLimits } from '../http/limits.js';
import { INTERACTION_PREFIX } from './provider.js';
import { DEMO_PASSWORD, describePerson, findActiveOrganization, signIn } from './people.js';
import { OIDC_SCOPES, describeScope, grantedScopes, isFinanceScope } from './scopes.js';
import { renderConsent, renderError, renderLogin, sendPage, type ClientView } from './pages.js';
import { isWriteScope } from '../identity/scopes.js';
import { DEMO_MEMBERS } from '../seed/identity.js';
import { readForm } from './form.js';

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

function requestedResources(param: unknown, fallback: string): string[] {
  const values = Array.isArray(param) ? param : param === undefined ? [] : [param];
  const resources = values.filter((v): v is string => typeof v === 'string' && v !== '');
  return resources.length > 0 ? resources : [fallback];
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
function redirectWithin(ctx: Koa.Context, returnTo: string): void {
  const url = new URL(returnTo, 'http://placeholder.invalid');
  ctx.status = 303;
  ctx.redirect(`${url.pathname}${url.search}`);
}

export function createInteractionRouter(options: InteractionOptions): Router {
  const { provider, db } = options;
  const router = new Router({ prefix: INTERACTION_PREFIX });
  const ownOrigin = new URL(options.publicUrl).origin;
  const csrfFor = (uid: string) => createHmac('sha256', options.csrfKey).update(`csrf:${uid}`).digest('base64url');
  const demoHint = options.demoSignIn
    ? `Demo: sign in as ${DEMO_MEMBERS.filter((m) => m.status === 'active').map((m) => m.email).join(' or ')} with the password "${DEMO_PASSWORD}".`
    : undefined;

  function assertSameOriginPost(ctx: Koa.Context, uid: string, form: URLSearchParams): void {
    const origin = ctx.get('origin');
    if (origin !== '' && origin !== ownOrigin) throw new HttpError(403, 'Cross-site form posts are refused.');
    const given = Buffer.from(form.get('csrf') ?? '');
    const expected = Buffer.from(csrfFor(uid));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new HttpError(403, 'The form has expired; start again.');
  }

  async function clientView(clientId: string | undefined, redirectUri: unknown): Promise<ClientView> {
    const client = clientId === undefined ? undefined : await provider.Client.find(clientId);
    const name = typeof client?.clientName === 'string' && client.clientName !== '' ? client.clientName : 'An unnamed application';
    return { name, redirectOrigin: describeRedirect(redirectUri) };
  }

  // Errors on these pages render as HTML, never as the JSON of the API surfaces.
  router.use(async (ctx, next) => {
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
  });

  router.get('/:uid', async (ctx) => {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const uid = details.uid;
    const client = await clientView(details.params.client_id as string | undefined, details.params.redirect_uri);
    if (details.prompt.name === 'login') {
      sendPage(ctx, renderLogin({ action: `${INTERACTION_PREFIX}/${uid}/login`, csrf: csrfFor(uid), client, ...(demoHint ? { demoHint } : {}) }));
      return;
    }
    const accountId = details.session?.accountId;
    const organizationId = accountId === undefined ? null : await findActiveOrganization(db, accountId);
    const person = accountId === undefined || organizationId === null ? null : await describePerson(db, accountId, organizationId);
    if (person === null) throw new HttpError(403, 'This person has no active membership.');
    const requested = String(details.params.scope ?? '').split(' ').filter((s) => isFinanceScope(s));
    sendPage(ctx, renderConsent({
      action: `${INTERACTION_PREFIX}/${uid}/consent`,
      csrf: csrfFor(uid),
      client,
      person,
      workspaces: person.workspaces,
      reads: requested.filter((s) => !isWriteScope(s)).map(describeScope),
      writes: requested.filter(isWriteScope).map(describeScope),
      refresh: String(details.params.scope ?? '').split(' ').includes('offline_access'),
    }));
  });

  router.post('/:uid/login', async (ctx) => {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const form = await readForm(ctx);
    assertSameOriginPost(ctx, details.uid, form);
    if (details.prompt.name !== 'login') throw new HttpError(400, 'This sign-in is not waiting for a password.');
    const email = form.get('email') ?? '';
    await options.limits.assertAuthAllowed(ctx.ip);
    const result = await signIn(db, email, form.get('password') ?? '', options.demoSignIn);
    if (!result.ok) {
      await options.limits.recordAuthFailure(ctx.ip);
      const client = await clientView(details.params.client_id as string | undefined, details.params.redirect_uri);
      sendPage(ctx, renderLogin({
        action: `${INTERACTION_PREFIX}/${details.uid}/login`, csrf: csrfFor(details.uid), client, email, error: 'Wrong email or password.', ...(demoHint ? { demoHint } : {}),
      }), 401);
      return;
    }
    const returnTo = await provider.interactionResult(ctx.req, ctx.res, { login: { accountId: result.person.personId } }, { mergeWithLastSubmission: false });
    redirectWithin(ctx, returnTo);
  });

  router.post('/:uid/consent', async (ctx) => {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const form = await readForm(ctx);
    assertSameOriginPost(ctx, details.uid, form);
    if (details.prompt.name !== 'consent' || details.session?.accountId === undefined) throw new HttpError(400, 'This sign-in is not waiting for consent.');
    // The membership may have ended since the sign-in.
    if (await findActiveOrganization(db, details.session.accountId) === null) throw new HttpError(403, 'This person has no active membership.');
    let result;
    if (form.get('decision') !== 'approve') {
      result = { error: 'access_denied', error_description: 'The person denied access.' };
    } else {
      const grant = new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id as string });
      const requested = String(details.params.scope ?? '').split(' ');
      const granted = grantedScopes(requested, form.get('allow_writes') === 'yes');
      // Every requested scope is decided: granted, or rejected (a scope neither granted nor
      // rejected would bring the consent page back). The finance scopes are also OpenID-level
      // scopes of oidc-provider (registration validates against those), so they are decided twice.
      const rejected = requested.filter((s) => isFinanceScope(s) && !granted.includes(s));
      const oidc = [...requested.filter((s) => OIDC_SCOPES.includes(s)), ...granted];
      if (oidc.length > 0) grant.addOIDCScope(oidc.join(' '));
      if (rejected.length > 0) grant.rejectOIDCScope(rejected.join(' '));
      for (const resource of requestedResources(details.params.resource, options.defaultResource)) {
        if (granted.length > 0) grant.addResourceScope(resource, granted.join(' '));
        if (rejected.length > 0) grant.rejectResourceScope(resource, rejected.join(' '));
      }
      result = { consent: { grantId: await grant.save() } };
    }
    const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: true });
    redirectWithin(ctx, returnTo);
  });

  return router;
}
