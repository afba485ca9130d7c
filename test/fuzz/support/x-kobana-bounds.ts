/**
 * The contract's own bounds (`x-kobana-*` keywords on a generated schema, openapi/README.md) as
 * boundary values for the fuzzer: each known keyword turns into values at and just past its bound.
 * A keyword this file does not know is collected (`unknownExtensionKeywords`), and the fuzz test
 * fails naming it, so a new kind of bound is never silently left unfuzzed.
 */
import type { JsonSchema } from '../../../src/runtime/types.js';
import type { Bound, SchemaContext } from './schema-bounds.js';

type KeywordHandler = (value: unknown, schema: JsonSchema, context: SchemaContext, field: string | undefined) => Bound[];

/** Keyword → its boundary values. Keywords that are not bounds (they say how, not how much) map to none. */
const HANDLERS: Readonly<Record<string, KeywordHandler>> = {};

const unknown = new Set<string>();

export function extensionBounds(schema: JsonSchema, context: SchemaContext, field: string | undefined): Bound[] {
  const out: Bound[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (!key.startsWith('x-kobana-')) continue;
    const handler = HANDLERS[key];
    if (handler) out.push(...handler(value, schema, context, field));
    else unknown.add(key);
  }
  return out;
}

/** `x-kobana-*` keywords seen in a schema that no handler reads. */
export function unknownExtensionKeywords(): readonly string[] {
  return [...unknown].sort();
}
