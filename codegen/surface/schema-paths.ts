/**
 * How the change report names a place inside a tool's schemas, and walks to it. One notation for
 * the arguments, the outputs and the validation bounds of the review copy, so a bound and its
 * argument are named alike: `amount`, `allocations[].cost_center_id` (array items), `filters.due_date{}`
 * (the values of an object keyed freely, `additionalProperties`), `filters.due_date{keys}` (its keys,
 * `propertyNames`), `ids|2` (the second member of an `anyOf`/`oneOf`). The root is ''.
 * Local `$ref`s (`#/$defs/…`, which output schemas use for shapes they repeat) are followed.
 */
import { parsePointer } from '../errors.js';
import { isPlainObject } from '../../src/runtime/values.js';

export type Obj = { [key: string]: unknown };


export function propertyPath(at: string, name: string): string {
  return at === '' ? name : `${at}.${name}`;
}

/** How a path reads in a report: the root is the tool's arguments (or result) as a whole. */
export function showPath(path: string): string {
  return path === '' ? '(root)' : path;
}

/** Each child schema of `schema` but its properties (compared by name, see diff.ts), with its path. */
export function structuralChildren(schema: Obj, at: string): Array<[string, unknown]> {
  const children: Array<[string, unknown]> = [];
  if (isPlainObject(schema.items)) children.push([`${at}[]`, schema.items]);
  if (isPlainObject(schema.additionalProperties)) children.push([`${at}{}`, schema.additionalProperties]);
  if (isPlainObject(schema.propertyNames)) children.push([`${at}{keys}`, schema.propertyNames]);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = schema[key];
    if (Array.isArray(members)) members.forEach((member, index) => children.push([`${at}|${index + 1}`, member]));
  }
  return children;
}

/** The schema a local `$ref` points at within `root` (the tool's schema); the node itself when it has none. */
export function resolveRef(root: Obj, node: Obj): Obj | undefined {
  const ref = node.$ref;
  if (typeof ref !== 'string') return node;
  if (!ref.startsWith('#')) return undefined;
  let target: unknown = root;
  for (const token of parsePointer(ref)) target = isPlainObject(target) ? target[token] : Array.isArray(target) ? target[Number(token)] : undefined;
  return isPlainObject(target) ? target : undefined;
}
