/**
 * Calendar dates (`YYYY-MM-DD`, years 0001–9999 as `format: date` allows) as day numbers, so
 * dates are compared and stepped as dates, never as strings: a string past 9999-12-31
 * (`+010000-01-01`) sorts before it, and a loop that compares strings never ends
 * (docs/domain.md#bounded-work). Day 0 is 1970-01-01.
 */
import { Lru } from '../runtime/lru.js';

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The first and the last day a date may be. */
export const FIRST_DAY = dayNumber('0001-01-01');
export const LAST_DAY = dayNumber('9999-12-31');

/** The day number of a real `YYYY-MM-DD`; NaN for anything else (2026-02-30 included). */
export function dayNumber(date: string): number {
  const m = DATE.exec(date);
  if (!m) return Number.NaN;
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms)) return Number.NaN;
  const day = ms / DAY_MS;
  return toDate(day) === date ? day : Number.NaN;
}

/** `YYYY-MM-DD` of a day number within 0001-01-01..9999-12-31. */
export function toDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** Monday = 0 … Sunday = 6. */
export function weekday(day: number): number {
  return (((day + 3) % 7) + 7) % 7;
}

/** The date (`YYYY-MM-DD`) of `instant` in the IANA time zone `tz` (e.g. 22:00 on the 15th in São Paulo is 01:00Z on the 16th). */
export function dateInZone(instant: Date, tz: string): string {
  const parts = dayFormat(tz).formatToParts(instant);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/**
 * One day formatter per zone: building an `Intl.DateTimeFormat` costs about 100 µs, formatting
 * with a built one about 7 µs, and "today" is read on every title get and list
 * (bench/README.md, issue 27). Bounded, though the zones come from validated settings.
 */
const DAY_FORMATS = new Lru<string, Intl.DateTimeFormat>(64);

function dayFormat(tz: string): Intl.DateTimeFormat {
  let format = DAY_FORMATS.get(tz);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' });
    DAY_FORMATS.set(tz, format);
  }
  return format;
}

/** Whether `tz` is an IANA time zone this runtime knows. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
