/**
 * Turns one /v1 HTTP request into the transport-neutral OperationInput: path params, plain
 * query params, the ListQuery (`limit`, `cursor`, `sort`, `fields=a,b`, filters `x=v` and
 * `x[op]=v`), the body (JSON or multipart) and `Idempotency-Key`. Meaning and validation of
 * the values is the operation service's job; this file only reshapes — into maps without a
 * prototype, and only for filter names the list declares (anything else is `BAD_REQUEST`).
 */
import type { RouterContext } from '@koa/router';
import type { ListQuery, OperationInput } from '../api/index.js';
import type { ListSpec, PageSize, RouteDefinition } from '../runtime/types.js';
import { ApiError, validationError } from '../api/index.js';
import { parseMultipartUpload, toUploadInput } from './multipart.js';
import {
  hasRequestBody, isMultipartContentType, JSON_BODY_LIMIT_BYTES, JSON_UPLOAD_BODY_LIMIT_BYTES, readJsonBody,
} from './rest-body.js';
import type { AppContext, AppState } from './app-state.js';

const UPLOAD_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Query names the transport consumes itself (workspace hint, handled by auth). */
const TRANSPORT_QUERY = new Set(['workspace_id']);
const LIST_QUERY = new Set(['limit', 'cursor', 'sort', 'fields']);
const FILTER_KEY = /^([a-z][a-z0-9_]*)(?:\[([a-z]+)\])?$/;

type Filters = Record<string, Record<string, unknown>>;

function readSingle(name: string, value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) throw validationError([{ path: name, message: 'must be given once' }]);
  return value;
}

/**
 * `?limit=`: digits only, at most four or as many as the maximum has (its range and its default
 * are the list's page size, checked by the api layer).
 */
function parseLimit(text: string | undefined, pageSize: PageSize): number | undefined {
  if (text === undefined) return undefined;
  const digits = Math.max(4, String(pageSize.maximum).length);
  if (text.length > digits || !/^\d+$/.test(text)) throw validationError([{ path: 'limit', message: `must be an integer from ${pageSize.minimum} to ${pageSize.maximum}` }]);
  return Number(text);
}

/** Longer unknown names are cut to this many characters in the answer. */
const MAX_NAME_IN_MESSAGE = 64;

/** Names the parameter only when it has the shape of a filter (so only `a-z 0-9 _ [ ]` is echoed). */
function unknownParameter(key: string, shaped: boolean): ApiError {
  if (!shaped) return new ApiError('BAD_REQUEST', 'Unknown query parameter.');
  const shown = key.length > MAX_NAME_IN_MESSAGE ? `${key.slice(0, MAX_NAME_IN_MESSAGE - 1)}\u2026` : key;
  return new ApiError('BAD_REQUEST', `Unknown query parameter: ${shown}.`, { parameter: shown });
}

/**
 * `filters` and each operator slot are prototype-less: a name like `constructor` must never
 * resolve to something inherited (it once wrote onto the global `Object`). Only the list's own
 * filter names get this far; the list engine checks the operators.
 */
function addFilter(filters: Filters, spec: ListSpec, key: string, value: string): void {
  const match = FILTER_KEY.exec(key);
  const name = match?.[1];
  if (name === undefined || !Object.hasOwn(spec.filters, name)) throw unknownParameter(key, name !== undefined);
  const operator = match?.[2] ?? 'eq';
  const slot = filters[name] ?? (filters[name] = Object.create(null) as Record<string, unknown>);
  if (Object.hasOwn(slot, operator)) throw validationError([{ path: key, message: 'must be given once' }]);
  slot[operator] = operator === 'in' ? value.split(',').map((v) => v.trim()).filter((v) => v !== '') : value;
}

function buildQuery(ctx: AppContext, route: RouteDefinition): { query: Record<string, unknown>; list?: ListQuery } {
  const plainNames = new Set(route.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  const query: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const filters: Filters = Object.create(null) as Filters;
  for (const [key, raw] of Object.entries(ctx.query)) {
    if (TRANSPORT_QUERY.has(key) || (route.list && LIST_QUERY.has(key))) continue;
    const value = readSingle(key, raw);
    if (value === undefined) continue;
    if (plainNames.has(key)) query[key] = value;
    else if (route.list) addFilter(filters, route.list, key, value);
    // Non-list routes ignore query parameters they do not declare (e.g. cache busters).
  }
  if (!route.list) return { query };
  const fieldsText = readSingle('fields', ctx.query['fields']);
  const cursor = readSingle('cursor', ctx.query['cursor']);
  const sort = readSingle('sort', ctx.query['sort']);
  const limit = parseLimit(readSingle('limit', ctx.query['limit']), route.list.pageSize);
  const list: ListQuery = {
    ...(limit !== undefined ? { limit } : {}),
    ...(cursor !== undefined ? { cursor } : {}),
    ...(sort !== undefined && sort !== '' ? { sort } : {}),
    ...(fieldsText !== undefined ? { fields: fieldsText.split(',').map((f) => f.trim()).filter((f) => f !== '') } : {}),
    filters,
  };
  return { query, list };
}

async function buildBody(ctx: AppContext, route: RouteDefinition): Promise<Pick<OperationInput, 'body' | 'upload'>> {
  const content = route.requestBody?.content;
  if (!content) return {};
  const acceptsMultipart = 'multipart/form-data' in content;
  if (acceptsMultipart && isMultipartContentType(ctx)) {
    return toUploadInput(await parseMultipartUpload(ctx, { maxFileBytes: UPLOAD_MAX_FILE_BYTES }));
  }
  if (!('application/json' in content)) {
    if (!hasRequestBody(ctx)) return {};
    throw validationError([{ path: '(body)', message: 'Content-Type must be multipart/form-data' }], 'The request body has the wrong content type.');
  }
  const body = await readJsonBody(ctx, acceptsMultipart ? JSON_UPLOAD_BODY_LIMIT_BYTES : JSON_BODY_LIMIT_BYTES);
  return body === undefined ? {} : { body };
}

export async function buildOperationInput(ctx: RouterContext<AppState>, route: RouteDefinition): Promise<OperationInput> {
  const params = ctx.params ?? {};
  const { query, list } = buildQuery(ctx, route);
  const idempotencyKey = ctx.get('idempotency-key');
  return {
    path: { ...params },
    query,
    ...(list ? { list } : {}),
    ...(await buildBody(ctx, route)),
    ...(idempotencyKey !== '' ? { idempotencyKey } : {}),
  };
}
