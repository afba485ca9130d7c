/**
 * Form posts of the Account's pages (docs/security.md#oauth-login): reading one
 * (`application/x-www-form-urlencoded`, at most 16 KiB) and telling whether it is ours — sent,
 * when the browser names an Origin, from our own, and carrying the page's CSRF token (an HMAC of
 * the page's id under the shared cookie key).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import { HttpError } from '../http/errors.js';
// The shared capped reader, so form bodies count against the process's body-memory budget too.
import { readBodyWithinLimit } from '../http/capped-body.js';

const MAX_FORM_BYTES = 16 * 1024;

export async function readForm(ctx: Koa.Context): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw new HttpError(415, 'Send the form as application/x-www-form-urlencoded.');
  const body = await readBodyWithinLimit(ctx.req, MAX_FORM_BYTES);
  if (body === null) throw new HttpError(413, 'The form is too large.');
  return new URLSearchParams(body.toString('utf8'));
}

/** Tells the posts of one kind of page from anyone else's. */
export interface FormPostGuard {
  /** The CSRF token of the page with this id (an interaction's uid, an approval's id), for its hidden `csrf` field. */
  token(id: string): string;
  /** The browser named no Origin, or ours (PUBLIC_URL's). */
  fromOwnOrigin(ctx: Koa.Context): boolean;
  /** The form carries the CSRF token of the page with this id (compared in constant time). */
  carriesToken(form: URLSearchParams, id: string): boolean;
}

/** `purpose` sets the tokens of one kind of page apart, so that none serves another. */
export function createFormPostGuard(csrfKey: string, purpose: string, publicUrl: string): FormPostGuard {
  const ownOrigin = new URL(publicUrl).origin;
  const token = (id: string) => createHmac('sha256', csrfKey).update(`${purpose}:${id}`).digest('base64url');
  return {
    token,
    fromOwnOrigin(ctx) {
      const origin = ctx.get('origin');
      return origin === '' || origin === ownOrigin;
    },
    carriesToken(form, id) {
      const given = Buffer.from(form.get('csrf') ?? '');
      const expected = Buffer.from(token(id));
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
