/**
 * Reads one OpenAPI operation into an OperationModel: merged parameters (path item + operation),
 * the list vocabulary, the request body, the x-kobana-* / x-mcp extensions and the OperationRef.
 * `toDefinition` turns it into the generated OperationDefinition; routes and tools are views of
 * that (src/runtime/views.ts).
 */
import { NO_PERMISSION } from '../src/identity/permissions.js';
import type { FilterOperator, HttpMethod, JsonSchema, ListDefinition, ListParameterDefinition, OperationBounds, OperationDefinition, OperationRef, SuccessResponse, ToolAlias } from '../src/runtime/types.js';
import { extractBounds, type BoundFields } from './bounds.js';
import { checkSafetyMetadata, classifyOperation } from './classify.js';
import { checkOmittedDeclared, planAccess, type AccessSubject, type PlannedAccess } from './plan-access.js';
import { buildPointer, CodegenError } from './errors.js';
import { toJsonSchema } from './json-schema.js';
import { deriveOperationSlug } from './naming.js';
import type { CodegenSettings } from './settings.js';
import { readAliases, readBreaking, type BreakingAcknowledgement } from './surface/extensions.js';

type Obj = Record<string, unknown>;

export interface ParameterModel {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required: boolean;
  readonly description: string | undefined;
  readonly schema: JsonSchema;
  /** `x-kobana-filter.operators`, when the parameter is a list filter. */
  readonly filterOperators: readonly FilterOperator[] | null;
}

export interface ListParameters {
  readonly limit: ParameterModel;
  readonly cursor: ParameterModel | undefined;
  readonly fields: ParameterModel | undefined;
  readonly sort: ParameterModel | undefined;
  readonly filters: readonly ParameterModel[];
}

export interface McpExtension {
  readonly name: string | undefined;
  readonly exclude: boolean;
  readonly annotations: Obj;
  /** `x-mcp.description`: the tool's own text where the operation's is worded for REST only. */
  readonly description: string | undefined;
  /** `x-mcp.aliases`: former tool names still answered (codegen/surface/aliases.ts checks them across tools). */
  readonly aliases: readonly ToolAlias[];
  /** `x-mcp.breaking`: the operation's breaking changes are deliberate (the change report lists them apart). */
  readonly breaking: BreakingAcknowledgement | null;
}

export interface OperationModel {
  readonly file: string;
  /** JSON pointer of the operation object, e.g. `#/paths/~1v1~1payables/get`. */
  readonly pointer: string;
  readonly title: string;
  readonly description: string;
  readonly ref: OperationRef;
  /** The operationId as written (undefined when the spec has none). */
  readonly declaredOperationId: string | undefined;
  /** Path, plain query and header parameters (list parameters excluded). */
  readonly parameters: readonly ParameterModel[];
  readonly list: ListParameters | null;
  readonly requestBody: { readonly required: boolean; readonly content: { readonly [type: string]: JsonSchema } } | null;
  readonly successStatus: number;
  /** What the success response carries (its JSON schema, a file, or nothing). */
  readonly successResponse: SuccessResponse;
  /** A `202` declared after the first 2xx (a money move waiting for a second approver): its body; null when none. */
  readonly acceptedResponse: SuccessResponse | null;
  /** The operation's `tags`, as declared. */
  readonly tags: readonly string[];
  readonly mcp: McpExtension;
  /** `x-kobana-confirm` as written; plan-spec.ts turns it into `ref.confirmation` (classify.ts). */
  readonly confirm: unknown;
  /** `x-kobana-bounds`, checked (codegen/bounds.ts). */
  readonly bounds: OperationBounds | null;
}

export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const FILTER_OPERATORS: readonly FilterOperator[] = ['eq', 'in', 'gte', 'gt', 'lte', 'lt'];
/** OpenAPI 3.x §parameter-object: these header parameters are ignored. */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
const LIST_NAMES = new Set(['limit', 'cursor', 'fields', 'sort']);

export interface PlanContext {
  readonly file: string;
  /** The document's `x-kobana-codegen` (codegen/settings.ts). */
  readonly settings: CodegenSettings;
  /** Root-level `security`, the default for operations without their own. */
  readonly defaultSecurity: unknown;
}

