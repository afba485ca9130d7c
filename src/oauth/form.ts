/** Reads an HTML form post (`application/x-www-form-urlencoded`, at most 16 KiB) for the Account's pages. */
import type Koa from 'koa';
import { HttpError } from '../http/errors.js';

const MAX_FORM_BYTES = 16 * 1024;

export async function readForm(ctx: Koa.Context): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw new HttpError(415, 'Send the form as application/x-www-form-urlencoded.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new HttpError(413, 'The form is too large.');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
