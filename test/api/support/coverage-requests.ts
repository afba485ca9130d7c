/**
 * One valid REST request per operationId, built from record ids handed out by a `take`
 * function, so the same table drives the success, 429 and cross-workspace coverage tests.
 * What `take` returns (fresh records, another workspace's records, random uuids) is up to the
 * test; this module only knows how to create records and shape requests.
 */
import { randomUUID } from 'node:crypto';
import type { RestApp } from './rest-app.js';
import { makeCnpj } from './documents.js';
import { buildSmallPdf } from '../operations/attachments-fixtures.js';
import { loadFixtures, type Fixtures } from '../rules/support.js';

/** Records a request may need. Path kinds are consumed (deleted, settled…); reference kinds are only named. */
export type RecordKind =
  | 'company' | 'account' | 'category' | 'costCenter' | 'person' | 'tax'
  | 'payable' | 'paidPayable' | 'receivable' | 'paidReceivable' | 'transaction' | 'transfer'
  | 'attachment' | 'linkedAttachment'
  // Seeded records used as body references (never changed by the request).
  | 'refVendor' | 'refCustomer' | 'refDebitCategory' | 'refCreditCategory' | 'refAccount' | 'refOtherAccount'
  | 'refCostCenter' | 'refRevenueCenter' | 'refPayable';

/** A record handed to a request builder; `parentId` is the payable a linked attachment hangs on. */
export interface RecordRef { readonly id: string; readonly parentId?: string }

export type Take = (kind: RecordKind) => Promise<RecordRef>;

export interface CoverageRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: Record<string, unknown>;
  /** Body fields that name records of the workspace: JSON pointer → the kind of record. */
  readonly references?: Readonly<Record<string, RecordKind>>;
}

type Builder = (take: Take) => Promise<CoverageRequest>;

const unique = (prefix: string) => `${prefix} ${randomUUID().slice(0, 8)}`;
const id = async (take: Take, kind: RecordKind) => (await take(kind)).id;

async function titleBody(take: Take, payable: boolean): Promise<{ body: Record<string, unknown>; references: Record<string, RecordKind> }> {
  const references: Record<string, RecordKind> = {
    '/person_id': payable ? 'refVendor' : 'refCustomer',
    '/category_id': payable ? 'refDebitCategory' : 'refCreditCategory',
    '/financial_account_id': 'refAccount',
    '/cost_center_allocations/0/cost_center_id': payable ? 'refCostCenter' : 'refRevenueCenter',
  };
  const body = {
    description: 'Coverage', amount: '100.00', due_date: '2026-03-10',
    person_id: await id(take, references['/person_id'] as RecordKind),
    category_id: await id(take, references['/category_id'] as RecordKind),
    financial_account_id: await id(take, 'refAccount'),
    cost_center_allocations: [{ cost_center_id: await id(take, references['/cost_center_allocations/0/cost_center_id'] as RecordKind), percentage: 100 }],
  };
  return { body, references };
}

async function transactionBody(take: Take): Promise<{ body: Record<string, unknown>; references: Record<string, RecordKind> }> {
  const references: Record<string, RecordKind> = {
    '/financial_account_id': 'refAccount', '/category_id': 'refDebitCategory', '/person_id': 'refVendor',
    '/cost_center_allocations/0/cost_center_id': 'refCostCenter',
  };
  const body = {
    financial_account_id: await id(take, 'refAccount'), type: 'debit', amount: '10.00', occurred_at: '2026-03-09',
    category_id: await id(take, 'refDebitCategory'), person_id: await id(take, 'refVendor'),
    cost_center_allocations: [{ cost_center_id: await id(take, 'refCostCenter'), amount: '10.00' }],
  };
  return { body, references };
}

function buildMasterData(resource: string, kind: RecordKind, create: () => Record<string, unknown>, update: Record<string, unknown>, deletable: boolean): Record<string, Builder> {
  const base = `/v1/${resource}`;
  const table: Record<string, Builder> = {
    [`${resource}.list`]: async () => ({ method: 'GET', path: `${base}?limit=100` }),
    [`${resource}.get`]: async (take) => ({ method: 'GET', path: `${base}/${await id(take, kind)}` }),
    [`${resource}.create`]: async () => ({ method: 'POST', path: base, body: create() }),
    [`${resource}.update`]: async (take) => ({ method: 'PATCH', path: `${base}/${await id(take, kind)}`, body: update }),
  };
  if (deletable) table[`${resource}.delete`] = async (take) => ({ method: 'DELETE', path: `${base}/${await id(take, kind)}` });
  return table;
}

