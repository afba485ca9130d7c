/**
 * One valid REST request per operation, DERIVED from the generated route table and the
 * examples of openapi/v1.yaml — no per-operation table: an operation added to the spec is
 * covered by the success, 429, cross-workspace and confirmation tests the moment it exists.
 *
 * How a request is derived from a route:
 * - path `{id}`: a record of the path's resource (`/v1/<resource>/…`), made fresh through that
 *   resource's collection POST (itself derived). An action whose precondition is another
 *   action's result (`PREPARE`: reopen needs a settled record, unlink a linked one) gets a
 *   record the other action has been applied to; the other path parameters come from that
 *   action's body (`parent_type`, `parent_id`), or from their schema when nothing was prepared.
 * - lists: `?limit=100`.
 * - body: the operation's `example` in the spec, else the body schema's `required` properties
 *   (or, when none is required, the first property with an example), always plus every
 *   property that names a record (`*_id`, also inside arrays; an array item's `id` and an `ids`
 *   list name records of the path's resource); values from the properties'
 *   `examples`. Record ids are replaced by records of the workspace (`REFERENCES`), values
 *   that must be unique are made fresh (a bill's `code`: a fresh boleto), arrays keep one item and an apportionment item
 *   carries the whole (100 %, or the body's amount).
 * What `take` returns (fresh records, another workspace's records, random uuids) is up to the
 * test; this module only knows how to shape requests and how to make records.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { parse } from 'yaml';
import { routes } from '../../../generated/registry.gen.js';
import type { JsonSchema, RouteDefinition } from '../../../src/runtime/types.js';
import type { RestApp } from './rest-app.js';
import { makeCnpj } from './documents.js';
import { freshBoleto } from './payment-codes.js';
import { buildSmallPdf } from '../operations/attachments-fixtures.js';
import { loadFixtures, type Fixtures } from '../rules/support.js';
import { BRUNO_PERSON_ID } from '../../../src/seed/ids.js';

/**
 * A record a request needs:
 * - `<resource>` (a path segment, e.g. `payables`): a fresh record, consumed by the request;
 * - `<resource>+<action>` (e.g. `payables+settle`): a fresh record the action was applied to;
 * - `ref:<name>`: a seeded record named in a body, never changed by the request.
 */
export type RecordKind = string;

/** A record handed to a request builder; `params` are the body fields of the action that prepared it. */
export interface RecordRef { readonly id: string; readonly params?: Readonly<Record<string, unknown>> }

export type Take = (kind: RecordKind) => Promise<RecordRef>;

export interface CoverageRequest {
  readonly method: string;
  readonly path: string;
  /** Path parameter values (what an MCP call passes as arguments). */
  readonly params: Readonly<Record<string, string>>;
  readonly body?: Record<string, unknown>;
  /** Body fields that name records of the workspace: JSON pointer → the kind of record. */
  readonly references?: Readonly<Record<string, RecordKind>>;
}

type Builder = (take: Take) => Promise<CoverageRequest>;

/** Actions that need a record in the state another action leaves it in (the inverse of an undo). */
const PREPARE: Readonly<Record<string, string>> = { reopen: 'settle', unlink: 'link' };

/** Seeded references by body field name (the domain's vocabulary, not a list of operations). */
function referenceKind(field: string, resource: string, body: Record<string, unknown>): RecordKind | undefined {
  const incoming = resource === 'receivables';
  switch (field) {
    case 'person_id': return incoming ? 'ref:customer' : 'ref:vendor';
    case 'category_id': return incoming ? 'ref:creditCategory' : 'ref:debitCategory';
    case 'cost_center_id': return incoming ? 'ref:revenueCenter' : 'ref:costCenter';
    case 'to_account_id': return 'ref:otherAccount';
    case 'financial_account_id': case 'from_account_id': return 'ref:account';
    // A polymorphic parent names its kind beside it; otherwise it is a record of the same resource.
    case 'parent_id': return typeof body['parent_type'] === 'string' ? `${body['parent_type']}s` : resource;
    default: return undefined;
  }
}

let counter = 0;
const unique = (text: unknown) => `${String(text).slice(0, 40)} ${randomUUID().slice(0, 8)} ${++counter}`;

