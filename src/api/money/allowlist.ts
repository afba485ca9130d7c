/**
 * The payee allowlist (docs/security.md#payee-allowlist): on the channels a workspace names
 * (`payee_allowlist.required_on`), money moves go only to payment destinations a person approved
 * in Seguridad (`payee_allowlist.*`, REST only).
 *
 *   assertPayeesAllowed(ctx, controls, items): Promise<void>   // SECURITY_BLOCKED naming the destination and why
 *
 * Every current destination of each payee (document number, Pix key, bank account: whatever the
 * move ends up using, src/api/money/destinations.ts) must be on the list for that person with
 * the value it has now; a payee with none is refused too. An item without a payee (a transfer
 * between the workspace's own accounts) is not checked. Called by the money controls before the
 * confirmation (advisory) and in the write's transaction (authoritative), so an edit between the
 * two is seen. Two queries whatever the number of items.
 */
import type { Channel, OperationContext } from '../context.js';
import { ApiError } from '../errors.js';
import { requireWorkspace } from '../records.js';
import type { MoneyControls } from './config.js';
import type { MoneyItem } from './types.js';
import { DESTINATION_NAMES, destinationsOf, type Destination } from './destinations.js';

export type AllowlistRefusal = 'payee_not_allowlisted' | 'payee_has_no_destination';

/** The end of a value, enough to tell two destinations apart and too little to pay one. */
export function valueHint(value: string): string {
  return value.slice(-4);
}

function refusal(channel: Channel, personId: string, reason: AllowlistRefusal, destination: Destination | null): ApiError {
  const lead = `Money moves over ${channel} go only to approved payment destinations`;
  const message = destination
    ? `${lead}, and the payee's ${DESTINATION_NAMES[destination.kind]} is not on the payee allowlist: a person must approve it in Seguridad.`
    : `${lead}, and the payee has no document number, Pix key or bank account to approve.`;
  return new ApiError('SECURITY_BLOCKED', message, {
    channel, action: 'move_money', reason, person_id: personId,
    destination: destination ? { kind: destination.kind, value_hint: valueHint(destination.value) } : null,
  });
}

const entryKey = (personId: string, destination: Destination) => `${personId}\n${destination.kind}\n${destination.value}`;

export async function assertPayeesAllowed(ctx: OperationContext, controls: MoneyControls, items: readonly MoneyItem[]): Promise<void> {
  const { channel } = ctx.caller;
  if (!controls.allowlistChannels.some((c) => c === channel)) return;
  const payees = [...new Set(items.flatMap((item) => (item.payeePersonId === null ? [] : [item.payeePersonId])))];
  if (payees.length === 0) return;
  const workspaceId = requireWorkspace(ctx);
  const people = await ctx.db.selectFrom('people').select(['id', 'document_number', 'pix_key', 'bank_code', 'agency', 'account_number'])
    .where('workspace_id', '=', workspaceId).where('id', 'in', payees).execute();
  const approved = await ctx.db.selectFrom('payee_allowlist').select(['person_id', 'kind', 'value'])
    .where('workspace_id', '=', workspaceId).where('person_id', 'in', payees).execute();
  const onList = new Set(approved.map((row) => entryKey(row.person_id, row)));
  const byId = new Map(people.map((person) => [person.id, person]));
  for (const personId of payees) {
    const person = byId.get(personId);
    const destinations = person ? destinationsOf(person) : [];
    if (destinations.length === 0) throw refusal(channel, personId, 'payee_has_no_destination', null);
    const missing = destinations.find((destination) => !onList.has(entryKey(personId, destination)));
    if (missing) throw refusal(channel, personId, 'payee_not_allowlisted', missing);
  }
}
