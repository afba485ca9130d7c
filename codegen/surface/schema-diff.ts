/**
 * Compares two versions of one tool's `inputSchema` (role `input`) or `outputSchema` (role `output`),
 * recursing into nested objects, array items, keyed values and union members, each change named by
 * its path (schema-paths.ts). For arguments, narrowed means some value the base accepted is now
 * refused: the set of types shrinks or changes (`integer` is inside `number`), an enum loses a value or
 * appears, a format appears or changes, a union loses a member; a new required argument, or one
 * that became required, breaks every call that left it out. For outputs, a field gone or a type or
 * format changed, or one always returned that may now be left out, breaks a caller reading it; a
 * field added does not. An argument's `default` changed breaks a call that leaves it out. Bounds the shown schema leaves
 * out are bounds-diff.ts's; the paths both sides have are collected for it in `common` (base path →
 * head path: they differ where union members were reordered).
 */
import { change, show, type Change, type ChangeKind } from './changes.js';
import { propertyPath, resolveRef, structuralChildren, type Obj } from './schema-paths.js';
import { isPlainObject } from '../../src/runtime/values.js';

export type SchemaRole = 'input' | 'output';

interface Walk {
  readonly role: SchemaRole;
  readonly tool: string;
  readonly roots: { readonly before: Obj; readonly after: Obj };
  readonly changes: Change[];
  readonly common: Map<string, string>;
  /**
   * The (base, head) schema pairs already compared. A pair is compared once, at the first path that
   * reaches it: a definition shared by two fields ($defs), each sharing another, would otherwise be
   * compared once per path (exponentially many), and a recursive one without end.
   */
  readonly compared: WeakMap<Obj, WeakSet<Obj>>;
}

/** The changes between two schemas of one tool, named by the base's paths; `common` receives every place both have. */
export function diffSchemas(role: SchemaRole, tool: string, before: Obj, after: Obj, common: Map<string, string> = new Map()): Change[] {
  const walk: Walk = { role, tool, roots: { before, after }, changes: [], common, compared: new WeakMap() };
  diffNode(walk, before, after, '', '');
  return walk.changes;
}

/** Compares the base's schema at `at` with the head's at `headAt` (the same place, see diffChildren). */
function diffNode(walk: Walk, rawBefore: Obj, rawAfter: Obj, at: string, headAt: string): void {
  const before = resolveRef(walk.roots.before, rawBefore);
  const after = resolveRef(walk.roots.after, rawAfter);
  if (before === undefined || after === undefined || !firstComparison(walk, before, after)) return;
  walk.common.set(at, headAt);
  const typeChanged = diffTypes(walk, before, after, at);
  diffValues(walk, before, after, at);
  diffKeyword(walk, before, after, at);
  diffProperties(walk, before, after, at, headAt);
  diffChildren(walk, { before, after, at, headAt }, typeChanged);
}

/** Records the pair; false when it was compared before. */
function firstComparison(walk: Walk, before: Obj, after: Obj): boolean {
  const seen = walk.compared.get(before) ?? new WeakSet<Obj>();
  if (seen.has(after)) return false;
  walk.compared.set(before, seen.add(after));
  return true;
}

function report(walk: Walk, kind: ChangeKind, at: string, detail: string, texts?: { before: string; after: string }): void {
  walk.changes.push(change(kind, walk.tool, at, detail, texts));
}

/** The JSON types a schema accepts (`number` includes `integer`); null when it says none (any type). */
function typeSet(walk: Walk, root: Obj, schema: Obj, depth = 0): Set<string> | null {
  const declared = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type.map(String) : null;
  if (declared !== null) return new Set(declared.flatMap((type) => (type === 'number' ? ['number', 'integer'] : [type])));
  const members = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
  if (members === null || depth > 8) return null;
  const union = new Set<string>();
  for (const member of members) {
    const resolved = isPlainObject(member) ? resolveRef(root, member) : undefined;
    const types = resolved === undefined ? null : typeSet(walk, root, resolved, depth + 1);
    if (types === null) return null;
    for (const type of types) union.add(type);
  }
  return union;
}

function showTypes(types: Set<string> | null): string {
  if (types === null) return 'any';
  return [...types].filter((type) => type !== 'integer' || !types.has('number')).sort().join('|');
}

/** Reports a change of the accepted types; true when there was one. */
function diffTypes(walk: Walk, before: Obj, after: Obj, at: string): boolean {
  const was = typeSet(walk, walk.roots.before, before);
  const is = typeSet(walk, walk.roots.after, after);
  if (showTypes(was) === showTypes(is)) return false;
  const detail = `${showTypes(was)} → ${showTypes(is)}`;
  if (walk.role === 'output') report(walk, 'output_type_changed', at, detail);
  else report(walk, isSubset(was, is) ? 'type_widened' : 'type_narrowed', at, detail);
  return true;
}