/** Builds the model of the operation at `paths[path][method]`. */
export function planOperation(ctx: PlanContext, path: string, method: HttpMethod, pathItem: Obj, operation: Obj): OperationModel {
  const pointer = buildPointer('paths', path, method.toLowerCase());
  const declaredOperationId = typeof operation.operationId === 'string' && operation.operationId ? operation.operationId : undefined;
  const parameters = planParameters(ctx, method, [[buildPointer('paths', path), pathItem.parameters], [pointer, operation.parameters]]);
  const mcp = extractMcp(ctx, pointer, operation);
  const subject: AccessSubject = {
    file: ctx.file,
    pointer,
    operationId: declaredOperationId ?? deriveOperationSlug(method, path),
    method,
    scopes: extractScopes(operation.security ?? ctx.defaultSecurity),
    permission: extractPermission(ctx, pointer, operation),
  };
  const access = planAccess(subject, operation['x-kobana-touches'], ctx.settings.permissionsRequired);
  const successResponse = extractSuccessResponse(operation.responses);
  checkOmittedDeclared(subject, access, successResponse);
  const requestBody = extractRequestBody(operation.requestBody);
  const bounds = extractBounds(ctx.file, pointer, operation['x-kobana-bounds'], boundedInputs(parameters.all, requestBody));
  const workspaceScoped = readWorkspaceScoped(ctx, pointer, operation);
  const ref = planRef(subject, path, operation, { declaredOperationId, mcp, access, workspaceScoped });
  if (ctx.settings.checks.has('safety-metadata')) checkSafetyMetadata({ file: ctx.file, pointer, ref, headers: parameters.all.filter((p) => p.in === 'header').map((p) => p.name) });
  const acceptedResponse = extractAcceptedResponse(operation.responses);
  // A move out may wait for a second person (docs/security.md#money-controls): its contract says
  // what it then answers, so its tool's outputSchema is the union of the record and the request.
  if (ctx.settings.checks.has('safety-metadata') && ref.outflow !== null && acceptedResponse === null) {
    throw new CodegenError('MISSING_EXTENSION', ctx.file, `${pointer}/responses`,
      `${ref.operationId} moves money out (x-kobana-moves-money.outflow) and must declare a 202 response with the approval request it answers above the approval threshold`);
  }
  return {
    file: ctx.file,
    pointer,
    ...describeOperation(operation, mcp, declaredOperationId, `${method} ${path}`),
    declaredOperationId,
    ref,
    parameters: parameters.plain,
    list: parameters.list,
    requestBody,
    successStatus: extractSuccessStatus(operation.responses),
    successResponse,
    acceptedResponse,
    tags: Array.isArray(operation.tags) ? operation.tags.filter((tag): tag is string => typeof tag === 'string' && tag !== '') : [],
    mcp,
    confirm: operation['x-kobana-confirm'],
    bounds,
  };
}

interface PlannedParameters {
  /** Every parameter, list parameters included. */
  readonly all: readonly ParameterModel[];
  /** The list vocabulary of a list operation (a GET with a `limit` query parameter), else null. */
  readonly list: ListParameters | null;
  /** Path, plain query and header parameters (list parameters excluded). */
  readonly plain: readonly ParameterModel[];
}

function planParameters(ctx: PlanContext, method: HttpMethod, levels: ReadonlyArray<readonly [string, unknown]>): PlannedParameters {
  const all = mergeParameters(ctx, levels);
  const isList = method === 'GET' && all.some((p) => p.in === 'query' && p.name === 'limit');
  const list = isList ? extractList(all) : null;
  const listMembers = new Set<ParameterModel>(list ? [list.limit, list.cursor, list.fields, list.sort, ...list.filters].filter((p): p is ParameterModel => !!p) : []);
  return { all, list, plain: all.filter((p) => !listMembers.has(p)) };
}

/** What `x-kobana-bounds` may name: the query parameters and the JSON body's properties. */
function boundedInputs(parameters: readonly ParameterModel[], requestBody: OperationModel['requestBody']): BoundFields {
  const bodyProperties = (requestBody?.content['application/json']?.['properties'] ?? {}) as Record<string, JsonSchema>;
  return {
    query: new Map(parameters.filter((p) => p.in === 'query').map((p) => [p.name, p.schema])),
    body: new Map(Object.entries(bodyProperties)),
  };
}