function buildTitles(resource: 'payables' | 'receivables'): Record<string, Builder> {
  const payable = resource === 'payables';
  const kind: RecordKind = payable ? 'payable' : 'receivable';
  const base = `/v1/${resource}`;
  return {
    [`${resource}.list`]: async () => ({ method: 'GET', path: `${base}?limit=100` }),
    [`${resource}.get`]: async (take) => ({ method: 'GET', path: `${base}/${await id(take, kind)}` }),
    [`${resource}.create`]: async (take) => ({ method: 'POST', path: base, ...(await titleBody(take, payable)) }),
    [`${resource}.update`]: async (take) => ({ method: 'PATCH', path: `${base}/${await id(take, kind)}`, ...(await titleBody(take, payable)) }),
    [`${resource}.delete`]: async (take) => ({ method: 'DELETE', path: `${base}/${await id(take, kind)}` }),
    [`${resource}.settle`]: async (take) => ({
      method: 'POST', path: `${base}/${await id(take, kind)}/settle`,
      body: { payment_date: '2026-03-10', financial_account_id: await id(take, 'refAccount') },
      references: { '/financial_account_id': 'refAccount' },
    }),
    [`${resource}.reopen`]: async (take) => ({ method: 'POST', path: `${base}/${await id(take, payable ? 'paidPayable' : 'paidReceivable')}/reopen` }),
    [`${resource}.cancel`]: async (take) => ({ method: 'POST', path: `${base}/${await id(take, kind)}/cancel` }),
  };
}

/** operationId → builder of one valid request. coverage tests fail for any route missing here. */
export const REQUESTS: Readonly<Record<string, Builder>> = {
  'workspaces.list': async () => ({ method: 'GET', path: '/v1/workspaces' }),
  ...buildMasterData('companies', 'company', () => ({ cnpj: makeCnpj(), name: unique('Co') }), { name: 'Renamed' }, false),
  ...buildMasterData('accounts', 'account', () => ({ name: unique('Acc'), type: 'cash' }), { name: unique('Acc') }, true),
  ...buildMasterData('categories', 'category', () => ({ name: unique('Cat'), type: 'debit' }), { name: unique('Cat') }, true),
  ...buildMasterData('cost_centers', 'costCenter', () => ({ name: unique('CC'), type: 'cost' }), { name: unique('CC') }, true),
  ...buildMasterData('people', 'person', () => ({ name: unique('P'), kind: 'juridical' }), { name: unique('P') }, true),
  ...buildMasterData('taxes', 'tax', () => ({ name: unique('Tax'), default_rate: '1' }), { name: unique('Tax') }, true),
  'categories.create': async (take) => ({
    method: 'POST', path: '/v1/categories', body: { name: unique('Sub'), type: 'debit', parent_id: await id(take, 'category') },
    references: { '/parent_id': 'category' },
  }),
  ...buildTitles('payables'),
  ...buildTitles('receivables'),
  'transactions.list': async () => ({ method: 'GET', path: '/v1/transactions?limit=100' }),
  'transactions.get': async (take) => ({ method: 'GET', path: `/v1/transactions/${await id(take, 'transaction')}` }),
  'transactions.create': async (take) => ({ method: 'POST', path: '/v1/transactions', ...(await transactionBody(take)) }),
  'transactions.update': async (take) => ({ method: 'PATCH', path: `/v1/transactions/${await id(take, 'transaction')}`, ...(await transactionBody(take)) }),
  'transactions.delete': async (take) => ({ method: 'DELETE', path: `/v1/transactions/${await id(take, 'transaction')}` }),
  'transfers.create': async (take) => ({
    method: 'POST', path: '/v1/transfers',
    body: { from_account_id: await id(take, 'refAccount'), to_account_id: await id(take, 'refOtherAccount'), amount: '5.00', occurred_at: '2026-03-09' },
    references: { '/from_account_id': 'refAccount', '/to_account_id': 'refOtherAccount' },
  }),
  'transfers.get': async (take) => ({ method: 'GET', path: `/v1/transfers/${await id(take, 'transfer')}` }),
  'attachments.list': async () => ({ method: 'GET', path: '/v1/attachments?limit=100' }),
  'attachments.get': async (take) => ({ method: 'GET', path: `/v1/attachments/${await id(take, 'attachment')}` }),
  'attachments.upload': async () => ({ method: 'POST', path: '/v1/attachments', body: buildUploadBody() }),
  'attachments.download': async (take) => ({ method: 'GET', path: `/v1/attachments/${await id(take, 'attachment')}/download` }),
  'attachments.delete': async (take) => ({ method: 'DELETE', path: `/v1/attachments/${await id(take, 'attachment')}` }),
  'attachments.link': async (take) => ({
    method: 'POST', path: `/v1/attachments/${await id(take, 'attachment')}/links`,
    body: { parent_type: 'payable', parent_id: await id(take, 'refPayable') }, references: { '/parent_id': 'refPayable' },
  }),
  'attachments.unlink': async (take) => {
    const linked = await take('linkedAttachment');
    return { method: 'DELETE', path: `/v1/attachments/${linked.id}/links/payable/${linked.parentId ?? randomUUID()}` };
  },
  'activity.list': async () => ({ method: 'GET', path: '/v1/activity?limit=100' }),
  'security_settings.get': async () => ({ method: 'GET', path: '/v1/security-settings' }),
  'security_settings.update': async () => ({ method: 'PATCH', path: '/v1/security-settings', body: { blocked: { api: [] } } }),
};

