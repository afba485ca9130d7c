/** Valid CPF/CNPJ generators for tests (check digits computed, mod 11). */

function checkDigit(digits: readonly number[], weights: readonly number[]): number {
  const sum = digits.reduce((acc, d, i) => acc + d * (weights[i] ?? 0), 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

let counter = 0;

/** A fresh valid CNPJ each call (unique within the test process). */
export function makeCnpj(): string {
  counter += 1;
  const base = `${String(10_000_000 + ((counter * 7919 + process.pid) % 89_999_999)).padStart(8, '0')}0001`.split('').map(Number);
  const first = checkDigit(base, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit([...base, first], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return [...base, first, second].join('');
}

/** A fresh valid CPF each call. */
export function makeCpf(): string {
  counter += 1;
  const base = String(100_000_000 + ((counter * 104_729 + process.pid * 31) % 899_999_999)).padStart(9, '0').split('').map(Number);
  const first = checkDigit(base, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit([...base, first], [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return [...base, first, second].join('');
}

/** The same document with its last check digit off by one. */
export function breakCheckDigit(document: string): string {
  const last = Number(document.at(-1));
  return `${document.slice(0, -1)}${(last + 1) % 10}`;
}