/** Whether every type of `small` is in `large` (null is every type). */
function isSubset(small: Set<string> | null, large: Set<string> | null): boolean {
  if (large === null) return true;
  if (small === null) return false;
  return [...small].every((type) => large.has(type));
}

/**
 * `enum` (or `const`, an enum of one). Of an argument, values removed narrow it and values added
 * widen it; of an output the reverse: a value added may be one callers do not handle, a value
 * removed is one they no longer see. Values are told apart as JSON (`1` is not `"1"`).
 */
function diffValues(walk: Walk, before: Obj, after: Obj, at: string): void {
  const was = enumValues(before);
  const is = enumValues(after);
  if (was === null && is === null) return;
  const output = walk.role === 'output';
  const [narrowed, widened] = output ? ['output_value_removed', 'output_value_added'] as const : ['enum_value_removed', 'enum_value_added'] as const;
  const shown = (values: readonly unknown[]): string => values.map(show).join(', ');
  if (was === null) return report(walk, narrowed, at, `now only ${shown(is!)}`);
  if (is === null) return report(walk, widened, at, output ? 'any value may now be returned' : 'any value now');
  const removed = differ(was, is);
  const added = differ(is, was);
  if (removed.length > 0) report(walk, narrowed, at, shown(removed));
  if (added.length > 0) report(walk, widened, at, output ? `may now return a value callers do not know: ${shown(added)}` : shown(added));
}

/** The values of `values` that `others` lacks, compared as JSON. */
function differ(values: readonly unknown[], others: readonly unknown[]): unknown[] {
  const known = new Set(others.map((value) => JSON.stringify(value)));
  return values.filter((value) => !known.has(JSON.stringify(value)));
}

function enumValues(schema: Obj): unknown[] | null {
  if (Array.isArray(schema.enum)) return schema.enum;
  return schema.const === undefined ? null : [schema.const];
}

/** `format` (a bound of an argument, a type of an output), `default` and `description`. */
function diffKeyword(walk: Walk, before: Obj, after: Obj, at: string): void {
  if (before.format !== after.format) {
    const detail = `format ${show(before.format ?? 'none')} → ${show(after.format ?? 'none')}`;
    if (walk.role === 'output') report(walk, 'output_type_changed', at, detail);
    else report(walk, after.format === undefined ? 'bound_widened' : 'bound_tightened', at, detail);
  }
  if (walk.role === 'input' && JSON.stringify(before.default) !== JSON.stringify(after.default)) {
    report(walk, 'default_changed', at, `${show(before.default ?? 'none')} → ${show(after.default ?? 'none')}: the same call now does something else`);
  }
  const was = typeof before.description === 'string' ? before.description : '';
  const is = typeof after.description === 'string' ? after.description : '';
  if (was !== is) report(walk, walk.role === 'input' ? 'argument_description' : 'output_description', at, 'changed', { before: was, after: is });
}

function properties(schema: Obj): Obj {
  return isPlainObject(schema.properties) ? schema.properties : {};
}

function requiredNames(schema: Obj): Set<string> {
  return new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
}

function diffProperties(walk: Walk, before: Obj, after: Obj, at: string, headAt: string): void {
  const was = properties(before);
  const is = properties(after);
  const removed = Object.keys(was).filter((name) => !(name in is));
  const added = Object.keys(is).filter((name) => !(name in was));
  if (walk.role === 'output') {
    for (const name of removed) report(walk, 'output_field_removed', propertyPath(at, name), 'no longer returned');
    for (const name of added) report(walk, 'output_field_added', propertyPath(at, name), 'now returned');
  } else {
    diffArgumentNames(walk, { before, after, at }, removed, added);
  }
  const wasRequired = requiredNames(before);
  const isRequired = requiredNames(after);
  for (const name of Object.keys(was).filter((key) => key in is)) {
    const path = propertyPath(at, name);
    if (walk.role === 'input' && !wasRequired.has(name) && isRequired.has(name)) report(walk, 'argument_required', path, 'was optional, now required');
    if (walk.role === 'input' && wasRequired.has(name) && !isRequired.has(name)) report(walk, 'argument_optional', path, 'was required, now optional');
    if (walk.role === 'output' && wasRequired.has(name) && !isRequired.has(name)) report(walk, 'output_field_optional', path, 'was always returned, now may be left out');
    const [from, to] = [was[name], is[name]];
    if (isPlainObject(from) && isPlainObject(to)) diffNode(walk, from, to, path, propertyPath(headAt, name));
  }
}

/**
 * Arguments gone and new at one level. One gone and one new with the same schema but the text, and
 * the same requiredness, read as a rename (`amount → value`); the rest are removals and additions.
 */
