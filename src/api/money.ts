/**
 * Money on the wire ↔ integer cents. Parses decimal text digit by digit (never float
 * arithmetic, docs/domain.md#money) and formats cents back to two-place strings. Knows nothing
 * about which fields carry money; operations call it per field.
 *
 *   parseMoneyInput(value: unknown, path: string): number         // > 0, ≤ 2 decimals, else VALIDATION_ERROR
 *   parseMoneyInputAllowZero(value: unknown, path: string): number // same, but 0 accepted (interest/discount)
 *   formatCents(cents: number | string | bigint): string           // 123456 → "1234.56", -5 → "-0.05" (pg bigint text ok, any size)
 *   formatMoneyOrNull(cents: number | null | undefined): string | null
 *   MAX_BALANCE_CENTS: bigint                                       // the documented bound of a balance (openapi/v1.yaml, SignedMoney)
 *
 * Bounds: one amount is at most 999,999,999,999.99 (12 integer digits, the wire format), and
 * so is the magnitude of an account's balance (src/api/rules/account-balance.ts refuses a write
 * past it). Both stay far inside Number.MAX_SAFE_INTEGER cents, so the sums of the API never
 * leave exact integer arithmetic; formatCents renders larger (legacy) values exactly anyway.
 */
import { validationError } from './errors.js';

/** 12 integer digits at most (wire format): the largest amount is 999,999,999,999.99. */
const MONEY_TEXT = /^(\d{1,12})(?:\.(\d{1,2}))?$/;
/** The largest |balance| of an account, in cents (the same 12 integer digits as `SignedMoney`). */
export const MAX_BALANCE_CENTS = 99_999_999_999_999n;
/** Integer cents as PostgreSQL returns bigint/numeric sums: text. */
const CENTS_TEXT = /^-?\d+$/;

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

/** Exact integer cents; a number past Number.MAX_SAFE_INTEGER has already lost its value, so it is refused. */
function toBigCents(cents: number | string | bigint): bigint {
  if (typeof cents === 'bigint') return cents;
  if (typeof cents === 'number' && Number.isSafeInteger(cents)) return BigInt(cents);
  // PostgreSQL returns bigint and sums as text, of any size.
  if (typeof cents === 'string' && CENTS_TEXT.test(cents)) return BigInt(cents);
  throw new Error('formatCents expects an integer number of cents');
}

export function formatCents(cents: number | string | bigint): string {
  const value = toBigCents(cents);
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  const fraction = String(abs % 100n).padStart(2, '0');
  return `${sign}${abs / 100n}.${fraction}`;
}

export function formatMoneyOrNull(cents: number | string | bigint | null | undefined): string | null {
  return cents === null || cents === undefined ? null : formatCents(cents);
}
