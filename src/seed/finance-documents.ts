/**
 * Deterministic building blocks of the finance demo seed: a seeded PRNG, counter-based ids and
 * valid Brazilian CPF/CNPJ numbers (check digits computed, never random). Validation of
 * documents on input is the people/companies operations' job, not this module's.
 */

/** mulberry32: tiny, fast and good enough for demo data; the same seed gives the same data. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pickInteger(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

export function pickOne<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** Fixed-shape v4-looking UUIDs from a namespace nibble and a counter, so reseeding gives the same ids. */
export function createIdFactory(namespace: number): () => string {
  let counter = 0;
  const prefix = `5eed${namespace.toString(16).padStart(4, '0')}`;
  return () => {
    counter += 1;
    return `${prefix}-0000-4000-8000-${counter.toString(16).padStart(12, '0')}`;
  };
}

/** Mod-11 check digit as used by CPF and CNPJ (remainder < 2 → 0). */
function computeCheckDigit(digits: readonly number[], weights: readonly number[]): number {
  const sum = digits.reduce((acc, digit, i) => acc + digit * (weights[i] as number), 0);
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

function completeCpf(base9: string): string {
  const digits = [...base9].map(Number);
  digits.push(computeCheckDigit(digits, [10, 9, 8, 7, 6, 5, 4, 3, 2]));
  digits.push(computeCheckDigit(digits, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]));
  return digits.join('');
}

function completeCnpj(base12: string): string {
  const digits = [...base12].map(Number);
  digits.push(computeCheckDigit(digits, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]));
  digits.push(computeCheckDigit(digits, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]));
  return digits.join('');
}

/** True when an 11-digit CPF or 14-digit CNPJ carries correct check digits (used by the seed tests). */
export function hasValidCheckDigits(document: string): boolean {
  if (/^\d{11}$/.test(document)) return !/^(\d)\1{10}$/.test(document) && completeCpf(document.slice(0, 9)) === document;
  if (/^\d{14}$/.test(document)) return !/^(\d)\1{13}$/.test(document) && completeCnpj(document.slice(0, 12)) === document;
  return false;
}

function randomDigits(random: () => number, length: number): string {
  let text = '';
  for (let i = 0; i < length; i += 1) text += String(pickInteger(random, 0, 9));
  return text;
}

export function generateCpf(random: () => number): string {
  // A leading non-zero digit avoids all-equal sequences, which CPF rules reject.
  return completeCpf(`${pickInteger(random, 1, 9)}${randomDigits(random, 8)}`);
}

/** Headquarters CNPJ: 8-digit root, branch 0001. */
export function generateCnpj(random: () => number): string {
  return completeCnpj(`${pickInteger(random, 1, 9)}${randomDigits(random, 7)}0001`);
}
