/**
 * The one place an operation is classified: read-only, destructive, idempotent (and, from
 * `x-kobana-moves-money`, money-moving), and how a destructive one is confirmed. An explicit
 * `x-mcp.annotations` hint wins over the rule; the tool annotations (src/runtime/tool-view.ts) and the
 * runtime's confirmation guard both read the result from `OperationRef`.
 */
import type { ConfirmationSpec, HttpMethod, OperationRef } from '../src/runtime/types.js';
import { parseConfirmTemplate, templateArguments } from '../src/runtime/confirm-template.js';
import { confirmArgumentProblem, type ConfirmArgumentSource } from './confirm-arguments.js';
import { DESCRIBER_NAMES, describerServes } from '../src/runtime/describers.js';
import { CodegenError } from './errors.js';
import { isWriteScope } from '../src/identity/scopes.js';
import { NO_PERMISSION } from '../src/identity/permissions.js';
import { extractAction } from './naming.js';

type Obj = Record<string, unknown>;

/** What classifying needs of a planned operation (plan-operation.ts's PlannedOperation is one). */
export interface PlannedOperation {
  readonly file: string;
  readonly pointer: string;
  readonly title: string;
  readonly ref: OperationRef;
  /** Non-null for list operations. */
  readonly list: unknown;
  /** `x-kobana-confirm` as written. */
  readonly confirm: unknown;
  /** Its arguments, which `{arg.x}` may name (confirm-arguments.ts). */
  readonly parameters: ConfirmArgumentSource['parameters'];
  readonly requestBody: ConfirmArgumentSource['requestBody'];
}

export interface Classification {
  readonly readOnly: boolean;
  readonly destructive: boolean;
  readonly idempotent: boolean;
}

const HINTS = { readOnlyHint: 'readOnly', destructiveHint: 'destructive', idempotentHint: 'idempotent' } as const;
/** The generic sentence's record name: the first of these fields the target record has. */
const FALLBACK_NAME = '{name|description|title|file_name|id}';
const DESCRIBER_NAME = /^[a-z][a-z0-9-]*$/;

/** What classifying reads of an operation besides its `x-mcp.annotations`. */
export interface ClassifiedOperation {
  readonly method: HttpMethod;
  readonly declaredOperationId: string | undefined;
  readonly movesMoney: boolean;
  /** `x-kobana-touches` declares `changes: []`: the operation writes nothing (a GET, or a POST such as a preview). */
  readonly changesNothing: boolean;
}

/**
 * readOnly = GET, or an operation that declares `changes: []`; destructive = DELETE, `cancel` or
 * money-moving; idempotent = all but a POST that writes; then `x-mcp.annotations`.
 */
export function classifyOperation(where: { readonly file: string; readonly pointer: string }, subject: ClassifiedOperation, annotations: Obj): Classification {
  const { method, movesMoney } = subject;
  // A delete, a cancel or a money move is destructive by rule, and hints cannot take it back.
  const alwaysDestructive = method === 'DELETE' || extractAction(subject.declaredOperationId) === 'cancel' || movesMoney;
  const readOnly = method === 'GET' || subject.changesNothing;
  const result = {
    readOnly,
    destructive: alwaysDestructive,
    idempotent: method !== 'POST' || readOnly,
  };
  for (const [key, value] of Object.entries(annotations)) {
    const at = `${where.pointer}/x-mcp/annotations/${key}`;
    if (key === 'openWorldHint') {
      // Every tool only touches this server's own data; a true value would be a lie.
      if (value !== false) throw new CodegenError('INVALID_EXTENSION', where.file, at, 'openWorldHint is always false for kobana-finance tools');
      continue;
    }
    if (key === 'title') continue; // the title comes from the operation summary
    if (!Object.hasOwn(HINTS, key) || typeof value !== 'boolean') {
      throw new CodegenError('INVALID_EXTENSION', where.file, at, `x-mcp.annotations accepts boolean ${Object.keys(HINTS).join(', ')}`);
    }
    result[HINTS[key as keyof typeof HINTS]] = value;
  }
  // Hints may add caution, never remove it: a delete, a cancel or a money move always asks for
  // confirmation, and only an operation that writes nothing may call itself read-only (it is
  // charged to the read budget and shown in read-only views).
  if (alwaysDestructive && !result.destructive) {
    throw new CodegenError('INVALID_EXTENSION', where.file, `${where.pointer}/x-mcp/annotations/destructiveHint`,
      'a delete, a cancel or an operation that moves money is always destructive (it runs over MCP only after confirmation)');
  }
  if (result.readOnly && !readOnly) {
    throw new CodegenError('INVALID_EXTENSION', where.file, `${where.pointer}/x-mcp/annotations/readOnlyHint`, `a ${method} operation that does not declare x-kobana-touches changes: [] is not read-only`);
  }
  if (result.readOnly && result.destructive) {
    throw new CodegenError('INVALID_EXTENSION', where.file, `${where.pointer}/x-mcp/annotations`, 'an operation cannot be both read-only and destructive');
  }
  return result;
}

/** What the safety checks read of a planned operation: its classification, scopes, permission and header parameters. */
export interface SafetySubject {
  readonly file: string;
  readonly pointer: string;
  readonly ref: OperationRef;
  /** Its header parameters' names, as declared. */
  readonly headers: readonly string[];
}

