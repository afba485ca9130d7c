/**
 * Small mocha helpers shared by the suites.
 *
 *   skipWithReason(this, 'DATABASE_URL is unset; …')   // mocha's skip() takes no reason: it goes into the title
 */
import type { Context } from 'mocha';

/** Skips the running test (or hook's test) with its reason appended to the reported title. */
export function skipWithReason(ctx: Context, reason: string): never {
  const runnable = ctx.currentTest ?? ctx.test;
  if (runnable) runnable.title += ` (skipped: ${reason})`;
  return ctx.skip();
}