function diffArgumentNames(walk: Walk, level: { before: Obj; after: Obj; at: string }, removed: readonly string[], added: readonly string[]): void {
  const wasRequired = requiredNames(level.before);
  const isRequired = requiredNames(level.after);
  const shape = (schema: unknown, required: boolean): string => JSON.stringify([withoutDescription(schema), required]);
  const renamed = new Map<string, string>();
  for (const name of removed) {
    const key = shape(properties(level.before)[name], wasRequired.has(name));
    const matches = added.filter((candidate) => shape(properties(level.after)[candidate], isRequired.has(candidate)) === key);
    const rivals = removed.filter((other) => shape(properties(level.before)[other], wasRequired.has(other)) === key);
    if (matches.length === 1 && rivals.length === 1) renamed.set(name, matches[0]!);
  }
  const renamedTo = new Set(renamed.values());
  for (const name of removed) {
    const to = renamed.get(name);
    if (to !== undefined) report(walk, 'argument_renamed', propertyPath(level.at, name), `now ${propertyPath(level.at, to)}`);
    else report(walk, 'argument_removed', propertyPath(level.at, name), wasRequired.has(name) ? 'was required' : 'was optional');
  }
  for (const name of added.filter((candidate) => !renamedTo.has(candidate))) {
    if (isRequired.has(name)) report(walk, 'argument_required', propertyPath(level.at, name), 'new and required');
    else report(walk, 'argument_added', propertyPath(level.at, name), 'new, optional');
  }
}

function withoutDescription(schema: unknown): unknown {
  if (!isPlainObject(schema)) return schema;
  const { description: _text, ...rest } = schema;
  return rest;
}

/**
 * Items, keyed values, keys and union members. A constraint that appears (items, keyed values or
 * keys given a schema) narrows what an argument takes and one that goes widens it; a union member
 * that goes narrows and one that appears widens — reported when the union's types did not already
 * say so (diffTypes). Union members are paired by the types they accept, then by position, so a
 * reordered union (`[string, integer]` → `[integer, string]`) is no change.
 */
function diffChildren(walk: Walk, level: { before: Obj; after: Obj; at: string; headAt: string }, typeChanged: boolean): void {
  const { at, headAt } = level;
  // Children keyed by their place below the node (`[]`, `{}`, `|2`), the same on both sides.
  const was = new Map(structuralChildren(level.before, at).map(([path, child]) => [path.slice(at.length), child] as const));
  const is = new Map(structuralChildren(level.after, headAt).map(([path, child]) => [path.slice(headAt.length), child] as const));
  const partners = pairMembers(walk, was, is);
  const paired = new Set(partners.values());
  for (const [place, child] of was) {
    const partner = partners.get(place) ?? place;
    const other = isMember(place) && !partners.has(place) ? undefined : is.get(partner);
    if (isPlainObject(child) && isPlainObject(other)) diffNode(walk, child, other, at + place, headAt + partner);
    else if (other === undefined && !(isMember(place) && typeChanged)) report(walk, childKind(walk, place, 'gone'), at + place, isMember(place) ? 'union member removed' : 'no longer constrained');
  }
  for (const place of [...is.keys()].filter((key) => isMember(key) ? !paired.has(key) : !was.has(key))) {
    if (!(isMember(place) && typeChanged)) report(walk, childKind(walk, place, 'new'), headAt + place, isMember(place) ? 'union member added' : 'now constrained');
  }
}

/** Base union member → head union member: first those accepting the same types (each once), then the rest by position. */
function pairMembers(walk: Walk, was: ReadonlyMap<string, unknown>, is: ReadonlyMap<string, unknown>): Map<string, string> {
  const members = (children: ReadonlyMap<string, unknown>, root: Obj): Array<[string, string]> => [...children].filter(([place]) => isMember(place))
    .map(([place, child]) => {
      const resolved = isPlainObject(child) ? resolveRef(root, child) : undefined;
      return [place, resolved === undefined ? '?' : showTypes(typeSet(walk, root, resolved))];
    });
  const [before, after] = [members(was, walk.roots.before), members(is, walk.roots.after)];
  const pairs = new Map<string, string>();
  const taken = new Set<string>();
  const pair = (matches: (from: string, to: string, types: [string, string]) => boolean): void => {
    for (const [from, fromTypes] of before) {
      if (pairs.has(from)) continue;
      const found = after.find(([to, toTypes]) => !taken.has(to) && matches(from, to, [fromTypes, toTypes]));
      if (found !== undefined) { pairs.set(from, found[0]); taken.add(found[0]); }
    }
  };
  pair((_from, _to, [a, b]) => a === b);
  pair((from, to) => from === to);
  return pairs;
}

function isMember(path: string): boolean {
  return /\|\d+$/.test(path);
}

function childKind(walk: Walk, path: string, how: 'gone' | 'new'): ChangeKind {
  if (walk.role === 'output') return 'output_type_changed';
  return (how === 'new') === isMember(path) ? 'type_widened' : 'type_narrowed';
}
