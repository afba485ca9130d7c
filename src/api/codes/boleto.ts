/**
 * Boleto codes → what they say (issue 30, item 1): a bank boleto's linha digitável (47 digits),
 * an arrecadação linha digitável (48 digits) or either kind's barcode (44 digits), as a person or
 * an agent types or pastes it, decoded and every check digit verified. Pure: no I/O, no clock —
 * the reference date that places the due-date factor in its cycle is passed in.
 *
 *   decodeBoleto(input: unknown, path: string, referenceDate: string): DecodedBoleto
 *   dueDateFromFactor(factor: number, referenceDate: string): string | null
 *
 * Refusals are `VALIDATION_ERROR` (validationError), one issue per failed check at the caller's
 * `path`, each message naming the check ('field 2 check digit does not match', 'the general check
 * digit does not match', …) and never echoing the input.
 *
 * Written by hand, after reading the three validators on npm (their sources, versions below):
 *  - boleto-brasileiro-validator 1.0.5 answers only true/false and, by default, checks a bank line
 *    by rebuilding the barcode and testing the general digit alone: a wrong field check digit
 *    passes unless a second argument asks for the field checks (README, "Observação").
 *  - @mrmgomes/boleto-utils 1.3.3 checks the three field digits of a bank line but not its general
 *    digit (validarCodigoComDV copies field 4), nor the general digit of an arrecadação line; it
 *    pads 36/46-digit input with zeros, returns amounts as floats and two due dates (one per cycle)
 *    for the caller to choose, and depends on moment-timezone.
 *  - @brazilian-utils/brazilian-utils 2.4.0 (isValidBoleto, getBoletoInfo) checks every digit of a
 *    bank line, but takes no 44-digit bank barcode, strips every non-digit (letters included), says
 *    only `null` for a bad code (not which check failed), returns no barcode for a bank boleto, gives
 *    a reference value's 11 digits as an amount in cents too (beside a flag), and builds due dates
 *    as local-time `Date`s (the day depends on the server's time zone).
 * None gives the identity (the barcode), the check that failed, and a stable date for a pinned
 * reference date; this module is small enough to own.
 *
 * Sources (the layouts, not the libraries):
 *  - Banco Central, Carta-Circular nº 2.926 (2000), as the banks' boleto specifications reproduce it
 *    (e.g. Banco do Brasil, "Especificações Técnicas para Confecção de Boleto de Cobrança"): the
 *    bank barcode and linha digitável layouts, modulo 10 for the field digits, modulo 11 (weights 2–9, results 0, 10, 11 → 1) for the general digit,
 *    the due-date factor (days since 1997-10-07) and currency code 9 = real.
 *  - FEBRABAN, "Layout Padrão de Arrecadação/Recebimento com Utilização do Código de Barras"
 *    (versions 4 to 8): the arrecadação barcode, its segments, the value identifier choosing
 *    modulo 10 or 11, and the 4 × (11 + 1) linha digitável.
 *  - FEBRABAN's 2025 reset of the due-date factor (factor 1000 again on 2025-02-22; Comunicado
 *    FB-009/2023, as reproduced in the banks' cobrança manuals, e.g. Bradesco's "Layout da Cobrança":
 *    21/02/2025 = 9999, 22/02/2025 = 1000). See dueDateFromFactor for the rule that reads it.
 */
import { validationError, type ValidationIssue } from '../errors.js';
import { dayNumber, LAST_DAY, toDate } from '../dates.js';

// ---------------------------------------------------------------------------------------------
// Results

/** A bank boleto (boleto de cobrança, Ficha de Compensação). */
export interface BankBoleto {
  readonly kind: 'bank';
  /** The 44-digit barcode: the identity of the payment (duplicate detection). */
  readonly barcode: string;
  /** The 47-digit linha digitável, digits only. */
  readonly digitable_line: string;
  /** The bank's COMPE code, 3 digits ('001', '237', …). */
  readonly bank_code: string;
  /** Always '9' (real): any other currency code is refused. */
  readonly currency_code: '9';
  /** The 4-digit due-date factor as printed ('0000' = no due date). */
  readonly due_date_factor: string;
  /** `YYYY-MM-DD`, or null for factor 0000. */
  readonly due_date: string | null;
  /** Integer cents, or null when the amount is 0 (amount not fixed on the boleto). */
  readonly amount_cents: number | null;
  /** Barcode positions 20–44: the bank's free field (campo livre). */
  readonly free_field: string;
}

