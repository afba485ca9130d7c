/**
 * `x-kobana-touches` of one operation (openapi/README.md, docs/security.md#resources-touched) →
 * the resolved `changes`, `shows` and `sums` of its OperationRef. Every entry is resolved against
 * the permission catalogue and the scope grammar (src/identity/resource-access.ts); an unknown
 * permission or kind, a write declared on a read, or an operation without the extension in a
 * document that requires it (`x-kobana-codegen.permissions: required`) fails the build, naming the operation.
 */
import type { HttpMethod, JsonSchema, ResourceAccess, SuccessResponse } from '../src/runtime/types.js';
import { permissionKind, resolveChange, resolveShow, RESOURCE_KINDS } from '../src/identity/resource-access.js';
import { NO_PERMISSION } from '../src/identity/permissions.js';
import { CodegenError } from './errors.js';

type Obj = Record<string, unknown>;

export interface PlannedAccess {
  readonly changes: readonly ResourceAccess[];
  readonly shows: readonly ResourceAccess[];
  readonly sums: readonly string[];
}

/** What planning the extension needs of the operation (its own permission and scopes already read). */
export interface AccessSubject {
  readonly file: string;
  readonly pointer: string;
  readonly operationId: string;
  readonly method: HttpMethod;
  readonly permission: string;
  readonly scopes: readonly string[];
}

const KEYS = new Set(['changes', 'shows', 'sums']);
const NONE: PlannedAccess = { changes: [], shows: [], sums: [] };

function readNames(subject: AccessSubject, raw: Obj, key: string): string[] {
  const value = raw[key] ?? [];
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string' || entry === '')) {
    throw new CodegenError('INVALID_EXTENSION', subject.file, `${subject.pointer}/x-kobana-touches/${key}`, `x-kobana-touches.${key} of ${subject.operationId} must be a list of names`);
  }
  if (new Set(value).size !== value.length) {
    throw new CodegenError('INVALID_EXTENSION', subject.file, `${subject.pointer}/x-kobana-touches/${key}`, `x-kobana-touches.${key} of ${subject.operationId} names an entry twice`);
  }
  return value as string[];
}

function resolveAll(subject: AccessSubject, key: string, names: readonly string[], resolve: (name: string) => ResourceAccess | string): ResourceAccess[] {
  return names.map((name, index) => {
    const resolved = resolve(name);
    if (typeof resolved === 'string') {
      throw new CodegenError('INVALID_EXTENSION', subject.file, `${subject.pointer}/x-kobana-touches/${key}/${index}`, `x-kobana-touches.${key} of ${subject.operationId}: ${resolved}`);
    }
    return resolved;
  });
}

/**
 * Records of the operation's own kind are governed by its own permission and scopes (a caller who
 * reaches the operation reaches them), so such a `shows` entry resolves to exactly those. An
 * operation that needs no permission (`none`) is of the kind its operationId names.
 */
function ownKind(subject: AccessSubject, access: ResourceAccess): ResourceAccess {
  const own = permissionKind(subject.permission === NO_PERMISSION ? subject.operationId : subject.permission);
  if (access.kind !== own) return access;
  return { kind: access.kind, permission: subject.permission, scopes: [...subject.scopes] };
}

/** Reads and resolves `x-kobana-touches`; mandatory when `required` (the document's permissions are), else empty when absent. */
export function planAccess(subject: AccessSubject, extension: unknown, required: boolean): PlannedAccess {
  const at = `${subject.pointer}/x-kobana-touches`;
  if (extension === undefined) {
    if (!required) return NONE;
    throw new CodegenError('MISSING_EXTENSION', subject.file, subject.pointer,
      `x-kobana-touches is required on every operation of a document whose x-kobana-codegen.permissions is required: ${subject.operationId} must declare {changes: [...], shows: [...]}`);
  }
  if (extension === null || typeof extension !== 'object' || Array.isArray(extension)) {
    throw new CodegenError('INVALID_EXTENSION', subject.file, at, `x-kobana-touches of ${subject.operationId} must be an object {changes, shows, sums?}`);
  }
  const raw = extension as Obj;
  const unknown = Object.keys(raw).find((key) => !KEYS.has(key));
  if (unknown !== undefined || !('changes' in raw) || !('shows' in raw)) {
    throw new CodegenError('INVALID_EXTENSION', subject.file, at, `x-kobana-touches of ${subject.operationId} takes changes and shows (both required) and sums`);
  }
  const changes = resolveAll(subject, 'changes', readNames(subject, raw, 'changes'), resolveChange);
  if (subject.method === 'GET' && changes.length > 0) {
    throw new CodegenError('INVALID_EXTENSION', subject.file, `${at}/changes`, `${subject.operationId} is a GET: it changes nothing`);
  }
  const shows = resolveAll(subject, 'shows', readNames(subject, raw, 'shows'), resolveShow).map((access) => ownKind(subject, access));
  const sums = readNames(subject, raw, 'sums');
  const stray = sums.findIndex((kind) => !RESOURCE_KINDS.includes(kind));
  if (stray >= 0) {
    throw new CodegenError('INVALID_EXTENSION', subject.file, `${at}/sums/${stray}`, `x-kobana-touches.sums of ${subject.operationId}: ${sums[stray]} is not a kind of the permission catalogue`);
  }
  return { changes, shows, sums };
}

/** Whether a JSON body schema declares `meta.omitted` (directly or on the items of a list's page). */
function declaresOmitted(schema: JsonSchema): boolean {
  const meta = (schema['properties'] as Record<string, JsonSchema> | undefined)?.['meta'];
  return (meta?.['properties'] as Record<string, unknown> | undefined)?.['omitted'] !== undefined;
}

/**
 * An operation that may leave out records of another kind says so in its contract: its success
 * body declares `meta.omitted` (openapi/README.md, `OmittedMeta` / `OmittingListMeta`), so REST
 * clients and the tool's outputSchema know the field.
 */
export function checkOmittedDeclared(subject: AccessSubject, access: PlannedAccess, success: SuccessResponse): void {
  const foreign = access.shows.filter((entry) => entry.permission !== subject.permission);
  if (foreign.length === 0 || success.kind !== 'json' || declaresOmitted(success.schema)) return;
  throw new CodegenError('INVALID_EXTENSION', subject.file, `${subject.pointer}/x-kobana-touches/shows`,
    `${subject.operationId} may leave out ${foreign.map((entry) => entry.kind).join(', ')} records: its success response must declare meta.omitted (OmittedMeta)`);
}
