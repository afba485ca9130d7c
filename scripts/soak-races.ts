/**
 * Soak run of the title race matrix (test/api/support/race-matrix.ts): passes over every pair of
 * state-changing title operations, in parallel over REST, until the time is up; then prints the
 * number of races and of invariant violations and exits 1 on any violation. The database is the
 * test suite's: SQLite in memory, or a fresh PostgreSQL database when DATABASE_URL is set.
 *
 *   npm run soak:races -- [--minutes 10] [--copies 3]
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run soak:races -- --minutes 10
 */
import { parseArgs } from 'node:util';
import { startRestApp } from '../test/api/support/rest-app.js';
import { runRaceMatrix } from '../test/api/support/race-matrix.js';
import { dropRunDatabase } from '../test/helpers/database.js';

function readPositive(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { minutes: { type: 'string' }, copies: { type: 'string' } } });
  const minutes = readPositive(values.minutes, 10, 'minutes');
  const copies = Math.floor(readPositive(values.copies, 3, 'copies'));
  const dialect = process.env.DATABASE_URL ? 'postgres' : 'sqlite';
  const deadline = Date.now() + minutes * 60_000;
  const startedAt = Date.now();
  const api = await startRestApp();
  let races = 0;
  let passes = 0;
  const violations: string[] = [];
  try {
    do {
      const report = await runRaceMatrix(api, { copies, pass: passes });
      passes += 1;
      races += report.races;
      violations.push(...report.violations);
      for (const v of report.violations) console.log(`VIOLATION ${v}`);
      console.log(`pass ${passes}: ${races} races, ${violations.length} violations, ${Math.round((Date.now() - startedAt) / 1000)} s`);
    } while (Date.now() < deadline);
  } finally {
    await api.close();
    await dropRunDatabase();
  }
  const seconds = Math.round((Date.now() - startedAt) / 1000);
  console.log(`soak-races ${dialect}: ${passes} passes, ${races} races (${copies}+${copies} parallel calls each), ${violations.length} violations in ${seconds} s`);
  return violations.length === 0 ? 0 : 1;
}

main().then((code) => { process.exitCode = code; }, (err: unknown) => {
  console.error(err);
  process.exitCode = 2;
});