/**
 * The safety metadata an operation's classification implies (docs/generator.md#safety-metadata),
 * checked when the document's `x-kobana-codegen.checks` has `safety-metadata`:
 * one that changes nothing needs only read scopes and a `.view` permission (or `none`), so every
 * reader may call it; one that is destructive or moves money and is not idempotent takes the
 * `Idempotency-Key` header, so a retry never runs it twice.
 */
export function checkSafetyMetadata(operation: SafetySubject): void {
  const { ref, file, pointer } = operation;
  if (ref.readOnly) {
    const write = ref.scopes.find(isWriteScope);
    if (write !== undefined) {
      throw new CodegenError('INVALID_EXTENSION', file, `${pointer}/security`, `${ref.operationId} changes nothing: it needs read scopes only, not ${write}`);
    }
    if (ref.permission !== NO_PERMISSION && !ref.permission.endsWith('.view')) {
      throw new CodegenError('INVALID_EXTENSION', file, `${pointer}/x-kobana-permission`, `${ref.operationId} changes nothing: its x-kobana-permission is a .view permission or none, not ${ref.permission}`);
    }
  }
  if ((ref.destructive || ref.movesMoney) && !ref.idempotent && !operation.headers.some((name) => name.toLowerCase() === 'idempotency-key')) {
    throw new CodegenError('MISSING_EXTENSION', file, `${pointer}/parameters`,
      `${ref.operationId} is destructive or moves money and is not idempotent: it must take the Idempotency-Key header ($ref: "#/components/parameters/IdempotencyKey"), so a retry never runs it twice`);
  }
}

/**
 * The GET operation that reads the record a call acts on: the one whose path is the longest
 * prefix of the operation's path ending in a `{parameter}` (`POST /v1/receivables/{id}/write-off`
 * → `GET /v1/receivables/{id}`; a DELETE → the GET of its own path).
 */
function findTargetRead(model: PlannedOperation, all: readonly PlannedOperation[]): PlannedOperation | undefined {
  const segments = model.ref.path.split('/');
  let best: PlannedOperation | undefined;
  let bestLength = 0;
  for (const candidate of all) {
    if (candidate.ref.method !== 'GET' || candidate.list || candidate === model) continue;
    const own = candidate.ref.path.split('/');
    const last = own[own.length - 1] ?? '';
    if (!/^\{[^}]+\}$/.test(last) || own.length > segments.length || own.length <= bestLength) continue;
    if (own.every((segment, index) => segment === segments[index])) {
      best = candidate;
      bestLength = own.length;
    }
  }
  return best;
}

/**
 * `x-kobana-confirm` of a destructive operation → its ConfirmationSpec: a template over the
 * target record, a named describer, or (absent) the generic `<summary> "<name>"?`. A destructive
 * operation that can be described by none of them fails the build when `required` (the document's
 * `x-kobana-codegen.checks` has `confirmations`).
 */
export function planConfirmation(model: PlannedOperation, all: readonly PlannedOperation[], required: boolean): ConfirmationSpec | null {
  const at = `${model.pointer}/x-kobana-confirm`;
  const raw = model.confirm;
  if (!model.ref.destructive) {
    if (raw !== undefined) throw new CodegenError('INVALID_EXTENSION', model.file, at, `x-kobana-confirm is only read on destructive operations; ${model.ref.operationId} is not one`);
    return null;
  }
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const describer = (raw as Obj).describer;
    if (Object.keys(raw).length !== 1 || typeof describer !== 'string' || !DESCRIBER_NAME.test(describer)) {
      throw new CodegenError('INVALID_EXTENSION', model.file, at, 'x-kobana-confirm must be a template string or {describer: <name>}');
    }
    // Checked here, not first at start-up: an unknown name (or the title describer on another
    // resource) would otherwise pass the build and stop the server.
    if (!describerServes(describer, model.ref.operationId)) {
      throw new CodegenError('INVALID_EXTENSION', model.file, `${at}/describer`,
        `describer "${describer}" cannot describe ${model.ref.operationId} (describers: ${DESCRIBER_NAMES.join(', ')}; title serves payables/receivables settle, reopen, cancel, delete)`);
    }
    return { describer };
  }
  if (raw !== undefined && typeof raw !== 'string') {
    throw new CodegenError('INVALID_EXTENSION', model.file, at, 'x-kobana-confirm must be a template string or {describer: <name>}');
  }
  const template = raw ?? `${model.title} ${FALLBACK_NAME}?`;
  const parsed = parseConfirmTemplate(template);
  if (typeof parsed === 'string') throw new CodegenError('INVALID_EXTENSION', model.file, at, `the x-kobana-confirm template ${parsed}`);
  for (const name of templateArguments(parsed)) {
    const problem = confirmArgumentProblem(model, name);
    if (problem !== null) throw new CodegenError('INVALID_EXTENSION', model.file, at, `the x-kobana-confirm template of ${model.ref.operationId}: ${problem}`);
  }
  const target = findTargetRead(model, all);
  if (target) return { template, target: target.ref.operationId };
  if (!required) return null; // the call is refused over MCP, as it cannot be confirmed
  throw new CodegenError('MISSING_EXTENSION', model.file, raw === undefined ? model.pointer : at,
    `destructive operation ${model.ref.operationId} has no confirmation sentence: add x-kobana-confirm {describer: …}, or a GET operation that reads its target record`);
}