/** The segment digit of an arrecadação code (FEBRABAN arrecadação layout, "Identificação do Segmento"). */
export type UtilitySegmentName =
  | 'prefeituras'
  | 'saneamento'
  | 'energia_e_gas'
  | 'telecomunicacoes'
  | 'orgaos_governamentais'
  | 'carnes_e_assemelhados'
  | 'multas_de_transito'
  | 'uso_exclusivo_do_banco';

/** A boleto de arrecadação (utilities, taxes, fines: codes starting with 8). */
export interface UtilityBoleto {
  readonly kind: 'utility';
  /** The 44-digit barcode: the identity of the payment (duplicate detection). */
  readonly barcode: string;
  /** The 48-digit linha digitável, digits only. */
  readonly digitable_line: string;
  /** The segment digit (1–7 or 9). */
  readonly segment: number;
  readonly segment_name: UtilitySegmentName;
  /** '6'/'8' = the 11 digits are the effective amount; '7'/'9' = a reference value (amount null). */
  readonly value_type: 'effective' | 'reference';
  /** The modulo of every check digit of this code, told by the value identifier. */
  readonly check_modulo: 10 | 11;
  /** Integer cents when the value is effective, else null. */
  readonly amount_cents: number | null;
  /** The company/agency identification: 4 digits, or 8 (the CNPJ root) for segment 6. */
  readonly company_id: string;
  /** What follows the company identification up to position 44 (the company's free field). */
  readonly free_field: string;
}

export type DecodedBoleto = BankBoleto | UtilityBoleto;

// ---------------------------------------------------------------------------------------------
// Check digits

/**
 * Modulo 10 (both layouts): weights 2, 1, 2, 1, … from the rightmost digit, the digits of each
 * product summed (12 → 1 + 2), check digit = 10 − (sum mod 10), 10 → 0.
 */
function modulo10(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    const product = (digits.charCodeAt(digits.length - 1 - i) - 48) * (i % 2 === 0 ? 2 : 1);
    sum += product > 9 ? product - 9 : product;
  }
  return (10 - (sum % 10)) % 10;
}

/** Σ digit × weight, weights 2, 3, …, 9, 2, 3, … from the rightmost digit, mod 11. */
function weightedRemainder11(digits: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    sum += (digits.charCodeAt(i) - 48) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  return sum % 11;
}

/** Bank general digit (Carta-Circular 2.926): 11 − remainder; 0, 10 and 11 become 1 (the digit is never 0). */
function bankModulo11(digits: string): number {
  const dv = 11 - weightedRemainder11(digits);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}

/** Arrecadação modulo 11 (FEBRABAN arrecadação layout): remainder 0 or 1 → 0, remainder 10 → 1, else 11 − remainder. */
function utilityModulo11(digits: string): number {
  const remainder = weightedRemainder11(digits);
  return remainder === 0 || remainder === 1 ? 0 : 11 - remainder;
}

// ---------------------------------------------------------------------------------------------
// Due-date factor

/** Day number of the factor's base date, 1997-10-07 (factor 0001 = 1997-10-08). */
const FACTOR_BASE_DAY = dayNumber('1997-10-07');
/** Factors 1000–9999 repeat every 9000 days: 9999 = 2025-02-21, then 1000 = 2025-02-22 (the reset). */
const FACTOR_CYCLE_DAYS = 9000;
/** The smallest factor of a cycle after the first (the first cycle also had 0001–0999). */
const FACTOR_CYCLE_START = 1000;

