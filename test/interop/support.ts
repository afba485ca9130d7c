/**
 * Database probes of the interop tests: the pending payables of Matriz (what a filtered list
 * must return), a fresh one to act on, and a payable's status after a tool call.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../src/store/schema.js';
import { DEMO } from '../../src/seed/ids.js';

export async function countPendingPayables(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('titles').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', DEMO.workspaces.matriz).where('kind', '=', 'payable').where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A pending payable of Matriz not in `used` (and adds it there), so each configuration acts on its own record. */
export async function pickPendingPayable(db: Kysely<Database>, used: Set<string>): Promise<string> {
  let query = db.selectFrom('titles').select('id')
    .where('workspace_id', '=', DEMO.workspaces.matriz).where('kind', '=', 'payable').where('status', '=', 'pending')
  if (used.size > 0) query = query.where('id', 'not in', [...used]);
  const row = await query.orderBy('id').limit(1).executeTakeFirstOrThrow();
  used.add(row.id);
  return row.id;
}

export async function readPayableStatus(db: Kysely<Database>, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('titles').select('status')
    .where('workspace_id', '=', DEMO.workspaces.matriz).where('id', '=', id).executeTakeFirst();
  return row?.status;
}

/** The v1 SDK always offers its latest revision; this fetch makes its initialize ask for `version`. */
export function fetchAskingVersion(version: string): typeof fetch {
  return async (input, init) => {
    if (typeof init?.body === 'string' && init.body.includes('"method":"initialize"')) {
      const message = JSON.parse(init.body) as { params: { protocolVersion: string } };
      message.params.protocolVersion = version;
      return fetch(input, { ...init, body: JSON.stringify(message) });
    }
    return fetch(input, init);
  };
}
