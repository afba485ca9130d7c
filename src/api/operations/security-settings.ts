/**
 * security_settings.get/update: the Seguridad tab (REST only, `x-mcp.exclude`; permission
 * security.view/security.manage, the explicit `finance.security*` scopes no OAuth token carries).
 * Stores which actions are blocked per channel and the money controls (spending limits, payee
 * allowlist, approvals: src/api/money/config.ts); enforcing them is seguridad.ts's and
 * src/api/money/'s job, called by execute.ts for every other operation. Every change is in the
 * activity log with what changed, old → new (docs/security.md#money-controls).
 */
import { PostgresAdapter, sql } from 'kysely';
import type { OperationContext, OperationHandler } from '../context.js';
import { recordActivity } from '../audit.js';
import { NOTHING_BLOCKED, parseBlocked, SEGURIDAD_ACTIONS, SEGURIDAD_CHANNELS, type BlockedActions, type SeguridadAction } from '../seguridad.js';
import { NO_MONEY_CONTROLS, parseStoredControls, readControlsInput, toControlsJson, toStoredControls } from '../money/config.js';
import { readBody, requireWorkspace } from '../records.js';
import { ApiError } from '../errors.js';
import type { MoneyControls } from '../money/config.js';
import { defineOperations } from '../define-operations.js';

interface SettingsRow { blocked: string; money_controls: string | null; updated_at: string; updated_by: string; version: number }

/** Never-saved settings read as the defaults: nothing blocked, no money controls, as of the workspace's creation, version 1. */
async function toSettingsJson(ctx: OperationContext, row: SettingsRow | undefined): Promise<Record<string, unknown>> {
  if (row) {
    return {
      blocked: parseBlocked(row.blocked), money_controls: toControlsJson(parseStoredControls(row.money_controls)),
      updated_at: row.updated_at, updated_by: row.updated_by, version: Number(row.version),
    };
  }
  const workspace = await ctx.db.selectFrom('workspaces').select('created_at').where('id', '=', requireWorkspace(ctx)).executeTakeFirst();
  return {
    blocked: NOTHING_BLOCKED, money_controls: toControlsJson(NO_MONEY_CONTROLS),
    updated_at: workspace?.created_at ?? ctx.now().toISOString(), updated_by: null, version: 1,
  };
}

async function loadSettings(ctx: OperationContext): Promise<SettingsRow | undefined> {
  return ctx.db.selectFrom('security_settings').select(['blocked', 'money_controls', 'updated_at', 'updated_by', 'version'])
    .where('workspace_id', '=', requireWorkspace(ctx)).executeTakeFirst();
}

/** `{blocked: {api?: [...], mcp?: [...]}}`: a channel present replaces its list, absent keeps it. */
function mergeBlocked(current: BlockedActions, patch: unknown): BlockedActions {
  const source = (typeof patch === 'object' && patch !== null ? patch : {}) as Record<string, unknown>;
  const next: Record<string, readonly SeguridadAction[]> = { ...current };
  for (const channel of SEGURIDAD_CHANNELS) {
    const list = source[channel];
    if (Array.isArray(list)) next[channel] = SEGURIDAD_ACTIONS.filter((a) => list.includes(a));
  }
  return next as BlockedActions;
}

interface Change { readonly field: string; readonly old: unknown; readonly new: unknown }

/** What changed, per top-level part (`blocked.mcp`, `money_controls.limits`, …), old → new, for the activity log. */
function listChanges(before: Record<string, unknown>, after: Record<string, unknown>, prefix: string): Change[] {
  return Object.keys(after).flatMap((key) => {
    const [was, is] = [before[key], after[key]];
    return JSON.stringify(was) === JSON.stringify(is) ? [] : [{ field: `${prefix}.${key}`, old: was ?? null, new: is }];
  });
}

/** A limit made for one member names a member of the workspace's organization (an unknown id would limit nobody, silently). */
async function assertLimitMembers(ctx: OperationContext, controls: MoneyControls): Promise<void> {
  const members = [...new Set(controls.limits.flatMap((limit) => (limit.madeBy === null ? [] : [limit.madeBy])))];
  if (members.length === 0) return;
  const found = await ctx.db.selectFrom('memberships').select('person_id')
    .where('organization_id', '=', ctx.caller.organizationId).where('person_id', 'in', members).execute();
  const known = new Set(found.map((row) => row.person_id));
  if (members.some((id) => !known.has(id))) {
    throw new ApiError('UNPROCESSABLE_ENTITY', 'A spending limit\'s made_by names no member of the organization.');
  }
}

const getSettings: OperationHandler = async (ctx) => ({
  body: await toSettingsJson(ctx, await loadSettings(ctx)),
});

/**
 * One update of a workspace's settings at a time, across replicas, until the transaction ends:
 * each reads what the previous one wrote, so none is lost, versions follow one another and every
 * activity entry's `old` is what it replaced. Taken before the row is read because the first
 * update inserts it (a row lock would have nothing to lock). SQLite has one write transaction at a time.
 */
async function serialiseUpdates(ctx: OperationContext, workspaceId: string): Promise<void> {
  if (!(ctx.db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${`security-settings:${workspaceId}`}, 0))`.execute(ctx.db);
}

const updateSettings: OperationHandler = async (ctx, input) => {
  const workspaceId = requireWorkspace(ctx);
  await serialiseUpdates(ctx, workspaceId);
  const current = await loadSettings(ctx);
  const body = readBody(input.body);
  const blockedBefore = current ? parseBlocked(current.blocked) : NOTHING_BLOCKED;
  const controlsBefore = parseStoredControls(current?.money_controls);
  const blocked = body['blocked'] === undefined ? blockedBefore : mergeBlocked(blockedBefore, body['blocked']);
  const controls = body['money_controls'] === undefined ? controlsBefore : readControlsInput(body['money_controls'], controlsBefore);
  if (controls !== controlsBefore) await assertLimitMembers(ctx, controls);
  const changes = [
    ...listChanges(blockedBefore, blocked, 'blocked'),
    ...listChanges(toControlsJson(controlsBefore), toControlsJson(controls), 'money_controls'),
  ];
  const values = {
    blocked: JSON.stringify(blocked),
    money_controls: toStoredControls(controls),
    updated_at: ctx.now().toISOString(),
    updated_by: ctx.caller.personId,
  };
  if (current) {
    await ctx.db.updateTable('security_settings').set({ ...values, version: Number(current.version) + 1 })
      .where('workspace_id', '=', workspaceId).execute();
  } else {
    // The defaults count as version 1, so the first saved change is version 2.
    await ctx.db.insertInto('security_settings').values({ workspace_id: workspaceId, ...values, version: 2 }).execute();
  }
  await recordActivity(ctx, { operation: 'security_settings.update', resource: 'security_settings', recordId: null, details: { changes } });
  return { body: await toSettingsJson(ctx, await loadSettings(ctx)) };
};

export const handlers = defineOperations({
  'security_settings.get': getSettings,
  'security_settings.update': updateSettings,
});
