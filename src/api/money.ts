/**
 * Money on the wire ↔ integer cents. Parses decimal text digit by digit (never float
 * arithmetic, DOMAIN.md "Money") and formats cents back to two-place strings. Knows nothing
 * about which fields carry money; operations call it per field.
 *
 *   parseMoneyInput(value: unknown, path: string): number         // > 0, ≤ 2 decimals, else VALIDATION_ERROR
 *   parseMoneyInputAllowZero(value: unknown, path: string): number // same, but 0 accepted (interest/discount)
 *   formatCents(cents: number | string | bigint): string           // 123456 → "1234.56", -5 → "-0.05" (pg bigint text ok)
 *   formatMoneyOrNull(cents: number | null | undefined): string | null
 */
import { validationError } from './errors.js';

/** 12 integer digits at most (PLAN wire format), so cents stay far inside Number.MAX_SAFE_INTEGER. */
const MONEY_TEXT = /^(\d{1,12})(?:\.(\d{1,2}))?$/;

function rejectMoney(path: string, message: string): never {
  throw validationError([{ path, message }]);
}

function parseMoneyText(value: unknown, path: string): number {
  let text: string;
  if (typeof value === 'string') {
    text = value.trim();
  } else if (typeof value === 'number') {
    // String(n) gives the shortest round-trip decimal text; exponents (1e21, 1e-7) are rejected below.
    if (!Number.isFinite(value)) rejectMoney(path, 'must be a finite amount');
    text = String(value);
  } else {
    rejectMoney(path, 'must be a decimal string or a number');
  }
  const match = MONEY_TEXT.exec(text);
  if (!match) rejectMoney(path, 'must be an amount with at most 12 integer digits and 2 decimal places');
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? '').padEnd(2, '0'));
  return whole * 100 + fraction;
}

export function parseMoneyInput(value: unknown, path: string): number {
  const cents = parseMoneyText(value, path);
  if (cents <= 0) rejectMoney(path, 'must be greater than zero');
  return cents;
}

export function parseMoneyInputAllowZero(value: unknown, path: string): number {
  return parseMoneyText(value, path);
}

export function formatCents(cents: number | string | bigint): string {
  // PostgreSQL returns bigint sums as text; coerce before checking.
  const value = Number(cents);
  if (!Number.isSafeInteger(value)) throw new Error('formatCents expects an integer number of cents');
  const sign = value < 0 ? '-' : '';
  const abs = Math.abs(value);
  const whole = Math.floor(abs / 100);
  const fraction = String(abs % 100).padStart(2, '0');
  return `${sign}${whole}.${fraction}`;
}

export function formatMoneyOrNull(cents: number | string | bigint | null | undefined): string | null {
  return cents === null || cents === undefined ? null : formatCents(cents);
}
