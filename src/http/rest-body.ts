/**
 * Reads the JSON body of a /v1 request with a hard byte cap (1 MB; more for the JSON form of an
 * upload). Wrong Content-Type and malformed JSON are VALIDATION_ERROR (400, issue 4 §8 — we
 * pick 400 over 415 so every body problem has one code); over the cap is HttpError 413.
 * Multipart is multipart.ts's job; schema checks are execute.ts's.
 */
import type { AppContext } from './app-state.js';
import { validationError } from '../api/index.js';
import { HttpError } from './errors.js';
import { declaresOversizedBody, readBodyWithinLimit, readMediaType } from './capped-body.js';

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;
/** 10 MB of file as base64 (4/3) plus room for the other fields. */
export const JSON_UPLOAD_BODY_LIMIT_BYTES = Math.ceil((10 * 1024 * 1024 * 4) / 3) + 64 * 1024;

function tooLarge(): HttpError {
  return new HttpError(413, 'The request body is larger than the limit.', { Connection: 'close' }, 'body_too_large');
}

/** Whether the request carries a body at all (a POST without one is fine for optional bodies). */
export function hasRequestBody(ctx: AppContext): boolean {
  const length = ctx.get('content-length');
  if (length !== '') return Number(length) > 0;
  return ctx.get('transfer-encoding') !== '';
}

function isJsonContentType(ctx: AppContext): boolean {
  const type = readMediaType(ctx.get('content-type'));
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

export function isMultipartContentType(ctx: AppContext): boolean {
  return readMediaType(ctx.get('content-type')) === 'multipart/form-data';
}

async function readCapped(ctx: AppContext, limit: number): Promise<Buffer> {
  if (declaresOversizedBody(ctx.req, limit)) throw tooLarge();
  const body = await readBodyWithinLimit(ctx.req, limit);
  if (body === null) throw tooLarge();
  return body;
}

/** The parsed JSON body, or undefined when the request has none. */
export async function readJsonBody(ctx: AppContext, limit: number): Promise<unknown> {
  if (!hasRequestBody(ctx)) return undefined;
  if (!isJsonContentType(ctx)) {
    throw validationError([{ path: '(body)', message: 'Content-Type must be application/json' }], 'The request body must be JSON.');
  }
  const raw = await readCapped(ctx, limit);
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw validationError([{ path: '(body)', message: 'is not valid JSON' }], 'The request body is not valid JSON.');
  }
}
