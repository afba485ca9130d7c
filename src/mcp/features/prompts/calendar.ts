/**
 * Calendar arithmetic for prompt arguments and their completions: `YYYY-MM` months and ISO
 * 8601 `YYYY-Www` weeks, in UTC, as plain strings. Pure functions. A prompt's "today" is its
 * workspace's date (provider.ts), given here as midnight UTC of that date; a completion, which
 * may know no workspace yet, suggests around the UTC date.
 */

const MONTH_PATTERN = /^(\d{4})-(0[1-9]|1[0-2])$/;
const WEEK_PATTERN = /^(\d{4})-W(0[1-9]|[1-4]\d|5[0-3])$/;
export const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

const DAY_MS = 86_400_000;

export function formatDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * DAY_MS);
}

/** Midnight UTC of the given instant's date. */
export function startOfUtcDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

/** First and last day of a `YYYY-MM` month. */
export function readMonthRange(month: string): { first: string; last: string } | null {
  const match = MONTH_PATTERN.exec(month);
  if (!match) return null;
  const year = Number(match[1]);
  const index = Number(match[2]) - 1;
  return { first: formatDate(new Date(Date.UTC(year, index, 1))), last: formatDate(new Date(Date.UTC(year, index + 1, 0))) };
}

function formatMonth(date: Date): string {
  return date.toISOString().slice(0, 7);
}

/** `count` months around `today`: `before` months back through `after` months ahead, oldest first. */
export function listMonths(today: Date, before: number, after: number): string[] {
  const months: string[] = [];
  for (let offset = -before; offset <= after; offset++) {
    months.push(formatMonth(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + offset, 1))));
  }
  return months;
}

/** ISO 8601 week of a date: weeks start on Monday; week 1 holds the year's first Thursday. */
export function formatIsoWeek(date: Date): string {
  const day = startOfUtcDay(date);
  const weekday = (day.getUTCDay() + 6) % 7; // Monday = 0
  const thursday = addDays(day, 3 - weekday);
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** Monday and Sunday of an ISO week; null when the string is not a week of that year. */
export function readWeekRange(week: string): { monday: string; sunday: string } | null {
  const match = WEEK_PATTERN.exec(week);
  if (!match) return null;
  const year = Number(match[1]);
  const number = Number(match[2]);
  const jan4 = new Date(Date.UTC(year, 0, 4));
  const mondayOfWeek1 = addDays(jan4, -((jan4.getUTCDay() + 6) % 7));
  const monday = addDays(mondayOfWeek1, (number - 1) * 7);
  // Week 53 exists only in long years: the round trip must give the same week back.
  if (formatIsoWeek(monday) !== week) return null;
  return { monday: formatDate(monday), sunday: formatDate(addDays(monday, 6)) };
}

/** ISO weeks from `before` weeks back through `after` weeks ahead of `today`, oldest first. */
export function listWeeks(today: Date, before: number, after: number): string[] {
  const weeks: string[] = [];
  for (let offset = -before; offset <= after; offset++) weeks.push(formatIsoWeek(addDays(today, offset * 7)));
  return weeks;
}
