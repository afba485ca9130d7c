/**
 * Runs money operation handlers directly against a real database, the way execute.ts does
 * (one transaction per write, ana as the caller), for rule tests that do not need HTTP.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../../src/store/schema.js';
import type { Caller, OperationInput, OperationOutput } from '../../../src/api/context.js';
import type { ListAwareContext } from '../../../src/api/list.js';
import { routes } from '../../../generated/registry.gen.js';
import { handlers as payables } from '../../../src/api/operations/payables.js';
import { handlers as receivables } from '../../../src/api/operations/receivables.js';
import { handlers as transactions } from '../../../src/api/operations/transactions.js';
import { handlers as transfers } from '../../../src/api/operations/transfers.js';
import { ApiError } from '../../../src/api/errors.js';
import { DEMO } from '../../../src/seed/ids.js';
import { createDeadline } from '../../../src/runtime/deadline.js';
import { systemClock } from '../../../src/runtime/clock.js';

const ALL = { ...payables, ...receivables, ...transactions, ...transfers };

export const ANA: Caller = {
  personId: DEMO.persons.ana, organizationId: DEMO.organizationId, scopes: new Set(['finance.all.write']), tokenType: 'personal',
  channel: 'api', membership: { status: 'active', isAdmin: true, permissions: new Set(), workspaceIds: [DEMO.workspaces.matriz, DEMO.workspaces.filial], workspaceNames: DEMO.workspaceNames },
};

export interface RunOptions {
  readonly workspaceId?: string;
  readonly now?: Date;
  readonly wrapDb?: (db: Kysely<Database>) => Kysely<Database>;
}

export async function runOperation(db: Kysely<Database>, operationId: string, input: Partial<OperationInput> = {}, options: RunOptions = {}): Promise<OperationOutput> {
  const handler = ALL[operationId];
  if (!handler) throw new Error(`no handler for ${operationId}`);
  const full: OperationInput = { path: {}, query: {}, ...input };
  return db.transaction().execute(async (trx) => {
    // A list reads its vocabulary from the route, generated from the spec, as execute.ts passes it.
    const listSpec = routes.find((r) => r.operation.operationId === operationId)?.list ?? null;
    const ctx: ListAwareContext = {
      caller: ANA, workspaceId: options.workspaceId ?? DEMO.workspaces.matriz,
      db: options.wrapDb ? options.wrapDb(trx) : trx, now: () => options.now ?? new Date(), deadline: createDeadline(systemClock, 10_000), bounds: null, listSpec,
    };
    return handler(ctx, full);
  });
}

/** The ApiError code an operation fails with (or 'ok'). */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
}

export interface Fixtures {
  readonly vendorId: string;
  readonly customerId: string;
  readonly debitCategoryId: string;
  readonly creditCategoryId: string;
  readonly accountId: string;
  readonly otherAccountId: string;
  readonly costCenters: { readonly cost: string; readonly revenue: string; readonly both: string };
}

/** Picks seeded records of a workspace to build requests from. */
export async function loadFixtures(db: Kysely<Database>, workspaceId: string = DEMO.workspaces.matriz): Promise<Fixtures> {
  const people = await db.selectFrom('people').selectAll().where('workspace_id', '=', workspaceId).orderBy('id').execute();
  const categories = await db.selectFrom('categories').selectAll().where('workspace_id', '=', workspaceId).where('level', '=', 3).orderBy('id').execute();
  const accounts = await db.selectFrom('accounts').selectAll().where('workspace_id', '=', workspaceId).orderBy('id').execute();
  const centers = await db.selectFrom('cost_centers').selectAll().where('workspace_id', '=', workspaceId).orderBy('id').execute();
  const pick = <T>(rows: T[], test: (r: T) => boolean): T => {
    const found = rows.find(test);
    if (!found) throw new Error('fixture missing');
    return found;
  };
  return {
    vendorId: pick(people, (p) => p.is_supplier === 1).id,
    customerId: pick(people, (p) => p.is_customer === 1).id,
    debitCategoryId: pick(categories, (c) => c.type === 'debit').id,
    creditCategoryId: pick(categories, (c) => c.type === 'credit').id,
    accountId: (accounts[0] as { id: string }).id,
    otherAccountId: (accounts[1] as { id: string }).id,
    costCenters: {
      cost: pick(centers, (c) => c.type === 'cost').id,
      revenue: pick(centers, (c) => c.type === 'revenue').id,
      both: pick(centers, (c) => c.type === 'both').id,
    },
  };
}