/**
 * The due date (`YYYY-MM-DD`) a 4-digit factor names, seen from `referenceDate` (`YYYY-MM-DD`, the
 * caller's today); null for factor 0 (no due date).
 *
 * The rule: a factor f names the days base + f + 9000·k (base 1997-10-07; k = 0 is the first
 * cycle, k = 1 starts with f = 1000 on 2025-02-22, and so on; f < 1000 exists only in the first
 * cycle). Of these, the one nearest to `referenceDate` is taken; at exactly 4500 days on either
 * side (the only tie) the later one. Equivalently: every factor is read within the 9000-day window
 * [reference − 4500 days, reference + 4499 days], the one window in which each factor names
 * exactly one day. FEBRABAN's reset notice fixes the new cycle's start but publishes no reading
 * window (the @brazilian-utils library documents its own −3000/+5500 days as a heuristic, with a
 * 500-day gap it fills by nearest); the nearest-date rule is that idea without the gap, symmetric
 * and stable for a pinned reference date. A date past 9999-12-31 is never answered (the earlier
 * candidate is).
 */
export function dueDateFromFactor(factor: number, referenceDate: string): string | null {
  if (!Number.isInteger(factor) || factor < 0 || factor > 9999) throw new RangeError('a due-date factor has 4 digits');
  const reference = dayNumber(referenceDate);
  if (Number.isNaN(reference)) throw new RangeError('the reference date must be a YYYY-MM-DD date');
  if (factor === 0) return null;
  const firstCycleDay = FACTOR_BASE_DAY + factor;
  if (factor < FACTOR_CYCLE_START) return toDate(firstCycleDay);
  // k = round((reference − first) / 9000), halves up (the tie goes to the later date), k ≥ 0.
  let cycle = Math.max(0, Math.floor((reference - firstCycleDay + FACTOR_CYCLE_DAYS / 2) / FACTOR_CYCLE_DAYS));
  while (cycle > 0 && firstCycleDay + cycle * FACTOR_CYCLE_DAYS > LAST_DAY) cycle--;
  return toDate(firstCycleDay + cycle * FACTOR_CYCLE_DAYS);
}

// ---------------------------------------------------------------------------------------------
// Layouts (positions 0-based, end exclusive, as String.slice takes them)

/**
 * Bank linha digitável (Carta-Circular 2.926): field 1 = barcode 0–4 (bank, currency) + 19–24 +
 * DV; field 2 = barcode 24–34 + DV; field 3 = barcode 34–44 + DV; field 4 = the general digit
 * (barcode 4); field 5 = barcode 5–19 (factor, amount). `line` is where the field's digits sit in
 * the 47-digit line, `check` the position of its modulo-10 digit.
 */
const BANK_FIELDS: readonly { readonly field: number; readonly line: readonly [number, number]; readonly check: number }[] = [
  { field: 1, line: [0, 9], check: 9 },
  { field: 2, line: [10, 20], check: 20 },
  { field: 3, line: [21, 31], check: 31 },
];
/** Barcode pieces in linha order: [barcode start, barcode end] for fields 1, 2, 3, 4, 5 (check digits left out). */
const BANK_LINE_FROM_BARCODE: readonly (readonly [number, number])[] = [[0, 4], [19, 24], [24, 34], [34, 44], [4, 5], [5, 19]];
/** Barcode from a bank line: [line start, line end] in barcode order. */
const BANK_BARCODE_FROM_LINE: readonly (readonly [number, number])[] = [[0, 4], [32, 33], [33, 47], [4, 9], [10, 20], [21, 31]];
/** Bank barcode: 0–3 bank, 3 currency, 4 general digit, 5–9 factor, 9–19 amount, 19–44 free field. */
const BANK_GENERAL_DIGIT = 4;

/** Arrecadação barcode: 0 '8', 1 segment, 2 value identifier, 3 general digit, 4–15 value, 15– company. */
const UTILITY_GENERAL_DIGIT = 3;
/** The arrecadação line is the barcode in 4 blocks of 11 digits, each followed by its check digit. */
const UTILITY_BLOCKS = 4;
const UTILITY_BLOCK_DIGITS = 11;