/** The title (the summary, else the description's first line) and the description (`x-mcp.description` first). */
function describeOperation(operation: Obj, mcp: McpExtension, declaredOperationId: string | undefined, fallback: string): { title: string; description: string } {
  const summary = typeof operation.summary === 'string' ? operation.summary.trim() : '';
  const description = typeof operation.description === 'string' ? operation.description.trim() : '';
  return {
    title: summary || description.split('\n')[0] || declaredOperationId || fallback,
    description: mcp.description ?? (description || summary || fallback),
  };
}

/** The OperationRef, its keys in the order the generated modules print them; plan-spec.ts plans its confirmation. */
function planRef(
  subject: AccessSubject, path: string, operation: Obj,
  planned: { readonly declaredOperationId: string | undefined; readonly mcp: McpExtension; readonly access: PlannedAccess; readonly workspaceScoped: boolean },
): OperationRef {
  const { file, pointer, operationId, method, scopes, permission } = subject;
  const { movesMoney, outflow } = readMovesMoney(file, pointer, operation['x-kobana-moves-money']);
  return {
    operationId,
    method,
    path,
    scopes,
    permission,
    movesMoney,
    outflow,
    workspaceScoped: planned.workspaceScoped,
    ...classifyOperation({ file, pointer }, {
      method, declaredOperationId: planned.declaredOperationId, movesMoney,
      changesNothing: operation['x-kobana-touches'] !== undefined && planned.access.changes.length === 0,
    }, planned.mcp.annotations),
    confirmation: null,
    ...planned.access,
  };
}

/** A measure's name: lower-case words joined by `-` (`payable-settlement`); `none` declares no outflow. */
const MEASURE_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * `x-kobana-moves-money: {outflow: <measure> | none}` (openapi/README.md): the operation moves
 * money, and which amount it moves **out** — the named measure the spending limits, the payee
 * allowlist and the approval threshold read (src/api/money/measures.ts; an unknown name fails
 * start-up) — or `none` (a receivable settled, a move undone, a reconciliation). There is no
 * bare `true`: a money-moving operation always says what it moves out, so a new one is limited
 * the moment it exists.
 */
function readMovesMoney(file: string, pointer: string, extension: unknown): { movesMoney: boolean; outflow: string | null } {
  if (extension === undefined || extension === false) return { movesMoney: false, outflow: null };
  const outflow = typeof extension === 'object' && extension !== null && !Array.isArray(extension) ? (extension as Obj)['outflow'] : undefined;
  const keys = typeof extension === 'object' && extension !== null ? Object.keys(extension) : [];
  if (typeof outflow !== 'string' || !MEASURE_NAME.test(outflow) || keys.some((key) => key !== 'outflow')) {
    throw new CodegenError('INVALID_EXTENSION', file, `${pointer}/x-kobana-moves-money`,
      'x-kobana-moves-money must be {outflow: <measure>} naming the amount the operation moves out, or {outflow: none}');
  }
  return { movesMoney: true, outflow: outflow === 'none' ? null : outflow };
}

/** Path-item parameters overridden by operation parameters with the same name and location. */
function mergeParameters(ctx: PlanContext, levels: ReadonlyArray<readonly [string, unknown]>): ParameterModel[] {
  const merged = new Map<string, ParameterModel>();
  for (const [owner, list] of levels) {
    if (!Array.isArray(list)) continue;
    list.forEach((raw: Obj, index) => {
      const model = toParameterModel(ctx, raw, `${owner}/parameters/${index}`);
      if (model) merged.set(`${model.in}:${model.name}`, model);
    });
  }
  return [...merged.values()];
}

function toParameterModel(ctx: PlanContext, raw: Obj, at: string): ParameterModel | null {
  const where = raw.in;
  const name = String(raw.name ?? '');
  if (where !== 'path' && where !== 'query' && where !== 'header') return null; // cookies are not forwarded
  if (where === 'header' && IGNORED_HEADERS.has(name.toLowerCase())) return null;
  const contentSchema = raw.content && typeof raw.content === 'object' ? (Object.values(raw.content as Obj)[0] as Obj | undefined)?.schema : undefined;
  const schema = { ...toJsonSchema(raw.schema ?? contentSchema) } as Obj;
  const text = typeof raw.description === 'string' ? raw.description.trim() : '';
  if (text) schema.description = text;
  return {
    name,
    in: where,
    required: where === 'path' || raw.required === true,
    description: text || undefined,
    schema,
    filterOperators: extractFilterOperators(ctx, raw['x-kobana-filter'], at),
  };
}

