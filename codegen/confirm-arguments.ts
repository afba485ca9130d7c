/**
 * The build's check of `{arg.x}` in an `x-kobana-confirm` template (src/runtime/confirm-template.ts):
 * x must be an argument of the operation (a path, query or header parameter, or a top-level
 * property of its JSON body) and free text. Amounts, counterparties, accounts and dates come from
 * the target record or the server's computation (`{field}`, `{calc.…}`), never verbatim from the
 * call, so an argument that is money, a date, an id or not a string is refused here — a sentence
 * cannot echo a number the caller typed as if the server had computed it.
 *
 *   confirmArgumentProblem(operation, name) → a reason string, or null when x may be shown
 */
import type { JsonSchema } from '../src/runtime/types.js';

type Obj = Record<string, unknown>;

/** What the check reads of a planned operation (plan-operation.ts's OperationModel is one). */
export interface ConfirmArgumentSource {
  readonly parameters: readonly { readonly name: string; readonly schema: JsonSchema }[];
  readonly requestBody: { readonly content: { readonly [type: string]: JsonSchema } } | null;
}

/** Names that say money, a date or a reference whatever their schema says. */
const NOT_FREE_TEXT_NAME = /(^|_)(id|ids|amount|amounts|date|dates|at|on|account|person|counterparty|cents|total|value|price)$/;

function findArgumentSchema(operation: ConfirmArgumentSource, name: string): JsonSchema | undefined {
  const body = operation.requestBody?.content['application/json'] as Obj | undefined;
  const properties = body?.['properties'] as Obj | undefined;
  if (properties && Object.hasOwn(properties, name)) return properties[name] as JsonSchema;
  return operation.parameters.find((parameter) => parameter.name === name)?.schema;
}

function describeKind(schema: Obj): string | null {
  const types = Array.isArray(schema['type']) ? schema['type'] : [schema['type']];
  if (types.some((type) => type !== 'string' && type !== 'null')) return `of type ${types.join('|')}`;
  if (typeof schema['format'] === 'string') return `a ${String(schema['format'])} (format)`;
  if (typeof schema['pattern'] === 'string') return 'patterned (money, a code or a reference)';
  return null;
}

export function confirmArgumentProblem(operation: ConfirmArgumentSource, name: string): string | null {
  const schema = findArgumentSchema(operation, name);
  if (schema === undefined) return `{arg.${name}} names no argument of the operation (a parameter or a top-level body property)`;
  const kind = NOT_FREE_TEXT_NAME.test(name) ? 'named as money, a date or a reference' : describeKind(schema as Obj);
  if (kind === null) return null;
  return `{arg.${name}} would show argument ${name} verbatim, but it is ${kind}: amounts, counterparties, accounts and dates come from the target record ({field}) or the server's computation ({calc.…}); only free text is quoted from the call`;
}
