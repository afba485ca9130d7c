/**
 * Names the arguments of one tool. Every input of an operation — the workspace, the list
 * arguments, path, query and header parameters, body fields — becomes one top-level argument;
 * when two would get the same name, the one later in that order is renamed `<location>_<name>`
 * (`body_id`), or `<location>_<name>_2`, `_3`, … when another input already has or asks for that
 * name. Deterministic (the order is fixed) and reversible:
 * the argument map records where each argument goes, and the dispatcher reads only that map.
 * A renamed argument's description starts with its source, so an agent sees what it is.
 * docs/protocol.md#tool-arguments
 */
import type { ArgumentTarget, JsonSchema } from './types.js';

/** Where an argument comes from, in naming priority: an earlier location keeps a contested name. */
export type ArgumentLocation = 'workspace' | 'list' | 'path' | 'query' | 'header' | 'body';

const PRIORITY: readonly ArgumentLocation[] = ['workspace', 'list', 'path', 'query', 'header', 'body'];

/** What the description of a renamed argument starts with. */
const SOURCE_LABEL: { readonly [where in ArgumentLocation]: string } = {
  workspace: 'Workspace argument',
  list: 'List argument',
  path: 'Path parameter',
  query: 'Query parameter',
  header: 'Header',
  body: 'Body field',
};

interface Candidate {
  readonly name: string;
  /** The name as the operation spells it (parameter or body field), for the renamed description. */
  readonly sourceName: string;
  readonly location: ArgumentLocation;
  readonly schema: JsonSchema;
  readonly target: ArgumentTarget;
  readonly required: boolean;
}

export interface NamedArguments {
  readonly properties: { [name: string]: JsonSchema };
  readonly required: string[];
  readonly args: { [name: string]: ArgumentTarget };
}

/** Collects candidates in display order; `resolve` names them by priority and emits them in display order. */
export class ArgumentCollector {
  private readonly candidates: Candidate[] = [];

  add(name: string, schema: JsonSchema, target: ArgumentTarget, required: boolean, location: ArgumentLocation, sourceName = name): void {
    this.candidates.push({ name, sourceName, location, schema, target, required });
  }

  resolve(): NamedArguments {
    const names = new Map<Candidate, string>();
    const taken = new Set<string>();
    // A new name never takes one that another input asks for (body fields `id` and `body_id`).
    const wanted = new Set(this.candidates.map((c) => c.name));
    const byPriority = PRIORITY.flatMap((location) => this.candidates.filter((c) => c.location === location));
    for (const candidate of byPriority) {
      const name = taken.has(candidate.name) ? findFreeName(`${candidate.location}_${candidate.name}`, taken, wanted) : candidate.name;
      taken.add(name);
      names.set(candidate, name);
    }
    const result: NamedArguments = { properties: {}, required: [], args: {} };
    for (const candidate of this.candidates) {
      const name = names.get(candidate)!;
      result.properties[name] = name === candidate.name ? candidate.schema : describeRenamed(candidate);
      result.args[name] = candidate.target;
      if (candidate.required) result.required.push(name);
    }
    return result;
  }
}

function findFreeName(base: string, taken: ReadonlySet<string>, wanted: ReadonlySet<string>): string {
  const free = (name: string) => !taken.has(name) && !wanted.has(name);
  if (free(base)) return base;
  let suffix = 2;
  while (!free(`${base}_${suffix}`)) suffix += 1;
  return `${base}_${suffix}`;
}

function describeRenamed(candidate: Candidate): JsonSchema {
  const own = typeof candidate.schema.description === 'string' ? ` ${candidate.schema.description}` : '';
  return { ...candidate.schema, description: `${SOURCE_LABEL[candidate.location]} \`${candidate.sourceName}\`.${own}` };
}
