/** Reads an HTML form post (`application/x-www-form-urlencoded`, at most 16 KiB) for the Account's pages. */
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
