/**
 * Real record ids for the boundary fuzzer, read from the server like any client would: the first
 * page of every list route of the generated route table (nested lists such as an account's
 * statement lines under real parent ids), plus the ids rows point to (`transfer_id`,
 * `reconciliation_id`, …) for resources without a list. Keys are resource names with `_`
 * (`statement_lines`); `resourceOfField` maps a field (`person_id`, `statement_line_ids`) to one.
 */
import { routes } from '../../../generated/registry.gen.js';
import { ID_FIELDS, ODD_IDS, type Vocabulary } from '../../helpers/property-arbitraries.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Rows read per list (the largest page). */
const PAGE = 100;
/** Parents whose nested lists are read. */
const PARENTS = 3;

export function normalizeResource(segment: string): string {
  return segment.replace(/-/g, '_');
}

function plural(stem: string): string {
  if (/[^aeiou]y$/.test(stem)) return `${stem.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/.test(stem)) return `${stem}es`;
  return `${stem}s`;
}

/** The resource a field's ids belong to (`category_id` → categories), or undefined. */
export function resourceOfField(field: string | undefined): string | undefined {
  if (field === undefined) return undefined;
  const known = ID_FIELDS[field];
  if (known !== undefined) return known;
  const stem = /^(.+?)_ids?$/.exec(field)?.[1];
  return stem === undefined ? undefined : plural(stem);
}

/** The resource an `x_type` enum value names (`payable` → payables). */
export function resourceOfType(type: string): string {
  return plural(type);
}

/** The resource of a path parameter: the segment before it (`/v1/accounts/{id}/statements` → accounts). */
export function resourceOfPathParameter(path: string, parameter: string): string | undefined {
  const segments = path.split('/');
  const at = segments.indexOf(`{${parameter}}`);
  const before = at > 0 ? segments[at - 1] : undefined;
  return before === undefined || before.startsWith('{') ? undefined : normalizeResource(before);
}

/** The resource an operation's records belong to: its path's (`/v1/accounts/{id}/statements` → accounts). */
export function ownResource(path: string): string | undefined {
  return resourceOfPathParameter(path, 'id') ?? normalizeResource(path.split('/')[2] ?? '');
}

async function readRows(url: string, token: string, workspace: string, path: string): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${url}${path}?limit=${PAGE}`, { headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspace } });
  if (response.status !== 200) return [];
  const body = (await response.json()) as { data?: unknown };
  return Array.isArray(body.data) ? body.data.filter((row): row is Record<string, unknown> => row !== null && typeof row === 'object') : [];
}

/** Adds the id of a record an operation answered with (a create's) to its resource, so later calls can use it. */
export function learnId(vocabulary: Vocabulary, resource: string | undefined, body: unknown): void {
  const id = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)['id'] : undefined;
  if (resource === undefined || typeof id !== 'string' || !UUID.test(id)) return;
  const ids = vocabulary.byResource.get(resource);
  if (ids === undefined) (vocabulary.byResource as Map<string, string[]>).set(resource, [id]);
  else if (!ids.includes(id)) (ids as string[]).push(id);
}

export async function collectFuzzVocabulary(url: string, token: string, workspace: string): Promise<Vocabulary> {
  const byResource = new Map<string, Set<string>>();
  const add = (resource: string | undefined, id: unknown) => {
    if (resource === undefined || typeof id !== 'string' || !UUID.test(id)) return;
    let set = byResource.get(resource);
    if (!set) byResource.set(resource, (set = new Set()));
    set.add(id);
  };
  const harvest = (resource: string, rows: readonly Record<string, unknown>[]) => {
    for (const row of rows) {
      add(resource, row['id']);
      for (const [key, value] of Object.entries(row)) {
        if (key === 'id') continue;
        // `source_id` next to `source: "transfer"`, `parent_id` next to `parent_type: "payable"`.
        const stem = /^(.+)_id$/.exec(key)?.[1];
        const kind = stem === undefined ? undefined : row[stem] ?? row[`${stem}_type`];
        add(typeof kind === 'string' ? resourceOfType(kind) : resourceOfField(key), value);
      }
    }
  };
  const lists = routes.filter((route) => route.list !== null && route.operation.method === 'GET');
  for (const route of lists.filter((r) => !r.operation.path.includes('{'))) {
    harvest(normalizeResource(route.operation.path.split('/')[2] ?? ''), await readRows(url, token, workspace, route.operation.path));
  }
  for (const route of lists.filter((r) => r.operation.path.includes('{'))) {
    const segments = route.operation.path.split('/');
    const resource = normalizeResource(segments[segments.length - 1] ?? '');
    const names = [...route.operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
    if (names.length !== 1) continue;
    const parents = [...(byResource.get(resourceOfPathParameter(route.operation.path, names[0] ?? '') ?? '') ?? [])].slice(0, PARENTS);
    for (const parent of parents) harvest(resource, await readRows(url, token, workspace, route.operation.path.replace(`{${names[0]}}`, parent)));
  }
  const ids = new Set<string>(ODD_IDS);
  for (const set of byResource.values()) for (const id of set) ids.add(id);
  return { ids: [...ids], byResource: new Map([...byResource].map(([resource, set]) => [resource, [...set]])) };
}