/** Value identifier (3rd digit): modulo of every check digit, and whether the value is money. */
const UTILITY_VALUE_IDS: Readonly<Record<string, { readonly modulo: 10 | 11; readonly type: 'effective' | 'reference' }>> = {
  '6': { modulo: 10, type: 'effective' },
  '7': { modulo: 10, type: 'reference' },
  '8': { modulo: 11, type: 'effective' },
  '9': { modulo: 11, type: 'reference' },
};

/**
 * Segments (2nd digit), FEBRABAN arrecadação layout. `companyDigits`: the company/agency
 * identification after the value — 4 digits (positions 16–19), but for segment 6 the first 8
 * digits of the CNPJ (positions 16–23). 0 and 8 are not defined and are refused.
 */
const UTILITY_SEGMENTS: Readonly<Record<string, { readonly name: UtilitySegmentName; readonly companyDigits: 4 | 8 }>> = {
  '1': { name: 'prefeituras', companyDigits: 4 },
  '2': { name: 'saneamento', companyDigits: 4 },
  '3': { name: 'energia_e_gas', companyDigits: 4 },
  '4': { name: 'telecomunicacoes', companyDigits: 4 },
  '5': { name: 'orgaos_governamentais', companyDigits: 4 },
  '6': { name: 'carnes_e_assemelhados', companyDigits: 8 },
  '7': { name: 'multas_de_transito', companyDigits: 4 },
  '9': { name: 'uso_exclusivo_do_banco', companyDigits: 4 },
};
const UTILITY_VALUE_START = 4;
const UTILITY_VALUE_END = 15;

// ---------------------------------------------------------------------------------------------
// Decoding

/** What a person or an agent may type besides digits: spaces, dots and hyphens (the printed masks). */
const TYPED_CODE = /^[0-9 .-]*$/;
const SEPARATORS = /[ .-]/g;

function pick(source: string, pieces: readonly (readonly [number, number])[]): string {
  let out = '';
  for (const [start, end] of pieces) out += source.slice(start, end);
  return out;
}

function refuse(path: string, ...messages: string[]): never {
  const issues: ValidationIssue[] = messages.map((message) => ({ path, message }));
  throw validationError(issues);
}

/**
 * Decodes a boleto code (see the header). `path` names the field in the refusal; `referenceDate`
 * (`YYYY-MM-DD`, the caller's today from its clock) places the due-date factor in its cycle.
 */
export function decodeBoleto(input: unknown, path: string, referenceDate: string): DecodedBoleto {
  if (typeof input !== 'string') refuse(path, 'must be a string');
  if (!TYPED_CODE.test(input)) refuse(path, 'may contain only digits, spaces, dots and hyphens');
  const digits = input.replace(SEPARATORS, '');
  switch (digits.length) {
    case 47:
      return decodeBankLine(digits, path, referenceDate);
    case 48:
      if (digits[0] !== '8') refuse(path, 'a 48-digit line is an arrecadação line and must start with 8');
      return decodeUtility(utilityBarcodeFromLine(digits), digits, path);
    case 44:
      // The product digit: 8 = arrecadação (FEBRABAN arrecadação layout, position 1); else a bank code.
      return digits[0] === '8' ? decodeUtility(digits, null, path) : decodeBank(digits, null, path, referenceDate);
    default:
      return refuse(path, 'must have 44, 47 or 48 digits');
  }
}

function decodeBankLine(line: string, path: string, referenceDate: string): BankBoleto {
  const failed: string[] = [];
  for (const { field, line: [start, end], check } of BANK_FIELDS) {
    if (modulo10(line.slice(start, end)) !== line.charCodeAt(check) - 48) failed.push(`field ${field} check digit does not match`);
  }
  return decodeBank(pick(line, BANK_BARCODE_FROM_LINE), line, path, referenceDate, failed);
}

