/**
 * The approval link's page (docs/security.md#approval-links): `GET /account/approvals/:id` shows
 * the exact sentence of the destructive call, a sign-in form and a Deny button; `POST` approves
 * it when the person who signs in is the person the call was made for, or records the Deny (no
 * sign-in: it can only stop the call). An agent holding only its token cannot
 * approve: the page wants the person's own sign-in. Same CSRF, Origin and header rules as the
 * sign-in pages: the address's failed-authentication limit is consulted before the password is
 * checked, and failed sign-ins count against it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import type Koa from 'koa';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { HttpError } from '../http/errors.js';
import type { AuthLimits } from '../http/limits.js';
import { APPROVAL_PATH, type ApprovalLinks } from './approvals.js';
import { signIn } from './people.js';
import { escapeHtml, renderError, renderPage, sendPage } from './pages.js';
import { readForm } from './form.js';

export interface ApprovalPageOptions {
  readonly db: Kysely<Database>;
  readonly approvals: ApprovalLinks;
  readonly publicUrl: string;
  readonly csrfKey: string;
  readonly demoSignIn: boolean;
  readonly limits: AuthLimits;
  /** The process's clock (src/runtime/clock.ts), in milliseconds. */
  readonly now: () => number;
}

export function createApprovalRouter(options: ApprovalPageOptions): Router {
  const router = new Router({ prefix: APPROVAL_PATH });
  const ownOrigin = new URL(options.publicUrl).origin;
  const csrfFor = (id: string) => createHmac('sha256', options.csrfKey).update(`approval:${id}`).digest('base64url');

  function renderApproval(id: string, message: string, expiresAt: number, error?: string) {
    const minutes = Math.max(1, Math.round((expiresAt - options.now() / 1000) / 60));
    return renderPage('Approve an action', `<h1>Approve an action</h1>
<p>Your assistant asked to do this, and needs your approval:</p>
<p><strong>${escapeHtml(message)}</strong></p>
<p class="muted">It can then do it once, with exactly these details, within about ${minutes} minute(s).</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${APPROVAL_PATH}/${escapeHtml(id)}">
<input type="hidden" name="csrf" value="${escapeHtml(csrfFor(id))}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary" type="submit" name="decision" value="approve">Sign in and approve</button>
</form>
<form method="post" action="${APPROVAL_PATH}/${escapeHtml(id)}">
<input type="hidden" name="csrf" value="${escapeHtml(csrfFor(id))}">
<button type="submit" name="decision" value="deny">Deny</button>
</form>`);
  }

  const answeredPage = (approval: { approved: boolean; denied?: boolean; used: boolean }) => {
    if (approval.denied === true) return renderPage('Denied', '<h1>Denied</h1><p>Nothing was changed. Your assistant is told you said no.</p>');
    if (approval.used) return renderPage('Done', '<h1>Done</h1><p>This approval has been used; a new request needs a new link.</p>');
    return renderPage('Approved', '<h1>Approved</h1><p>Your assistant can now do it once.</p>');
  };

  router.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      if (err.status === 429) ctx.set(err.headers);
      sendPage(ctx, renderError('Approval failed', err.message), err.status);
    }
  });

  const gone = () => new HttpError(404, 'This approval link has expired or does not exist. Ask your assistant to try again.');

  router.get('/:id', async (ctx) => {
    const approval = await options.approvals.read(ctx.params.id as string);
    if (approval === undefined) throw gone();
    if (approval.approved || approval.denied === true || approval.used) {
      sendPage(ctx, answeredPage(approval));
      return;
    }
    sendPage(ctx, renderApproval(ctx.params.id as string, approval.message, approval.expiresAt));
  });

  router.post('/:id', async (ctx) => {
    const id = ctx.params.id as string;
    const form = await readForm(ctx);
    const origin = ctx.get('origin');
    const given = Buffer.from(form.get('csrf') ?? '');
    const expected = Buffer.from(csrfFor(id));
    if ((origin !== '' && origin !== ownOrigin) || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new HttpError(403, 'The form has expired; open the link again.');
    }
    const approval = await options.approvals.read(id);
    if (approval === undefined) throw gone();
    if (approval.approved || approval.denied === true || approval.used) {
      sendPage(ctx, answeredPage(approval));
      return;
    }
    // Saying no needs no sign-in: it can only stop the call it names.
    if (form.get('decision') === 'deny') {
      if (!(await options.approvals.answer(id, 'denied'))) throw gone();
      sendPage(ctx, renderPage('Denied', '<h1>Denied</h1><p>Nothing was changed. Your assistant is told you said no.</p>'));
      return;
    }
    await options.limits.assertAuthAllowed(ctx.ip);
    const result = await signIn(options.db, form.get('email') ?? '', form.get('password') ?? '', options.demoSignIn);
    if (!result.ok) {
      await options.limits.recordAuthFailure(ctx.ip);
      sendPage(ctx, renderApproval(id, approval.message, approval.expiresAt, 'Wrong email or password.'), 401);
      return;
    }
    if (result.person.personId !== approval.personId || result.person.organizationId !== approval.organizationId) {
      throw new HttpError(403, 'This action was asked for by someone else; only that person can approve it.');
    }
    if (!(await options.approvals.answer(id, 'approved'))) throw gone();
    sendPage(ctx, renderPage('Approved', '<h1>Approved</h1><p>Go back to your assistant: it can now do it once.</p>'));
  });

  return router;
}