export function buildUploadBody(): Record<string, unknown> {
  return { file_name: 'coverage.pdf', content_type: 'application/pdf', content_base64: buildSmallPdf(randomUUID()).toString('base64') };
}

/** `take` that hands out random uuids: requests of the right shape that name nothing. */
export const takeRandom: Take = async (kind) => ({ id: randomUUID(), ...(kind === 'linkedAttachment' ? { parentId: randomUUID() } : {}) });

/** `take` that creates (path kinds) or picks seeded (ref kinds) records in `workspace`, as ana over REST. */
export async function createTaker(api: RestApp, workspace: string): Promise<Take> {
  const fixtures: Fixtures = await loadFixtures(api.app.services.db, workspace);
  const post = async (path: string, body: Record<string, unknown>): Promise<string> => {
    const res = await api.call('POST', path, { workspace, body });
    if (res.status !== 201 && res.status !== 200) throw new Error(`fixture ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  };
  const take: Take = async (kind) => {
    switch (kind) {
      case 'refVendor': return { id: fixtures.vendorId };
      case 'refCustomer': return { id: fixtures.customerId };
      case 'refDebitCategory': return { id: fixtures.debitCategoryId };
      case 'refCreditCategory': return { id: fixtures.creditCategoryId };
      case 'refAccount': return { id: fixtures.accountId };
      case 'refOtherAccount': return { id: fixtures.otherAccountId };
      case 'refCostCenter': return { id: fixtures.costCenters.cost };
      case 'refRevenueCenter': return { id: fixtures.costCenters.revenue };
      case 'refPayable': case 'payable': case 'receivable': case 'paidPayable': case 'paidReceivable': {
        const payable = kind !== 'receivable' && kind !== 'paidReceivable';
        const titleId = await post(payable ? '/v1/payables' : '/v1/receivables', (await titleBody(take, payable)).body);
        if (kind === 'paidPayable' || kind === 'paidReceivable') {
          await post(`/v1/${payable ? 'payables' : 'receivables'}/${titleId}/settle`, { payment_date: '2026-03-10' });
        }
        return { id: titleId };
      }
      case 'company': return { id: await post('/v1/companies', { cnpj: makeCnpj(), name: unique('Co') }) };
      case 'account': return { id: await post('/v1/accounts', { name: unique('Acc'), type: 'cash' }) };
      case 'category': return { id: await post('/v1/categories', { name: unique('Cat'), type: 'debit' }) };
      case 'costCenter': return { id: await post('/v1/cost_centers', { name: unique('CC'), type: 'cost' }) };
      case 'person': return { id: await post('/v1/people', { name: unique('P'), kind: 'juridical' }) };
      case 'tax': return { id: await post('/v1/taxes', { name: unique('Tax'), default_rate: '1' }) };
      case 'transaction': return { id: await post('/v1/transactions', (await transactionBody(take)).body) };
      case 'transfer': return { id: await post('/v1/transfers', { from_account_id: fixtures.accountId, to_account_id: fixtures.otherAccountId, amount: '1.00', occurred_at: '2026-03-09' }) };
      case 'attachment': return { id: await post('/v1/attachments', buildUploadBody()) };
      case 'linkedAttachment': {
        const attachmentId = await post('/v1/attachments', buildUploadBody());
        const parentId = (await take('refPayable')).id;
        await post(`/v1/attachments/${attachmentId}/links`, { parent_type: 'payable', parent_id: parentId });
        return { id: attachmentId, parentId };
      }
    }
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
