/**
 * The embedded Account's server-rendered pages: sign in, consent, and errors. Plain HTML forms
 * with one inline style sheet (allowed by a per-response CSP nonce), no script, no front-end
 * build. Every value is escaped; `pageHeaders` forbids framing and caching.
 */
import { randomBytes } from 'node:crypto';
import type Koa from 'koa';
import { HttpError } from '../http/errors.js';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

const STYLE = `
body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1d2330;margin:0}
main{max-width:28rem;margin:3rem auto;background:#fff;border-radius:8px;padding:1.5rem 2rem;box-shadow:0 1px 4px #0002}
h1{font-size:1.3rem;margin-top:0}
label{display:block;margin:.8rem 0 .3rem;font-weight:600}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;border:1px solid #99a;border-radius:4px}
button{font-size:1rem;padding:.5rem 1.2rem;margin:1rem .5rem 0 0;border-radius:4px;border:1px solid #245;cursor:pointer}
button.primary{background:#1f4fa3;color:#fff}
.error{color:#a11;font-weight:600}
.hint,.muted{color:#556;font-size:.9rem}
ul{padding-left:1.2rem}
fieldset{border:1px solid #ccd;border-radius:4px;margin-top:1rem}
`;

export interface Page {
  readonly body: string;
  readonly nonce: string;
}

export function renderPage(title: string, content: string): Page {
  const nonce = randomBytes(16).toString('base64');
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · Kobana Finance</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main>${content}</main></body></html>`;
  return { body, nonce };
}

/** Response headers of every page: no framing (clickjacking), no caching, no referrer leaking the interaction URL to other sites. */
export function pageHeaders(page: Page): Record<string, string> {
  return {
    'Content-Security-Policy': `default-src 'none'; style-src 'nonce-${page.nonce}'; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
    // same-origin, not no-referrer: with no-referrer browsers post forms with `Origin: null`, which the CSRF check refuses.
    'Referrer-Policy': 'same-origin',
    'X-Content-Type-Options': 'nosniff',
  };
}

/** Answers with a page and its headers. */
export function sendPage(ctx: Koa.Context, page: Page, status = 200): void {
  ctx.set(pageHeaders(page));
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = page.body;
}

export interface ClientView {
  readonly name: string;
  /** Where the browser goes afterwards (the redirect URI's origin), so the person can tell who asks. */
  readonly redirectOrigin: string;
  /**
   * The host of a client identified by its Client ID Metadata Document URL: who vouches for the
   * client (its `client_name` is self-asserted, the host is not). Absent for registered clients.
   */
  readonly clientIdHost?: string;
}

function clientLine(client: ClientView): string {
  const returns = `returns to ${escapeHtml(client.redirectOrigin)}`;
  if (client.clientIdHost !== undefined) {
    return `<p><strong>${escapeHtml(client.clientIdHost)}</strong> <span class="muted">(calls itself “${escapeHtml(client.name)}”; ${returns})</span> wants to use your Kobana Finance account.</p>`;
  }
  return `<p><strong>${escapeHtml(client.name)}</strong> <span class="muted">(${returns})</span> wants to use your Kobana Finance account.</p>`;
}

export interface LoginView {
  readonly action: string;
  readonly csrf: string;
  readonly client: ClientView;
  readonly email?: string;
  readonly error?: string;
  /** Shown while demo sign-in is on (docs/security.md#oauth-login). */
  readonly demoHint?: string;
}

export function renderLogin(view: LoginView): Page {
  return renderPage('Sign in', `<h1>Sign in</h1>
${clientLine(view.client)}
${view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : ''}
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(view.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary" type="submit">Sign in</button>
</form>
${view.demoHint ? `<p class="hint">${escapeHtml(view.demoHint)}</p>` : ''}`);
}

export interface ConsentView {
  readonly action: string;
  readonly csrf: string;
  readonly client: ClientView;
  readonly person: { readonly name: string; readonly email: string };
  readonly workspaces: readonly string[];
  /** The line of the reads granted on approval (src/oauth/scopes.ts `describeAccess`); null: none requested. */
  readonly reads: string | null;
  /** The lines (at most two) of the requested changes; granted only when the box is ticked. */
  readonly writes: readonly string[];
  readonly refresh: boolean;
}

/** The one line about what OAuth never grants (docs/security.md#oauth-login). */
export const NEVER_LINE = 'Never the Seguridad settings (what agents may do) nor approving money moves: only you do those, with a personal token';

/**
 * What the grant allows, as at most six lines (`ul.access`), none contradicting another: the
 * reads, the changes (only with the tick), the workspaces, what it never gets, how long it stays.
 */
function accessLines(view: ConsentView): string[] {
  const lines = [view.reads ?? 'Nothing beyond knowing who you are'];
  for (const write of view.writes) lines.push(`${write} (only if you tick “Also allow these changes”)`);
  lines.push(`Only in ${view.workspaces.length === 1 ? 'the workspace' : 'these workspaces'}: ${view.workspaces.length > 0 ? view.workspaces.join(', ') : 'none'}`);
  lines.push(NEVER_LINE);
  if (view.refresh) lines.push('Stays connected for up to 14 days unless you revoke it');
  return lines;
}

export function renderConsent(view: ConsentView): Page {
  const items = accessLines(view).map((line) => `<li>${escapeHtml(line)}.</li>`).join('');
  const tick = view.writes.length === 0 ? ''
    : '<p><label><input type="checkbox" name="allow_writes" value="yes"> Also allow these changes</label> <span class="muted">Without the tick it can only read.</span></p>';
  return renderPage('Authorize', `<h1>Authorize access</h1>
${clientLine(view.client)}
<p>Signed in as <strong>${escapeHtml(view.person.name)}</strong> (${escapeHtml(view.person.email)}). It will be able to:</p>
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<ul class="access">${items}</ul>
${tick}
<button class="primary" type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`);
}

export function renderError(title: string, message: string): Page {
  return renderPage(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p class="muted">You can close this window and start again from your application.</p>`);
}

/**
 * A page router's refusals (an HttpError) answered as a page titled `title`, with a 429's
 * `Retry-After`; anything else is left to the app's error handling.
 */
export function renderRefusalsAsPages(title: string): (ctx: Koa.Context, next: Koa.Next) => Promise<void> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      if (err.status === 429) ctx.set(err.headers);
      sendPage(ctx, renderError(title, err.message), err.status);
    }
  };
}