type Spec = { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { example?: unknown }> } }>> };
let spec: Spec | undefined;
function specExample(route: RouteDefinition): Record<string, unknown> | undefined {
  spec ??= parse(fs.readFileSync('openapi/v1.yaml', 'utf8')) as Spec;
  const example = spec.paths[route.operation.path]?.[route.operation.method.toLowerCase()]?.requestBody?.content?.['application/json']?.example;
  return example && typeof example === 'object' ? structuredClone(example) as Record<string, unknown> : undefined;
}

const propertiesOf = (schema: JsonSchema | undefined) => ((schema?.['properties'] ?? {}) as Record<string, JsonSchema>);
const namesRecords = (schema: JsonSchema): boolean =>
  Object.entries(propertiesOf(schema)).some(([name, child]) => name.endsWith('_id') || namesRecords(child))
  || (typeof schema['items'] === 'object' && namesRecords(schema['items'] as JsonSchema));

/** A value for a schema from its examples, enum, default or type. */
function sample(schema: JsonSchema): unknown {
  const examples = schema['examples'] as unknown[] | undefined;
  if (examples?.length) return structuredClone(examples[0]);
  if (Array.isArray(schema['enum'])) return (schema['enum'] as unknown[])[0];
  if (schema['default'] !== undefined) return schema['default'];
  if (schema['format'] === 'uuid') return randomUUID();
  const type = Array.isArray(schema['type']) ? (schema['type'] as string[])[0] : schema['type'];
  if (type === 'object') return shape(schema, undefined);
  if (type === 'array') return schema['items'] ? [sample(schema['items'] as JsonSchema)] : [];
  if (type === 'boolean') return true;
  if (type === 'integer' || type === 'number') return 1;
  throw new Error(`coverage-requests: no example for a ${String(type)} (add \`examples\` to the schema in openapi/v1.yaml)`);
}

/**
 * The example (or the required / first-with-an-example properties) of an object schema, plus
 * every record-naming property; `minimal` (records made only to exist): required properties only.
 */
function shape(schema: JsonSchema, example: Record<string, unknown> | undefined, minimal = false): Record<string, unknown> {
  const properties = propertiesOf(schema);
  const out: Record<string, unknown> = (minimal ? undefined : example) ?? {};
  const wanted = new Set((schema['required'] as string[] | undefined) ?? []);
  if (!minimal && !example && wanted.size === 0) {
    const first = Object.entries(properties).find(([, child]) => Array.isArray(child['examples']));
    if (first) wanted.add(first[0]);
  }
  if (!minimal) for (const [name, child] of Object.entries(properties)) if (name.endsWith('_id') || namesRecords(child)) wanted.add(name);
  for (const name of wanted) if (!(name in out) && properties[name]) out[name] = sample(properties[name] as JsonSchema);
  for (const [name, value] of Object.entries(out)) {
    const child = properties[name];
    if (!child) continue;
    if (Array.isArray(value) && typeof child['items'] === 'object' && (child['items'] as JsonSchema)['type'] === 'object') {
      const item = shape(child['items'] as JsonSchema, value[0] as Record<string, unknown> | undefined, minimal);
      // An apportionment item: `resolve` makes it carry the whole.
      if ('percentage' in propertiesOf(child['items'] as JsonSchema)) item['percentage'] ??= '100';
      out[name] = [item];
    } else if (value && typeof value === 'object' && !Array.isArray(value) && child['properties']) {
      out[name] = shape(child, value as Record<string, unknown>, minimal);
    }
  }
  return out;
}

