/**
 * Seguridad (the workspace's security settings): which action an operation is, and whether
 * the workspace blocks it on the caller's channel. Reading/updating the settings as a
 * resource is `operations/security-settings.ts`'s business.
 *
 *   deriveAction(op: OperationRef): SeguridadAction | null   // null for reads (readOnly: GETs and previews)
 *   loadBlockedActions(db, workspaceId): Promise<BlockedActions>
 *   assertNotBlocked(db, workspaceId, channel, op): Promise<void>  // SECURITY_BLOCKED {channel, action}
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { OperationRef } from '../runtime/types.js';
import type { Channel } from './context.js';
import { ApiError } from './errors.js';

export const SEGURIDAD_ACTIONS = ['create', 'update', 'delete', 'move_money', 'upload'] as const;
export type SeguridadAction = (typeof SEGURIDAD_ACTIONS)[number];
/** Only API and MCP calls can be blocked; the panel (`web`) is where a person unblocks them. */
export const SEGURIDAD_CHANNELS = ['api', 'mcp'] as const;
export type SeguridadChannel = (typeof SEGURIDAD_CHANNELS)[number];
export type BlockedActions = Readonly<Record<SeguridadChannel, readonly SeguridadAction[]>>;

export const NOTHING_BLOCKED: BlockedActions = { api: [], mcp: [] };

export function deriveAction(op: OperationRef): SeguridadAction | null {
  if (op.readOnly) return null; // a GET, or an operation that changes nothing (a preview)
  if (op.movesMoney) return 'move_money';
  const action = op.operationId.slice(op.operationId.lastIndexOf('.') + 1);
  if (action === 'upload') return 'upload';
  if (action === 'create') return 'create';
  // unlink is a DELETE but changes a link, not a record (cancel, link and unlink are updates; docs/security.md#check-order-and-error-catalogue, Seguridad).
  if (op.method === 'DELETE' && action !== 'unlink') return 'delete';
  return 'update';
}

/** Parses the stored JSON defensively: unknown channels/actions are ignored, not trusted. */
export function parseBlocked(text: string | null | undefined): BlockedActions {
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    return NOTHING_BLOCKED;
  }
  const source = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const pick = (channel: SeguridadChannel): SeguridadAction[] => {
    const list = source[channel];
    if (!Array.isArray(list)) return [];
    return SEGURIDAD_ACTIONS.filter((a) => list.includes(a));
  };
  return { api: pick('api'), mcp: pick('mcp') };
}

async function loadBlockedActions(db: Kysely<Database>, workspaceId: string): Promise<BlockedActions> {
  const row = await db.selectFrom('security_settings').select('blocked').where('workspace_id', '=', workspaceId).executeTakeFirst();
  return parseBlocked(row?.blocked);
}

export async function assertNotBlocked(db: Kysely<Database>, workspaceId: string, channel: Channel, op: OperationRef): Promise<void> {
  const action = deriveAction(op);
  // A download link only reads (src/api/audit.ts refuses its writes); reads are never blocked.
  if (action === null || channel === 'web' || channel === 'link') return;
  const blocked = await loadBlockedActions(db, workspaceId);
  if (blocked[channel].includes(action)) {
    throw new ApiError('SECURITY_BLOCKED', 'The workspace security settings block this action on this channel.', { channel, action });
  }
}
