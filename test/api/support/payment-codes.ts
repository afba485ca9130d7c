/**
 * Boleto codes for the tests that record bills from their codes (payables.create_from_code):
 * the reference implementation test/api/codes/boleto.test.ts builds its codes with (array
 * weights, independent of src/api/codes/boleto.ts), and `freshBoleto()`: a valid bank boleto no
 * other call has made (random amount and free field), so requests derived for the generic suites
 * never collide on a payment's identity.
 */
import { randomInt } from 'node:crypto';

/** Check digits and layouts written from the FEBRABAN rules with array weights, independent of src/api/codes/boleto.ts. */
export const boletoReference = {
  digits(s: string): number[] {
    return [...s].map(Number);
  },
  /** Modulo 10: from the right, weights 2,1,2,1…; two-digit products count as the sum of their digits. */
  mod10(s: string): number {
    const total = boletoReference.digits(s).reverse().map((d, i) => d * [2, 1][i % 2]!).map((p) => Math.floor(p / 10) + (p % 10)).reduce((a, b) => a + b, 0);
    const r = total % 10;
    return r === 0 ? 0 : 10 - r;
  },
  remainder11(s: string): number {
    const weights = [2, 3, 4, 5, 6, 7, 8, 9];
    return boletoReference.digits(s).reverse().reduce((acc, d, i) => acc + d * weights[i % 8]!, 0) % 11;
  },
  /** Bank general digit: 11 − remainder, with 0, 10 and 11 written as 1. */
  bankDv(s: string): number {
    const v = 11 - boletoReference.remainder11(s);
    return [0, 10, 11].includes(v) ? 1 : v;
  },
  /** Arrecadação modulo 11: remainders 0 and 1 give 0, 10 gives 1. */
  utilityDv11(s: string): number {
    const r = boletoReference.remainder11(s);
    return r <= 1 ? 0 : 11 - r;
  },
  /** Days since 1997-10-07, restarting at 1000 on 2025-02-22 (the factor a bank prints for a due date). */
  factorFor(date: string): string {
    const day = Date.UTC(+date.slice(0, 4), +date.slice(5, 7) - 1, +date.slice(8, 10)) / 86_400_000;
    const reset = Date.UTC(2025, 1, 22) / 86_400_000;
    const f = day >= reset ? 1000 + ((day - reset) % 9000) : day - Date.UTC(1997, 9, 7) / 86_400_000;
    return String(f).padStart(4, '0');
  },
  /** A bank barcode with its general digit. */
  bankBarcode(p: { bank: string; currency?: string; factor: string; amount: number; free: string }): string {
    const body = p.bank + (p.currency ?? '9') + p.factor + String(p.amount).padStart(10, '0') + p.free;
    return body.slice(0, 4) + String(boletoReference.bankDv(body)) + body.slice(4);
  },
  /** The linha of a bank barcode: three fields with modulo-10 digits, the general digit, factor + amount. */
  bankLine(b: string): string {
    const f1 = b.slice(0, 4) + b.slice(19, 24);
    const f2 = b.slice(24, 34);
    const f3 = b.slice(34, 44);
    return `${f1}${boletoReference.mod10(f1)}${f2}${boletoReference.mod10(f2)}${f3}${boletoReference.mod10(f3)}${b[4]}${b.slice(5, 19)}`;
  },
  /** An arrecadação barcode with its general digit (modulo told by the value identifier). */
  utilityBarcode(p: { segment: string; valueId: string; value: string; rest: string }): string {
    const body = '8' + p.segment + p.valueId + p.value + p.rest;
    const dv = ['6', '7'].includes(p.valueId) ? boletoReference.mod10(body) : boletoReference.utilityDv11(body);
    return body.slice(0, 3) + String(dv) + body.slice(3);
  },
  utilityLine(b: string): string {
    const modulo = ['6', '7'].includes(b[2]!) ? boletoReference.mod10 : boletoReference.utilityDv11;
    return [0, 11, 22, 33].map((i) => b.slice(i, i + 11)).map((block) => block + String(modulo(block))).join('');
  },
};

let sequence = 0;

/** A valid bank boleto (linha and barcode) no other call of this process has made: Banco do Brasil, due `dueDate`, a random amount. */
export function freshBoleto(dueDate = '2026-03-10', amountCents = randomInt(100, 10_000_000)): { barcode: string; line: string; amountCents: number } {
  // 25 digits: a counter and 18 random ones (so neither a rerun nor a parallel process repeats it).
  const free = String(++sequence % 1e7).padStart(7, '0') + String(randomInt(0, 1e9)).padStart(9, '0') + String(randomInt(0, 1e9)).padStart(9, '0');
  const barcode = boletoReference.bankBarcode({ bank: '001', factor: boletoReference.factorFor(dueDate), amount: amountCents, free });
  return { barcode, line: boletoReference.bankLine(barcode), amountCents };
}
