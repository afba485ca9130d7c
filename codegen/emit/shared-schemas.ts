/**
 * Every schema said once (issue 28): the planner inlines a component into every schema that uses
 * it, so a document whose responses nest the same records renders them hundreds of times. Here
 * the schemas of the planned definitions are hash-consed — each subschema interned by its content,
 * bottom-up, the key of a node holding its children's ids — and a schema of at least
 * MIN_SHARED_LENGTH characters that occurs more than once, or that fills a slot of an
 * OperationDefinition, becomes one export of the shared-schemas module; the operation modules and
 * the other shared schemas import it by name. The bytes a client receives do not change: the
 * modules rebuild the same values, shared by reference instead of copied (and frozen, as any of
 * them may now be reached from many operations). No `$ref` is written.
 *
 * Names, most readable first, all deterministic: the component it is (`schema_Payable`, when the
 * document's `components.schemas` entry converts to exactly this schema); else the slot that holds
 * it (`schema_payables_create_body`, or `schema_parameter_Idempotency_Key` when several do); else
 * the property it was first found under and a content hash (`schema_address_3f9a1c2b`). A changed component keeps its name, so a change of one
 * schema rewrites that export and the few whose content hash holds it.
 */
import { createHash } from 'node:crypto';
import type { JsonSchema, OperationDefinition } from '../../src/runtime/types.js';
import { SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUES } from '../../src/runtime/tool-schema.js';
import { isPlainObject } from '../../src/runtime/values.js';
import { toJsonSchema } from '../json-schema.js';
import { writeJson } from './json-text.js';

/** Below this many characters of JSON a schema stays where it is used: a name would cost about as much. */
export const MIN_SHARED_LENGTH = 200;

type Obj = Record<string, unknown>;

interface Node {
  /** The first object seen with this content: what the export is written from. */
  readonly value: Obj;
  /** The schema children of `value` (by object) and their node ids. */
  readonly children: ReadonlyMap<object, number>;
  /** The content key: `value` with every schema child written as `\0<id>\0` (a raw NUL is never in JSON text). */
  readonly key: string;
  /** JSON characters of the whole schema, about. */
  readonly length: number;
  /** Where it was first found: a property name or keyword, or a slot's label, for its name. */
  readonly hint: string;
  /** The module of the first slot it fills, if any. */
  module?: string;
  /** Occurrences: in distinct parent schemas (each edge once) and in slots. */
  uses: number;
  name?: string;
}

/** One rendered module's text and the shared schemas it names. */
export interface WrittenValue {
  readonly text: string;
  readonly uses: ReadonlySet<string>;
}

export interface SharedSchema {
  readonly name: string;
  /** The schema's JSON text, at top-level indentation, naming the shared schemas it holds. */
  readonly text: string;
  readonly uses: ReadonlySet<string>;
}

/**
 * The JsonSchema-typed fields of an OperationDefinition (src/runtime/types.ts), each with the
 * label that names a schema first found there. A field not listed stays inline in its operation
 * module (type-checked with it): correct, only larger.
 */
function schemaSlots(definition: OperationDefinition): [label: string, schema: JsonSchema][] {
  const slots: [string, JsonSchema][] = definition.parameters.map((parameter) => [`parameter_${parameter.name}`, parameter.schema]);
  const list = definition.list;
  if (list) {
    slots.push(['limit', list.limit]);
    if (list.cursor) slots.push(['cursor', list.cursor]);
    if (list.sort) slots.push(['sort', list.sort.schema]);
    if (list.fields) slots.push(['fields', list.fields]);
    for (const filter of list.filters) slots.push([`filter_${filter.name}`, filter.schema]);
  }
  const content = Object.entries(definition.requestBody?.content ?? {});
  for (const [type, schema] of content) slots.push([content.length === 1 ? 'body' : `body_${type}`, schema]);
  if (definition.successResponse.kind === 'json') slots.push(['response', definition.successResponse.schema]);
  if (definition.acceptedResponse?.kind === 'json') slots.push(['accepted_response', definition.acceptedResponse.schema]);
  return slots;
}

/**
 * `schema` as JSON text, but each subschema (by the keywords of src/runtime/tool-schema.ts) as
 * what `child` makes of it: `hint` says where it sits, for its name.
 */
function contentKey(schema: Obj, hint: string, child: (subschema: unknown, hint: string) => string): string {
  const parts: string[] = [];
  for (const [key, member] of Object.entries(schema)) {
    let part: string;
    if (SCHEMA_MAPS.has(key) && isPlainObject(member)) {
      part = `{${Object.entries(member).map(([name, subschema]) => `${JSON.stringify(name)}:${child(subschema, name)}`).join(',')}}`;
    } else if (SCHEMA_VALUES.has(key) && isPlainObject(member)) {
      part = child(member, `${hint}_${key}`);
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(member)) {
      part = `[${member.map((subschema) => child(subschema, `${hint}_${key}`)).join(',')}]`;
    } else {
      part = JSON.stringify(member) ?? 'undefined';
    }
    parts.push(`${JSON.stringify(key)}:${part}`);
  }
  return `{${parts.join(',')}}`;
}

export class SharedSchemas {
  private readonly nodes: Node[] = [];
  private readonly byKey = new Map<string, number>();
  /** Slot schema object → node id. */
  private readonly slots = new Map<object, number>();
  private readonly hashes = new Map<number, string>();
  private ordered: SharedSchema[] | undefined;