function decodeBank(barcode: string, line: string | null, path: string, referenceDate: string, failed: string[] = []): BankBoleto {
  const general = bankModulo11(barcode.slice(0, BANK_GENERAL_DIGIT) + barcode.slice(BANK_GENERAL_DIGIT + 1));
  if (general !== barcode.charCodeAt(BANK_GENERAL_DIGIT) - 48) failed.push('the general check digit does not match');
  if (failed.length > 0) refuse(path, ...failed);
  // Currency code (barcode position 4): 9 = real, the only currency whose amount is cents of a real.
  if (barcode[3] !== '9') refuse(path, 'the currency code must be 9 (real)');
  const factor = barcode.slice(5, 9);
  const amount = Number(barcode.slice(9, 19));
  return {
    kind: 'bank',
    barcode,
    digitable_line: line ?? bankLineFromBarcode(barcode),
    bank_code: barcode.slice(0, 3),
    currency_code: '9',
    due_date_factor: factor,
    due_date: dueDateFromFactor(Number(factor), referenceDate),
    // An amount of zero: the boleto leaves the amount to be filled in (not a boleto of R$ 0,00).
    amount_cents: amount === 0 ? null : amount,
    free_field: barcode.slice(19, 44),
  };
}

function bankLineFromBarcode(barcode: string): string {
  const [f1, f2, f3, f4, general, f5] = BANK_LINE_FROM_BARCODE.map(([start, end]) => barcode.slice(start, end)) as [string, string, string, string, string, string];
  const field1 = f1 + f2;
  return `${field1}${modulo10(field1)}${f3}${modulo10(f3)}${f4}${modulo10(f4)}${general}${f5}`;
}

function utilityBarcodeFromLine(line: string): string {
  let barcode = '';
  for (let block = 0; block < UTILITY_BLOCKS; block++) {
    const start = block * (UTILITY_BLOCK_DIGITS + 1);
    barcode += line.slice(start, start + UTILITY_BLOCK_DIGITS);
  }
  return barcode;
}

function decodeUtility(barcode: string, line: string | null, path: string): UtilityBoleto {
  const valueId = UTILITY_VALUE_IDS[barcode[2] ?? ''];
  if (!valueId) refuse(path, 'the value identifier (3rd digit) must be 6, 7, 8 or 9');
  const checkDigit = valueId.modulo === 10 ? modulo10 : utilityModulo11;
  const failed: string[] = [];
  if (line !== null) {
    for (let block = 0; block < UTILITY_BLOCKS; block++) {
      const start = block * (UTILITY_BLOCK_DIGITS + 1);
      const end = start + UTILITY_BLOCK_DIGITS;
      if (checkDigit(line.slice(start, end)) !== line.charCodeAt(end) - 48) failed.push(`block ${block + 1} check digit does not match`);
    }
  }
  const general = checkDigit(barcode.slice(0, UTILITY_GENERAL_DIGIT) + barcode.slice(UTILITY_GENERAL_DIGIT + 1));
  if (general !== barcode.charCodeAt(UTILITY_GENERAL_DIGIT) - 48) failed.push('the general check digit does not match');
  if (failed.length > 0) refuse(path, ...failed);
  const segment = UTILITY_SEGMENTS[barcode[1] ?? ''];
  if (!segment) refuse(path, 'the segment (2nd digit) must be 1 to 7 or 9');
  const companyEnd = UTILITY_VALUE_END + segment.companyDigits;
  return {
    kind: 'utility',
    barcode,
    digitable_line: line ?? utilityLineFromBarcode(barcode, checkDigit),
    segment: Number(barcode[1]),
    segment_name: segment.name,
    value_type: valueId.type,
    check_modulo: valueId.modulo,
    amount_cents: valueId.type === 'effective' ? Number(barcode.slice(UTILITY_VALUE_START, UTILITY_VALUE_END)) : null,
    company_id: barcode.slice(UTILITY_VALUE_END, companyEnd),
    free_field: barcode.slice(companyEnd),
  };
}

function utilityLineFromBarcode(barcode: string, checkDigit: (digits: string) => number): string {
  let line = '';
  for (let block = 0; block < UTILITY_BLOCKS; block++) {
    const digits = barcode.slice(block * UTILITY_BLOCK_DIGITS, (block + 1) * UTILITY_BLOCK_DIGITS);
    line += digits + String(checkDigit(digits));
  }
  return line;
}
