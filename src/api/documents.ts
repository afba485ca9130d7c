/**
 * Brazilian taxpayer documents: CPF (11 digits) and CNPJ (14 digits) check digits (mod 11).
 * Pure functions; which field carries which document, and the error raised, is the
 * operation's business (people.ts, companies.ts).
 *
 *   normalizeDocument(text: string): string        // strips `.`, `-`, `/` and spaces
 *   isValidCpf(digits: string): boolean
 *   isValidCnpj(digits: string): boolean
 */

export function normalizeDocument(text: string): string {
  return text.replace(/[.\-/\s]/g, '');
}

function computeCheckDigit(digits: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += Number(digits[i]) * (weights[i] ?? 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

/** Repeated digits (000…, 111…) pass the arithmetic but are not issued documents. */
function isRepeated(digits: string): boolean {
  return /^(\d)\1*$/.test(digits);
}

export function isValidCpf(digits: string): boolean {
  if (!/^\d{11}$/.test(digits) || isRepeated(digits)) return false;
  const first = computeCheckDigit(digits, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = computeCheckDigit(digits, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return first === Number(digits[9]) && second === Number(digits[10]);
}

const CNPJ_FIRST = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_SECOND = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

export function isValidCnpj(digits: string): boolean {
  if (!/^\d{14}$/.test(digits) || isRepeated(digits)) return false;
  const first = computeCheckDigit(digits, CNPJ_FIRST);
  const second = computeCheckDigit(digits, CNPJ_SECOND);
  return first === Number(digits[12]) && second === Number(digits[13]);
}
