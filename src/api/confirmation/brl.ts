/**
 * Brazilian real amounts for people (`R$ 1.234,56`) from integer cents: dot thousands, comma
 * decimals, digit by digit (never floats or `Intl`, whose output varies with the ICU build).
 * Wire formats (`"1234.56"`) belong to src/api/money.ts.
 */

/** 123456 → `R$ 1.234,56`; 1 → `R$ 0,01`; -500 → `-R$ 5,00`. */
export function formatBrl(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new Error('formatBrl expects an integer number of cents');
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  const fraction = String(abs % 100).padStart(2, '0');
  return `${sign}R$ ${whole},${fraction}`;
}