/** Replaces record ids by records of the workspace and unique values by fresh ones; returns the references. */
async function resolve(node: Record<string, unknown>, pointer: string, resource: string, root: Record<string, unknown>, take: Take, references: Record<string, RecordKind>): Promise<void> {
  // One apportionment item carries the whole, by exactly one of percentage or amount.
  // (An apportionment item names its cost center; another nested amount, e.g. a spending limit's, keeps its example.)
  const apportions = pointer !== '' && 'cost_center_id' in node;
  if (apportions && 'percentage' in node) { node['percentage'] = '100'; delete node['amount']; }
  else if (apportions && 'amount' in node) node['amount'] = root['amount'];
  for (const [name, value] of Object.entries(node)) {
    const here = `${pointer}/${name}`;
    if (name.endsWith('_id')) {
      const kind = referenceKind(name, resource, node);
      if (!kind) throw new Error(`coverage-requests: no record kind for body field ${here} of /v1/${resource} (teach referenceKind)`);
      references[here] = kind;
      node[name] = (await take(kind)).id;
    } else if (name === 'id' && pointer !== '' && typeof node['type'] === 'string') {
      // A polymorphic item (`{type: payable, id}`, a reconciliation's records): a record of that kind.
      references[here] = `${node['type']}s`;
      node[name] = (await take(`${node['type']}s`)).id;
    } else if (name === 'id' && pointer !== '') {
      // An item of a list naming its record by `id` alone (a batch's items): a record of the path's resource.
      references[here] = resource;
      node[name] = (await take(resource)).id;
    } else if (name === 'ids' && Array.isArray(value)) {
      // A list of ids (a batch's titles): records of the path's resource.
      node[name] = await Promise.all(value.map(async (_item, index) => {
        references[`${here}/${index}`] = resource;
        return (await take(resource)).id;
      }));
    } else if (name === 'statement_line_ids') {
      continue; // below, once the records the lines must balance are known
    } else if (name === 'cnpj') node[name] = makeCnpj();
    // A bill's code identifies one payment, recorded once per workspace: every request a fresh boleto.
    else if (name === 'code' && pointer === '' && typeof value === 'string') node[name] = freshBoleto().line;
    else if (name === 'name') node[name] = unique(value);
    else if (name === 'content_base64') node[name] = String(root['file_name'] ?? '').endsWith('.ofx') ? buildSmallOfx(randomUUID(), -4590).toString('base64') : buildSmallPdf(randomUUID()).toString('base64');
    else if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) if (item && typeof item === 'object') await resolve(item as Record<string, unknown>, `${here}/${index}`, resource, root, take, references);
    } else if (value && typeof value === 'object') await resolve(value as Record<string, unknown>, here, resource, root, take, references);
  }
  // An approval of payment destinations says what the approver saw: the person's current values
  // of the kinds approved (a taker that names nothing gives none: any value, the person is not found).
  if (node['expected'] !== undefined && typeof node['person_id'] === 'string' && Array.isArray(node['kinds'])) {
    const seen = (await take(`destinations_of:${node['person_id']}`)).params ?? {};
    node['expected'] = Object.fromEntries((node['kinds'] as string[]).map((kind) => [kind, typeof seen[kind] === 'string' ? seen[kind] : 'unseen']));
  }
  // Statement lines exist only through an import: one line per record, of its amount and direction.
  if (Array.isArray(node['statement_line_ids']) && Array.isArray(node['items'])) {
    const items = node['items'] as { type: string; id: string }[];
    node['statement_line_ids'] = await Promise.all(items.map(async (item, index) => {
      references[`${pointer}/statement_line_ids/${index}`] = `statement_line_for:${item.type}s:${item.id}`;
      return (await take(`statement_line_for:${item.type}s:${item.id}`)).id;
    }));
  }
}