  /**
   * Interns every slot schema of the `planned` definitions (in their order, so ids and names are
   * deterministic) and names the shared ones; `components` (the dereferenced document's
   * `components.schemas`) lends its names to the schemas that are exactly a component.
   */
  constructor(planned: readonly { module: string; definition: OperationDefinition }[], components: Readonly<Obj> = {}) {
    for (const { module, definition } of planned) {
      for (const [label, schema] of schemaSlots(definition)) {
        const id = this.intern(schema, label, true);
        if (id === undefined) continue;
        const node = this.nodes[id]!;
        node.uses += 1;
        node.module ??= module;
        this.slots.set(schema, id);
      }
    }
    this.nameShared(components);
  }

  /** True when `node` is written once, in the shared module, and named. */
  private isShared(node: Node): boolean {
    return node.length >= MIN_SHARED_LENGTH && (node.uses > 1 || node.module !== undefined);
  }

  /** The node id of `value` (a schema object; anything else is data: undefined). Looks only, without adding, when `add` is false. */
  private intern(value: unknown, hint: string, add: boolean): number | undefined {
    if (!isPlainObject(value)) return undefined;
    const children = new Map<object, number>();
    let missing = false;
    const key = contentKey(value, hint, (schema, childHint) => {
      const id = missing ? undefined : this.intern(schema, childHint, add);
      if (id === undefined) {
        if (isPlainObject(schema)) missing = true;
        return JSON.stringify(schema) ?? 'undefined';
      }
      children.set(schema as object, id);
      return `\0${id}\0`;
    });
    if (missing) return undefined;
    const known = this.byKey.get(key);
    if (known !== undefined || !add) return known;
    let length = key.length;
    for (const id of children.values()) {
      const node = this.nodes[id]!;
      node.uses += 1;
      length += node.length;
    }
    const id = this.nodes.length;
    this.nodes.push({ value, children, key, length, hint, uses: 0 });
    this.byKey.set(key, id);
    return id;
  }

  /** A content hash of node `id`: its key with every child id replaced by the child's hash. */
  private hash(id: number): string {
    const known = this.hashes.get(id);
    if (known !== undefined) return known;
    const text = this.nodes[id]!.key.replace(/\0(\d+)\0/g, (_, child: string) => this.hash(Number(child)));
    const hash = createHash('sha256').update(text).digest('hex').slice(0, 8);
    this.hashes.set(id, hash);
    return hash;
  }

  private nameShared(components: Readonly<Obj>): void {
    const taken = new Set<string>();
    const claim = (node: Node, id: number, wanted: string): void => {
      let name = `schema_${wanted.replace(/[^A-Za-z0-9_]+/g, '_').slice(0, 80)}`;
      if (taken.has(name)) name = `${name}_${this.hash(id)}`;
      if (taken.has(name)) throw new Error(`internal: two shared schemas named ${name}`);
      taken.add(name);
      node.name = name;
    };
    for (const name of Object.keys(components).sort()) {
      const id = this.intern(toJsonSchema(components[name]), name, false);
      const node = id === undefined ? undefined : this.nodes[id];
      if (node && node.name === undefined && this.isShared(node)) claim(node, id!, name);
    }
    // A slot's own schema by where it is (`payables_create_body`), or what it is when several hold it
    // (`parameter_Idempotency_Key`); any other by where it was first found and its content.
    this.nodes.forEach((node, id) => {
      if (node.name !== undefined || !this.isShared(node)) return;
      if (node.module === undefined) claim(node, id, `${node.hint}_${this.hash(id)}`);
      else claim(node, id, node.uses > 1 ? node.hint : `${node.module}_${node.hint}`);
    });
  }

  /** Writes node `id` at `indent`: its shared children by name, the others inline. */
  private write(id: number, indent: string, uses: Set<string>): string {
    const node = this.nodes[id]!;
    return writeJson(node.value, indent, (value, at) => {
      const childId = node.children.get(value);
      return childId === undefined ? undefined : this.reference(childId, at, uses);
    });
  }

  private reference(id: number, indent: string, uses: Set<string>): string {
    const name = this.nodes[id]!.name;
    if (name === undefined) return this.write(id, indent, uses);
    uses.add(name);
    return name;
  }

  /** A definition's JSON text, each slot schema by its shared name or inline. */
  writeDefinition(definition: OperationDefinition): WrittenValue {
    const uses = new Set<string>();
    const text = writeJson(definition, '', (value, indent) => {
      const id = this.slots.get(value);
      return id === undefined ? undefined : this.reference(id, indent, uses);
    });
    return { text, uses };
  }

  /** The shared schemas, each after the ones it names (an export is read before it is used), else by name. */
  list(): readonly SharedSchema[] {
    if (this.ordered) return this.ordered;
    const ordered: SharedSchema[] = [];
    const done = new Set<number>();
    const visit = (id: number): void => {
      if (done.has(id)) return;
      done.add(id);
      const uses = new Set<string>();
      const text = this.write(id, '', uses);
      for (const childId of this.namedBelow(id)) visit(childId);
      ordered.push({ name: this.nodes[id]!.name!, text, uses });
    };
    const named = this.nodes.flatMap((node, id) => (node.name === undefined ? [] : [[node.name, id] as const]));
    for (const [, id] of named.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) visit(id);
    this.ordered = ordered;
    return ordered;
  }

  /** The named nodes node `id`'s text names: its named children, and those below its inline ones. */
  private namedBelow(id: number): number[] {
    return [...this.nodes[id]!.children.values()].flatMap((childId) => (this.nodes[childId]!.name === undefined ? this.namedBelow(childId) : [childId]));
  }
}
