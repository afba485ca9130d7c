/**
 * What a tool may do and who may call it: its classification (from the annotations `tools/list`
 * shows, so a base without a review copy is compared too), and from the review copies whether it
 * moves money, its scopes, its permission, its confirmation kind and its toolsets. A tool that
 * became destructive, started moving money, stopped being read-only (or idempotent: a retry may
 * now act twice), needs a scope or a permission it did not (its own or that of a resource it must
 * reach: the review copy holds every one a call requires), or left a toolset (a `?toolsets=` view
 * no longer shows it) is breaking.
 */
import { change, type Change, type ChangeKind } from './changes.js';
import type { SurfaceTool } from './surface.js';

/** [annotation, kind when it turns on, kind when it turns off]. */
const HINTS = [
  ['destructiveHint', 'became_destructive', 'no_longer_destructive'],
  ['readOnlyHint', 'became_read_only', 'no_longer_read_only'],
  ['idempotentHint', 'became_idempotent', 'no_longer_idempotent'],
] as const satisfies ReadonlyArray<readonly [string, ChangeKind, ChangeKind]>;

export function diffSafety(name: string, before: SurfaceTool, after: SurfaceTool): Change[] {
  const changes: Change[] = [];
  for (const [hint, turnedOn, turnedOff] of HINTS) {
    const [was, is] = [before.listed.annotations?.[hint] === true, after.listed.annotations?.[hint] === true];
    if (was !== is) changes.push(change(is ? turnedOn : turnedOff, name, '', `${hint} ${was} → ${is}`));
  }
  const [from, to] = [before.review, after.review];
  if (from === null || to === null) return changes;
  if (from.movesMoney !== to.movesMoney) changes.push(change(to.movesMoney ? 'moves_money' : 'no_longer_moves_money', name, '', `movesMoney ${from.movesMoney} → ${to.movesMoney}`));
  for (const scope of to.scopes.filter((each) => !from.scopes.includes(each))) changes.push(change('scope_added', name, '', scope));
  for (const scope of from.scopes.filter((each) => !to.scopes.includes(each))) changes.push(change('scope_removed', name, '', scope));
  for (const permission of to.permissions.filter((each) => !from.permissions.includes(each))) changes.push(change('permission_added', name, '', permission));
  for (const permission of from.permissions.filter((each) => !to.permissions.includes(each))) changes.push(change('permission_removed', name, '', permission));
  if (from.confirmation !== null && to.confirmation !== null && from.confirmation !== to.confirmation) {
    changes.push(change('confirmation_changed', name, '', `${from.confirmation} → ${to.confirmation}`));
  }
  for (const toolset of from.toolsets.filter((each) => !to.toolsets.includes(each))) changes.push(change('left_toolset', name, '', toolset));
  for (const toolset of to.toolsets.filter((each) => !from.toolsets.includes(each))) changes.push(change('joined_toolset', name, '', toolset));
  return changes;
}