/** A one-line OFX statement: `cents` < 0 is a debit. */
export function buildSmallOfx(fitid: string, cents: number): Buffer {
  const amount = `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
  return Buffer.from(`OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKTRANLIST><STMTTRN><TRNTYPE>${cents < 0 ? 'DEBIT' : 'CREDIT'}<DTPOSTED>${new Date().toISOString().slice(0, 10).replaceAll('-', '')}<TRNAMT>${amount}<FITID>${fitid}<MEMO>Coverage</STMTTRN></BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n`);
}

const resourceOf = (route: RouteDefinition) => route.operation.path.split('/')[2] as string;
const actionOf = (route: RouteDefinition) => route.operation.operationId.split('.').pop() as string;

export interface DeriveOptions {
  /** The record of the path `{id}` (otherwise taken). */
  readonly record?: RecordRef;
  /** Required body properties only: for records made to exist, not to be looked at. */
  readonly minimal?: boolean;
}

/** Derives one valid request for `route`. */
export async function deriveRequest(route: RouteDefinition, take: Take, options: DeriveOptions = {}): Promise<CoverageRequest> {
  const resource = resourceOf(route);
  const pathParameters = route.parameters.filter((p) => p.in === 'path');
  const before = PREPARE[actionOf(route)];
  const record = pathParameters.some((p) => p.name === 'id') ? options.record ?? await take(before ? `${resource}+${before}` : resource) : undefined;
  const params: Record<string, string> = {};
  for (const parameter of pathParameters) {
    params[parameter.name] = parameter.name === 'id' ? (record as RecordRef).id : String(record?.params?.[parameter.name] ?? sample(parameter.schema));
  }
  const path = route.operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] as string)) + (route.list ? '?limit=100' : '');
  const schema = route.requestBody?.content['application/json'];
  if (!schema) return { method: route.operation.method, path, params };
  const body = shape(schema, specExample(route), options.minimal);
  const references: Record<string, RecordKind> = {};
  await resolve(body, '', resource, body, take, references);
  return { method: route.operation.method, path, params, body, ...(Object.keys(references).length ? { references } : {}) };
}

/** operationId → builder of one valid request, for every route of the generated table. */
export const REQUESTS: Readonly<Record<string, Builder>> = Object.fromEntries(
  routes.map((route) => [route.operation.operationId, (take: Take) => deriveRequest(route, take)]),
);

/** `take` that hands out random uuids: requests of the right shape that name nothing. */
export const takeRandom: Take = async () => ({ id: randomUUID() });

/** The route that makes a record of `resource`: its collection POST. */
function creatorOf(resource: string): RouteDefinition {
  const route = routes.find((r) => r.operation.method === 'POST' && r.operation.path === `/v1/${resource}`);
  if (!route) throw new Error(`coverage-requests: no POST /v1/${resource} to make a record with`);
  return route;
}

/** The route of `action` on one record of `resource`. */
function actionRoute(resource: string, action: string): RouteDefinition {
  const route = routes.find((r) => resourceOf(r) === resource && actionOf(r) === action && r.operation.path.startsWith(`/v1/${resource}/{id}`));
  if (!route) throw new Error(`coverage-requests: no ${action} on /v1/${resource}/{id}`);
  return route;
}

/** The id of the record a collection POST made: its body's, or the first of its `data` (an approval answers the entries it stored). */
function createdId(body: Record<string, unknown>): string {
  const data = body['data'];
  const first = Array.isArray(data) ? (data[0] as Record<string, unknown> | undefined) : undefined;
  const id = body['id'] ?? first?.['id'];
  if (typeof id !== 'string') throw new Error(`coverage-requests: the POST answered no id: ${JSON.stringify(body)}`);
  return id;
}

/** `take` that creates (resource kinds) or picks seeded (ref kinds) records in `workspace`, as ana over REST. */
export async function createTaker(api: RestApp, workspace: string): Promise<Take> {
  const fixtures: Fixtures = await loadFixtures(api.app.services.db, workspace);
  const refs: Record<string, string> = {
    'ref:vendor': fixtures.vendorId, 'ref:customer': fixtures.customerId,
    'ref:debitCategory': fixtures.debitCategoryId, 'ref:creditCategory': fixtures.creditCategoryId,
    'ref:account': fixtures.accountId, 'ref:otherAccount': fixtures.otherAccountId,
    'ref:costCenter': fixtures.costCenters.cost, 'ref:revenueCenter': fixtures.costCenters.revenue,
  };
  const run = async (request: CoverageRequest): Promise<Record<string, unknown>> => {
    const res = await api.call(request.method, request.path, { workspace, ...(request.body ? { body: request.body } : {}) });
    if (res.status < 200 || res.status > 299) throw new Error(`fixture ${request.method} ${request.path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as Record<string, unknown>;
  };
  /** An imported statement line that balances one record: same amount, same direction, on its account. */
  const lineFor = async (kind: string): Promise<RecordRef> => {
    const [, resource, id] = kind.split(':') as [string, string, string];
    const record = await run({ method: 'GET', path: `/v1/${resource}/${id}`, params: {} });
    const credit = resource === 'receivables' || record['type'] === 'credit';
    const cents = Math.round(Number(record['amount']) * 100) * (credit ? 1 : -1);
    const accountId = String(record['financial_account_id'] ?? refs['ref:account']);
    const fitid = randomUUID();
    await run({ method: 'POST', path: `/v1/accounts/${accountId}/statements`, params: {}, body: { file_name: 'line.ofx', content_base64: buildSmallOfx(fitid, cents).toString('base64') } });
    const lines = await run({ method: 'GET', path: `/v1/accounts/${accountId}/statement-lines?limit=100&status=unreconciled`, params: {} });
    const line = (lines['data'] as { id: string; fitid: string }[]).find((l) => l.fitid === fitid);
    if (!line) throw new Error('coverage-requests: the imported statement line is not listed');
    return { id: line.id };
  };
  /**
   * An approval request no collection POST makes (a settle above the approval threshold does): a
   * pending one for a fresh payable, asked by bruno over REST — so ana, who runs the requests, is
   * the second person who may decide it — with the settle's own derived body.
   */
  const approvalFor = async (): Promise<RecordRef> => {
    const payableId = (await take('payables')).id;
    const payable = await run({ method: 'GET', path: `/v1/payables/${payableId}`, params: {} });
    const settle = await deriveRequest(actionRoute('payables', 'settle'), take, { record: { id: payableId } });
    const now = api.app.services.clock.now();
    const id = randomUUID();
    // The stored item is what the settle measures (an approval runs only the move it approved):
    // the amount paid, interest and discount included, from the account the body names.
    const body = (settle.body ?? {}) as Record<string, unknown>;
    const centsOf = (value: unknown) => (typeof value === 'string' ? Math.round(Number(value) * 100) : 0);
    const cents = centsOf(payable['amount']) + centsOf(body['interest_amount']) - centsOf(body['discount_amount']);
    const accountId = (typeof body['financial_account_id'] === 'string' ? body['financial_account_id'] : payable['financial_account_id']) as string | null;
    await api.app.services.db.insertInto('approval_requests').values({
      id, workspace_id: workspace, operation_id: 'payables.settle', input: JSON.stringify({ path: { id: payableId }, query: {}, body: settle.body }),
      sentence: 'Pay the coverage payable?', amount_cents: cents,
      items: JSON.stringify([{ record_id: payableId, kind: 'payable', cents, payee_person_id: payable['person_id'], account_id: accountId, version: payable['version'], label: 'payable' }]),
      person_id: payable['person_id'] as string | null, financial_account_id: accountId,
      requested_by: BRUNO_PERSON_ID, requested_via: 'api', token_type: 'personal', status: 'pending_approval',
      created_at: new Date(now).toISOString(), expires_at: new Date(now + 24 * 3_600_000).toISOString(),
      decided_by: null, decided_via: null, decided_at: null, decision_reason: null, result: null, version: 1,
    }).execute();
    return { id };
  };
  /** A person's payment destinations as an approver reads them (`expected` of payee_allowlist.approve). */
  const destinationsOf = async (kind: string): Promise<RecordRef> => {
    const id = kind.slice('destinations_of:'.length);
    const person = await run({ method: 'GET', path: `/v1/people/${id}`, params: {} });
    const bank = person['bank_account'] as { bank_code: string; agency: string; account_number: string } | null;
    return { id, params: { document_number: person['document_number'], pix_key: person['pix_key'], bank_account: bank ? `${bank.bank_code}/${bank.agency}/${bank.account_number}` : null } };
  };
  const take: Take = async (kind) => {
    if (kind.startsWith('statement_line_for:')) return lineFor(kind);
    if (kind.startsWith('destinations_of:')) return destinationsOf(kind);
    if (kind === 'approvals') return approvalFor();
    if (kind.startsWith('ref:')) {
      const id = refs[kind];
      if (!id) throw new Error(`coverage-requests: no seeded ${kind}`);
      return { id };
    }
    const [resource, action] = kind.split('+') as [string, string | undefined];
    const id = createdId(await run(await deriveRequest(creatorOf(resource), take, { minimal: true })));
    if (!action) return { id };
    const request = await deriveRequest(actionRoute(resource, action), take, { record: { id } });
    await run(request);
    return { id, params: request.body ?? {} };
  };
  return take;
}

/** Sets the value at a JSON pointer of a (cloned) body. */
export function replaceAt(body: Record<string, unknown>, pointer: string, value: string): Record<string, unknown> {
  const clone = structuredClone(body);
  const keys = pointer.split('/').slice(1);
  let node: Record<string, unknown> = clone;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys[keys.length - 1] as string] = value;
  return clone;
}
