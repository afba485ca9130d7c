/**
 * What a corpus document holds, read from its root file as written (no generator code): the
 * features of test/codegen/corpus.ts's `covers`, its operations and its `info.license`. Lets the
 * corpus test check that each document still covers what the list says after a package update.
 */
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import type { CorpusFeature } from './corpus.js';

type Node = { [key: string]: unknown };

const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);

export interface DocumentFacts {
  readonly features: ReadonlySet<CorpusFeature>;
  /** Operations of the path items written in the root file (paths × methods). */
  readonly operations: number;
  readonly licence: string | undefined;
  /** `2.0`, `3.0` or `3.1`, from `swagger` / `openapi`. */
  readonly format: string;
}

export function readDocumentFacts(file: string): DocumentFacts {
  const text = readFileSync(file, 'utf8');
  const doc = (file.endsWith('.json') ? JSON.parse(text) : load(text)) as Node;
  const nodes: Node[] = [];
  collect(doc, nodes);
  const operations = countOperations(doc);
  const features = new Set<CorpusFeature>();
  const has = (feature: CorpusFeature, present: boolean) => { if (present) features.add(feature); };
  has('1,000+ operations', operations >= 1000);
  has('Swagger 2.0 formData', doc.swagger === '2.0' && nodes.some((node) => node.in === 'formData'));
  has('OpenAPI 3.1 webhooks', String(doc.openapi).startsWith('3.1') && isNode(doc.webhooks) && Object.keys(doc.webhooks).length > 0);
  has('callbacks', nodes.some((node) => isNode(node.callbacks) && Object.keys(node.callbacks).length > 0));
  has('discriminators', nodes.some((node) => isNode(node.discriminator) && typeof node.discriminator.propertyName === 'string'));
  has('recursive schemas', hasSchemaCycle(doc));
  has('unions with array, object and scalar branches', unionBranchKinds(doc, nodes).size === 3);
  has('multi-file', nodes.some((node) => typeof node.$ref === 'string' && !node.$ref.startsWith('#')));
  const info = isNode(doc.info) ? doc.info : {};
  const format = doc.swagger === '2.0' ? '2.0' : String(doc.openapi).split('.').slice(0, 2).join('.');
  return { features, operations, licence: isNode(info.license) ? String(info.license.name) : undefined, format };
}

function collect(value: unknown, into: Node[]): void {
  if (Array.isArray(value)) for (const each of value) collect(each, into);
  else if (isNode(value)) {
    into.push(value);
    for (const each of Object.values(value)) collect(each, into);
  }
}

function countOperations(doc: Node): number {
  const items = isNode(doc.paths) ? Object.values(doc.paths) : [];
  return items.filter(isNode).reduce((sum, item) => sum + METHODS.filter((method) => isNode(item[method])).length, 0);
}

/** The schema a local `$ref` (`#/components/schemas/X`, `#/definitions/X`) points at, or the node itself. */
function resolveLocal(doc: Node, node: Node): Node {
  if (typeof node.$ref !== 'string' || !node.$ref.startsWith('#/')) return node;
  let target: unknown = doc;
  for (const segment of node.$ref.slice(2).split('/')) {
    target = isNode(target) ? target[decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  return isNode(target) ? target : node;
}

/** Which kinds of branch (array, object, scalar) the document's oneOf/anyOf unions have, over all of them. */
function unionBranchKinds(doc: Node, nodes: readonly Node[]): Set<string> {
  const kinds = new Set<string>();
  for (const node of nodes) {
    for (const branches of [node.oneOf, node.anyOf]) {
      if (!Array.isArray(branches)) continue;
      for (const branch of branches.filter(isNode).map((each) => resolveLocal(doc, each))) {
        if (branch.type === 'array' || 'items' in branch) kinds.add('array');
        else if (branch.type === 'object' || 'properties' in branch) kinds.add('object');
        else if (typeof branch.type === 'string' && SCALARS.has(branch.type)) kinds.add('scalar');
      }
    }
  }
  return kinds;
}

/** Whether a named schema reaches itself through local references (a recursive schema). */
function hasSchemaCycle(doc: Node): boolean {
  const components = isNode(doc.components) ? doc.components : {};
  const schemas = isNode(components.schemas) ? components.schemas : isNode(doc.definitions) ? doc.definitions : {};
  const prefix = isNode(components.schemas) ? '#/components/schemas/' : '#/definitions/';
  const edges = new Map<string, string[]>();
  for (const [name, schema] of Object.entries(schemas)) {
    const found: Node[] = [];
    collect(schema, found);
    edges.set(name, found.flatMap((node) => (typeof node.$ref === 'string' && node.$ref.startsWith(prefix) ? [decodeURIComponent(node.$ref.slice(prefix.length))] : [])));
  }
  const state = new Map<string, 'open' | 'done'>();
  const reachesOpen = (name: string): boolean => {
    state.set(name, 'open');
    for (const next of edges.get(name) ?? []) {
      if (state.get(next) === 'open' || (!state.has(next) && reachesOpen(next))) return true;
    }
    state.set(name, 'done');
    return false;
  };
  return [...edges.keys()].some((name) => !state.has(name) && reachesOpen(name));
}
