/**
 * "Can this replica write again?" after a write failed for lack of space
 * (docs/operations.md#database-outages). db.ts notes every statement that fails with a
 * disk-full kind (SQLITE_FULL, 53100, ENOSPC: db-unavailable.ts); while one has been noted
 * since the last successful probe, `/readyz` asks `check()`, which inserts one row into
 * `write_probes` (migration 0009) and then deletes the table's rows, at most once per
 * `WRITE_PROBE_INTERVAL_MS` of the injected clock. A replica taken out of rotation gets no
 * writes of its own, so without the probe it could never notice that space came back.
 *
 * The row carries `WRITE_PROBE_PAYLOAD_BYTES` of random bytes (sixteen SQLite pages,
 * incompressible) and is committed before it is deleted, so its pages are really written: a
 * row inserted and deleted in one transaction never reaches SQLite's WAL, and a small write
 * fits the room a failed larger one left there — both succeeded on a really full tmpfs
 * (docs/testing.md#a-full-disk). A write larger than the probe may still fail after it
 * succeeded: that failure is noted like any other, and the replica stays ready only while the
 * probes succeed (it still takes writes of the probe's size). `write_probes` is no finance table:
 * no `workspace_id`, and no row between probes (the delete also takes a row an interrupted
 * probe left). Logs name the failure's kind only.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../runtime/clock.js';
import { databaseFailureKind, isDiskFull } from './db-unavailable.js';
import type { Database } from './schema.js';

/** At most one probe per this many milliseconds (docs/operations.md#database-outages). */
export const WRITE_PROBE_INTERVAL_MS = 5_000;

/** Sixteen 4 KiB SQLite pages: the probe row needs overflow pages of its own. */
const WRITE_PROBE_PAYLOAD_BYTES = 64 * 1024;

export type WriteReadiness = 'ok' | 'disk_full';

export interface WriteProbe {
  /** `ok` unless a write failed for lack of space since the last successful probe; may run the probe. */
  check(): Promise<WriteReadiness>;
}

type ProbeLogger = { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };

/** Disk-full failures seen per database, counted up only (a probe clears the ones it saw). */
const spaceFailures = new WeakMap<Kysely<Database>, number>();

/** Called by db.ts for every failed statement of `db` (Kysely's log hook); counts the disk-full ones. */
export function noteStatementFailure(db: Kysely<Database>, error: unknown): void {
  if (isDiskFull(error)) spaceFailures.set(db, (spaceFailures.get(db) ?? 0) + 1);
}

export function createWriteProbe(db: Kysely<Database>, clock: Clock, logger?: ProbeLogger): WriteProbe {
  /** The failure count the last successful probe saw: failures after it are still unanswered. */
  let cleared = 0;
  let lastProbeAt: number | null = null;
  let running: Promise<WriteReadiness> | null = null;

  async function probe(seen: number): Promise<WriteReadiness> {
    lastProbeAt = clock.now();
    try {
      await db.insertInto('write_probes').values({ id: randomUUID(), payload: randomBytes(WRITE_PROBE_PAYLOAD_BYTES) }).execute();
      await db.deleteFrom('write_probes').execute();
    } catch (err) {
      logger?.warn({ db_error: databaseFailureKind(err) }, 'write probe failed: not ready');
      return 'disk_full';
    }
    cleared = seen;
    logger?.info({}, 'write probe succeeded: writes are possible again');
    return 'ok';
  }

  return {
    check() {
      const seen = spaceFailures.get(db) ?? 0;
      if (seen <= cleared) return Promise.resolve('ok');
      if (running !== null) return running;
      if (lastProbeAt !== null && clock.now() - lastProbeAt < WRITE_PROBE_INTERVAL_MS) return Promise.resolve('disk_full');
      running = probe(seen).finally(() => {
        running = null;
      });
      return running;
    },
  };
}
