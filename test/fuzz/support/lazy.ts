/**
 * A value of a fuzz case computed when the case is sent, not when the case list is built: big
 * files (built once, shared), idempotency keys and names that must differ on every call.
 */
export class Lazy {
  private cached: { value: unknown } | null = null;

  private constructor(private readonly make: () => unknown, private readonly fresh: boolean) {}

  /** Built on first use, then the same value every time (files). */
  static once(make: () => unknown): Lazy {
    return new Lazy(make, false);
  }

  /** Built again on every use (idempotency keys, unique names). */
  static fresh(make: () => unknown): Lazy {
    return new Lazy(make, true);
  }

  get(): unknown {
    if (this.fresh) return this.make();
    this.cached ??= { value: this.make() };
    return this.cached.value;
  }
}

/** Resolves every Lazy inside a JSON-like value (arrays and plain objects). */
export function resolveLazy(value: unknown): unknown {
  if (value instanceof Lazy) return resolveLazy(value.get());
  if (Array.isArray(value)) return value.map(resolveLazy);
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, resolveLazy(inner)]));
  }
  return value;
}
