/**
 * The small value checks every layer needs, in one home (src/runtime imports nothing, so any
 * folder may use them without a cycle).
 */

/** A JSON object: not null, not an array. Its keys may still be anything; read them as unknown. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * `target[key] = value` as an own property whatever the key: assigning to `__proto__` (a legal JSON
 * key, and a legal property name in a schema) would set the prototype instead.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in its canonical 8-4-4-4-12 hex form (either case). */
export function isUuid(text: unknown): text is string {
  return typeof text === 'string' && UUID.test(text);
}

/**
 * Freezes `value` and every object below it (stopping at objects already frozen), and returns it:
 * the generated operations share their schemas (generated/definitions/schemas.gen.ts), and frozen
 * none can be changed through one of them — a write throws instead of changing every other.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const member of Object.values(value)) deepFreeze(member);
  return value;
}
