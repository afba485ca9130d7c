/**
 * `JSON.stringify(value, null, 2)`, byte for byte, with two additions: an object the caller names
 * is written as the text the caller gives (an identifier of the shared-schemas module, or that
 * schema's own text at this indentation), and a member named `__proto__` is written as the
 * computed key `["__proto__"]` (writeKey). Stricter than JSON.stringify on purpose — it is the
 * structural check of the generated data (emit/check.ts): a value JSON cannot carry (undefined,
 * a function, NaN, a Date or any other non-plain object) fails the build instead of being dropped
 * or turned into `null`, so what a module says is exactly what the planner built.
 */

/** The text to write for `node` (written at `indent`), or undefined to write it as JSON. */
export type Substitute = (node: object, indent: string) => string | undefined;

const STEP = '  ';

/**
 * A member name as JSON writes it, but `__proto__` as a computed key: `"__proto__": {…}` in an
 * object literal sets the prototype instead of a property, and the module would lose it.
 */
function writeKey(key: string): string {
  return key === '__proto__' ? '["__proto__"]' : JSON.stringify(key);
}

export function writeJson(value: unknown, indent: string, substitute: Substitute, where = '$'): string {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`internal: ${where} is ${value}, which JSON cannot hold`);
    return JSON.stringify(value);
  }
  if (typeof value !== 'object') throw new Error(`internal: ${where} is a ${typeof value}, which JSON cannot hold`);
  const substituted = substitute(value, indent);
  if (substituted !== undefined) return substituted;
  const inner = indent + STEP;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item, index) => inner + writeJson(item, inner, substitute, `${where}[${index}]`));
    return `[\n${items.join(',\n')}\n${indent}]`;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw new Error(`internal: ${where} is not a plain object`);
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const members = entries.map(([key, member]) => `${inner}${writeKey(key)}: ${writeJson(member, inner, substitute, `${where}.${key}`)}`);
  return `{\n${members.join(',\n')}\n${indent}}`;
}
