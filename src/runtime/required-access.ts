/**
 * The resources a caller must reach for a call to run at all (docs/security.md#resources-touched):
 * those the operation changes, and — for an operation that changes something — those it shows too.
 * Its request names the records it shows (a reconciliation's items): leaving them out of its answer
 * would not be enough, since resolving them, its errors and its success would still tell whether
 * they exist and what they hold. An operation that changes nothing (a read, a rule's preview) leaves
 * records of a kind the caller may not read out instead (src/api/authorize.ts findOmittedKinds).
 * One rule for the server (src/api/authorize.ts) and the generator's review copy (codegen/surface/review.ts).
 */
import type { OperationRef, ResourceAccess } from './types.js';

export function requiredAccess(op: OperationRef): readonly ResourceAccess[] {
  return op.changes.length === 0 ? op.changes : [...op.changes, ...op.shows];
}