function extractFilterOperators(ctx: PlanContext, extension: unknown, at: string): FilterOperator[] | null {
  if (extension === undefined) return null;
  const operators = (extension as Obj | null)?.operators;
  if (!Array.isArray(operators) || operators.length === 0 || operators.some((op) => !FILTER_OPERATORS.includes(op as FilterOperator))) {
    throw new CodegenError('INVALID_EXTENSION', ctx.file, at + '/x-kobana-filter',
      `x-kobana-filter.operators must be a non-empty subset of ${FILTER_OPERATORS.join(', ')}`);
  }
  return [...new Set(operators as FilterOperator[])];
}

function extractList(all: readonly ParameterModel[]): ListParameters {
  const query = (name: string) => all.find((p) => p.in === 'query' && p.name === name);
  return {
    limit: query('limit') as ParameterModel,
    cursor: query('cursor'),
    fields: query('fields'),
    sort: query('sort'),
    filters: all.filter((p) => p.in === 'query' && p.filterOperators !== null && !LIST_NAMES.has(p.name)),
  };
}

/** Every scope of the first security requirement (all of its schemes), in order, unique. */
function extractScopes(security: unknown): string[] {
  if (!Array.isArray(security) || !security[0] || typeof security[0] !== 'object') return [];
  return [...new Set(Object.values(security[0] as Obj).flatMap((scopes) => (Array.isArray(scopes) ? scopes.map(String) : [])))];
}

/**
 * `x-kobana-permission` as declared. An operation that declares none needs none (NO_PERMISSION),
 * unless the document's settings require every operation to declare one: nothing is made up for a
 * document that has no permission model; its scopes are those of its own `security`.
 */
function extractPermission(ctx: PlanContext, pointer: string, operation: Obj): string {
  const declared = operation['x-kobana-permission'];
  if (declared === undefined && !ctx.settings.permissionsRequired) return NO_PERMISSION;
  if (declared === undefined) {
    throw new CodegenError('MISSING_EXTENSION', ctx.file, pointer, 'x-kobana-permission is required on every operation of a document whose x-kobana-codegen.permissions is required');
  }
  if (typeof declared !== 'string' || declared === '') {
    throw new CodegenError('INVALID_EXTENSION', ctx.file, `${pointer}/x-kobana-permission`, 'x-kobana-permission must be a permission name or none');
  }
  return declared;
}

/** `x-kobana-workspace` (true or false) where declared, else the document's `x-kobana-codegen.workspaces`. */
function readWorkspaceScoped(ctx: PlanContext, pointer: string, operation: Obj): boolean {
  const declared = operation['x-kobana-workspace'];
  if (declared === undefined) return ctx.settings.workspaces;
  if (typeof declared !== 'boolean') {
    throw new CodegenError('INVALID_EXTENSION', ctx.file, `${pointer}/x-kobana-workspace`, 'x-kobana-workspace must be true or false');
  }
  return declared;
}

function extractRequestBody(raw: unknown): OperationModel['requestBody'] {
  if (!raw || typeof raw !== 'object') return null;
  const body = raw as Obj;
  const entries = Object.entries((body.content as Obj | undefined) ?? {});
  if (entries.length === 0) return null;
  const ordered = [...entries.filter(([type]) => type === 'application/json'), ...entries.filter(([type]) => type !== 'application/json')];
  const content: Record<string, JsonSchema> = {};
  for (const [type, media] of ordered) content[type] = toJsonSchema((media as Obj | null)?.schema);
  return { required: body.required === true, content };
}

/** The first 2xx response in declaration order (`2XX` counts as 200); 200 when none is declared. */
function extractSuccessStatus(responses: unknown): number {
  for (const code of Object.keys((responses as Obj | undefined) ?? {})) {
    if (/^2\d\d$/.test(code)) return Number(code);
    if (/^2XX$/i.test(code)) return 200;
  }
  return 200;
}

/**
 * The body of the success response of extractSuccessStatus: a JSON media type (`application/json`
 * or `+json`) gives its schema, any other media type is a file, no content is nothing (204).
 */
function extractSuccessResponse(responses: unknown): SuccessResponse {
  const all = (responses as Obj | undefined) ?? {};
  return readResponseBody(all, Object.keys(all).find((key) => /^2(\d\d|XX)$/i.test(key)));
}

