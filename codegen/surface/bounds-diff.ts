/**
 * Compares the validation bounds of the review copy (review.ts `bounds`) at the paths both sides'
 * argument schemas have. Tightened means a value the base accepted is now refused: a lower bound up
 * (`minLength`, `minItems`, `minProperties`, `minimum`/`exclusiveMinimum`) or new, an upper bound down
 * (`maxLength`, `maxItems`, `maxProperties`, `maximum`/`exclusiveMaximum`, the operation's `max…`) or
 * new, a `pattern` new or changed, a `multipleOf` new or no longer dividing the old one, `uniqueItems`
 * turned on. The same bound made inclusive → exclusive (`minimum: 0` → `exclusiveMinimum: 0`) is
 * tightened too. Anything the other way is widened.
 */
import { change, show, type Change } from './changes.js';
import type { Bounds } from './review.js';
import type { Obj } from './schema-paths.js';

type Direction = 'tightened' | 'widened' | null;

/** A numeric limit: its value and whether the value itself is excluded. */
interface Limit {
  readonly value: number;
  readonly exclusive: boolean;
  readonly said: string;
}

/** The bounds of each place both schemas have (`common`: base path → head path, schema-diff.ts), named by the base's path. */
export function diffBounds(tool: string, before: Bounds, after: Bounds, common: ReadonlyMap<string, string>): Change[] {
  const changes: Change[] = [];
  for (const [path, headPath] of [...common].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const was = (before[path] ?? {}) as Obj;
    const is = (after[headPath] ?? {}) as Obj;
    for (const [direction, detail] of compareBounds(was, is)) {
      changes.push(change(direction === 'tightened' ? 'bound_tightened' : 'bound_widened', tool, path, detail));
    }
  }
  return changes;
}

/** Each bound that differs, with its direction and how it changed (`maxLength 120 → 80`). */
export function compareBounds(was: Obj, is: Obj): Array<[Exclude<Direction, null>, string]> {
  const found: Array<[Exclude<Direction, null>, string]> = [];
  const add = (direction: Direction, detail: string): void => { if (direction !== null) found.push([direction, detail]); };
  for (const side of ['lower', 'upper'] as const) {
    const [from, to] = [rangeLimit(was, side), rangeLimit(is, side)];
    add(compareLimits(from, to, side), `${from?.said ?? `no ${side === 'lower' ? 'minimum' : 'maximum'}`} → ${to?.said ?? 'none'}`);
  }
  const keywords = [...new Set([...Object.keys(was), ...Object.keys(is)])].filter((keyword) => !RANGE_KEYWORDS.has(keyword)).sort();
  for (const keyword of keywords) {
    if (JSON.stringify(was[keyword]) === JSON.stringify(is[keyword])) continue;
    add(compareKeyword(keyword, was[keyword], is[keyword]), `${keyword} ${show(was[keyword] ?? 'none')} → ${show(is[keyword] ?? 'none')}`);
  }
  return found;
}

const RANGE_KEYWORDS: ReadonlySet<string> = new Set(['minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum']);

/** The effective numeric limit of `minimum`/`exclusiveMinimum` (or the maximum pair): the stronger of the two. */
function rangeLimit(bounds: Obj, side: 'lower' | 'upper'): Limit | undefined {
  const [inclusiveKey, exclusiveKey] = side === 'lower' ? ['minimum', 'exclusiveMinimum'] : ['maximum', 'exclusiveMaximum'];
  const candidates: Limit[] = [];
  if (typeof bounds[inclusiveKey] === 'number') candidates.push({ value: bounds[inclusiveKey], exclusive: false, said: `${inclusiveKey} ${bounds[inclusiveKey]}` });
  if (typeof bounds[exclusiveKey] === 'number') candidates.push({ value: bounds[exclusiveKey], exclusive: true, said: `${exclusiveKey} ${bounds[exclusiveKey]}` });
  const stronger = (a: Limit, b: Limit): Limit => (compareLimits(a, b, side) === 'tightened' ? b : a);
  return candidates.reduce<Limit | undefined>((best, limit) => (best === undefined ? limit : stronger(best, limit)), undefined);
}

/** Whether going from `from` to `to` refuses more (tightened) or less (widened); a missing limit is no limit. */
function compareLimits(from: Limit | undefined, to: Limit | undefined, side: 'lower' | 'upper'): Direction {
  if (from === undefined && to === undefined) return null;
  if (from === undefined) return 'tightened';
  if (to === undefined) return 'widened';
  const sign = side === 'lower' ? 1 : -1;
  const moved = Math.sign(to.value - from.value) * sign;
  if (moved !== 0) return moved > 0 ? 'tightened' : 'widened';
  if (from.exclusive === to.exclusive) return null;
  return to.exclusive ? 'tightened' : 'widened';
}

/** Any other bound keyword: a count or length (`min…`/`max…`), `pattern`, `multipleOf`, `uniqueItems`. */
function compareKeyword(keyword: string, was: unknown, is: unknown): Direction {
  if (keyword === 'uniqueItems') return is === true ? 'tightened' : was === true ? 'widened' : null;
  if (was === undefined) return 'tightened';
  if (is === undefined) return 'widened';
  if (keyword === 'multipleOf' && typeof was === 'number' && typeof is === 'number') return dividesEvenly(was, is) ? 'widened' : 'tightened';
  if (typeof was === 'number' && typeof is === 'number' && /^(min|max)/.test(keyword)) {
    const up = is > was;
    return keyword.startsWith('min') === up ? 'tightened' : 'widened';
  }
  return 'tightened';
}

/** `multipleOf` 0.01 → 0.001: every old multiple is still a multiple, so the bound widened. */
function dividesEvenly(multiple: number, divisor: number): boolean {
  const ratio = multiple / divisor;
  return Math.abs(ratio - Math.round(ratio)) < 1e-9;
}
