/**
 * The contract's own bounds (`x-kobana-*` keywords on a generated schema, openapi/README.md) as
 * boundary values for the fuzzer: each known keyword turns into values at and just past its bound.
 * A keyword this file does not know is found by `unknownExtensionKeywords`, and the fuzz test
 * fails naming it, so a new kind of bound is never silently left unfuzzed.
 */
import type { JsonSchema } from '../../../src/runtime/types.js';
import type { Bound, SchemaContext } from './schema-bounds.js';

type KeywordHandler = (value: unknown, schema: JsonSchema, context: SchemaContext, field: string | undefined) => Bound[];

/** Keyword → its boundary values. Keywords that are not bounds (they say how, not how much) map to none. */
const HANDLERS: Readonly<Record<string, KeywordHandler>> = {};

export function extensionBounds(schema: JsonSchema, context: SchemaContext, field: string | undefined): Bound[] {
  const out: Bound[] = [];
  for (const [key, value] of Object.entries(schema)) {
    const handler = key.startsWith('x-kobana-') ? HANDLERS[key] : undefined;
    if (handler) out.push(...handler(value, schema, context, field));
  }
  return out;
}

/** The `x-kobana-*` keywords anywhere inside `value` (schemas, operation definitions) that no handler reads. */
export function unknownExtensionKeywords(value: unknown, found: Set<string> = new Set()): string[] {
  if (Array.isArray(value)) {
    for (const item of value) unknownExtensionKeywords(item, found);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key.startsWith('x-kobana-') && !Object.hasOwn(HANDLERS, key)) found.add(key);
      unknownExtensionKeywords(inner, found);
    }
  }
  return [...found].sort();
}