/**
 * The `202` of an operation whose first 2xx is another status: what it answers when its move
 * waits for a second person (openapi/README.md, `x-kobana-moves-money`); null when it has none.
 */
function extractAcceptedResponse(responses: unknown): SuccessResponse | null {
  const all = (responses as Obj | undefined) ?? {};
  const first = Object.keys(all).find((key) => /^2(\d\d|XX)$/i.test(key));
  return first === undefined || first === '202' || !Object.hasOwn(all, '202') ? null : readResponseBody(all, '202');
}

/** The body of the response `code`: a JSON media type gives its schema, any other a file, no content nothing. */
function readResponseBody(all: Obj, code: string | undefined): SuccessResponse {
  const content = code === undefined ? undefined : ((all[code] as Obj | null)?.content as Obj | undefined);
  const types = Object.keys(content ?? {});
  if (content === undefined || types.length === 0) return { kind: 'none' };
  const json = types.find((type) => /^application\/(?:[\w.-]+\+)?json$/i.test(type.split(';')[0]!.trim()));
  if (json === undefined) return { kind: 'file' };
  return { kind: 'json', schema: toJsonSchema((content[json] as Obj | null)?.schema) };
}

function extractMcp(ctx: PlanContext, pointer: string, operation: Obj): McpExtension {
  const raw = operation['x-mcp'];
  const alias = operation['x-mcp-name'];
  if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
    throw new CodegenError('INVALID_EXTENSION', ctx.file, pointer + '/x-mcp', 'x-mcp must be an object {name?, exclude?, annotations?, description?, aliases?, breaking?}');
  }
  const mcp = (raw ?? {}) as Obj;
  const name = mcp.name ?? alias;
  if (name !== undefined && typeof name !== 'string') {
    throw new CodegenError('INVALID_NAME', ctx.file, pointer + '/x-mcp/name', 'x-mcp.name must be a string');
  }
  const annotations = mcp.annotations ?? {};
  if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations)) {
    throw new CodegenError('INVALID_EXTENSION', ctx.file, pointer + '/x-mcp/annotations', 'x-mcp.annotations must be an object');
  }
  const description = typeof mcp.description === 'string' && mcp.description.trim() !== '' ? mcp.description.trim() : undefined;
  if (mcp.description !== undefined && description === undefined) {
    throw new CodegenError('INVALID_EXTENSION', ctx.file, pointer + '/x-mcp/description', 'x-mcp.description must be a non-empty string');
  }
  return {
    name, exclude: mcp.exclude === true, annotations: annotations as Obj, description,
    aliases: readAliases(ctx.file, pointer, mcp.aliases), breaking: readBreaking(ctx.file, pointer, mcp.breaking),
  };
}

/** The generated model of one operation (its confirmation already planned, see plan-spec.ts). */
export function toDefinition(model: OperationModel, toolName: string | null): OperationDefinition {
  return {
    operation: model.ref,
    title: model.title,
    description: model.description,
    toolName,
    ...(toolName !== null && model.mcp.aliases.length > 0 ? { toolAliases: model.mcp.aliases } : {}),
    parameters: model.parameters.map(({ name, in: where, required, schema }) => ({ name, in: where, required, schema })),
    list: model.list ? toListDefinition(model.list) : null,
    requestBody: model.requestBody,
    successStatus: model.successStatus,
    successResponse: model.successResponse,
    ...(model.acceptedResponse !== null ? { acceptedResponse: model.acceptedResponse } : {}),
    tags: model.tags,
    bounds: model.bounds,
  };
}

function toListDefinition(list: ListParameters): ListDefinition {
  // The value schema without the parameter's description, which is kept apart (tools rewrite it).
  const apart = (parameter: ParameterModel): ListParameterDefinition => {
    const { description: _omit, ...schema } = parameter.schema;
    return { schema, description: parameter.description ?? null };
  };
  return {
    limit: list.limit.schema,
    cursor: list.cursor?.schema ?? null,
    sort: list.sort ? apart(list.sort) : null,
    fields: list.fields?.schema ?? null,
    filters: list.filters.map((filter) => ({ name: filter.name, operators: filter.filterOperators ?? ['eq'], ...apart(filter) })),
  };
}
