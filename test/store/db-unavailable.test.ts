/**
 * Which failures count as "the database cannot answer right now" (→ 503 + Retry-After, and
 * what start-up waits out), and that a real PostgreSQL pool reports an unreachable server as
 * one: a port where nothing listens needs no server, so this runs on every dialect.
 */
import { expect } from 'chai';
import { sql } from 'kysely';
import { databaseFailureKind, databaseOutageReason, isDatabaseUnavailable, isDiskFull } from '../../src/store/db-unavailable.js';
import { openDatabase } from '../../src/store/db.js';
import { buildTestConfig } from '../helpers/index.js';
import { freePort } from '../helpers/ports.js';

function withCode(code: string, message = 'x'): Error {
  return Object.assign(new Error(message), { code });
}

describe('isDatabaseUnavailable(error)', () => {
  const unavailable: Array<[string, unknown]> = [
    ['admin_shutdown (pg_terminate_backend, restart)', withCode('57P01')],
    ['crash_shutdown', withCode('57P02')],
    ['cannot_connect_now (starting up, failover)', withCode('57P03')],
    ['a connection exception (class 08)', withCode('08006')],
    ['statement_timeout (query_canceled)', withCode('57014')],
    ['too_many_connections', withCode('53300')],
    ['a deadlock (rolled back: safe to retry)', withCode('40P01')],
    ['a serialization failure (rolled back: safe to retry)', withCode('40001')],
    ['lock_not_available', withCode('55P03')],
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a reset connection', withCode('ECONNRESET')],
    ['a refused dual-stack connection', new AggregateError([withCode('ECONNREFUSED')], 'connect failed')],
    ['the pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['the client connect timeout', new Error('Connection terminated due to connection timeout')],
    ['a terminated connection', new Error('Connection terminated unexpectedly')],
    ['the client read timeout', new Error('Query read timeout')],
    ['a client that lost its connection', new Error('Client has encountered a connection error and is not queryable')],
    ['SQLite busy past busy_timeout', withCode('SQLITE_BUSY')],
    ['a named statement whose plan a migration invalidated', withCode('0A000', 'cached plan must not change result type')],
    ['an outage wrapped as a cause', new Error('wrapped', { cause: withCode('57P01') })],
    ['SQLite out of space', withCode('SQLITE_FULL', 'database or disk is full')],
    ['PostgreSQL disk_full', withCode('53100', 'could not extend file: No space left on device')],
    ['a Node write without space', withCode('ENOSPC')],
  ];
  for (const [name, error] of unavailable) {
    it(`is true for ${name}`, () => {
      expect(isDatabaseUnavailable(error)).to.equal(true);
    });
  }

  const other: Array<[string, unknown]> = [
    ['a unique violation', withCode('23505')],
    ['a syntax error', withCode('42601')],
    ['bad credentials (a configuration error, not an outage)', withCode('28P01')],
    ['an unknown database', withCode('3D000')],
    ['any other feature_not_supported', withCode('0A000', 'FOR UPDATE is not allowed with aggregate functions')],
    ['a SQLite constraint', withCode('SQLITE_CONSTRAINT_FOREIGNKEY')],
    ['the failed ROLLBACK of a transaction SQLite already rolled back', withCode('SQLITE_ERROR', 'cannot rollback - no transaction is active')],
    ['insufficient_resources (the class code itself)', withCode('53000')],
    ['out_of_memory (may fail the same statement every time)', withCode('53200')],
    ['configuration_limit_exceeded (an operator setting, not a passing state)', withCode('53400')],
    ['a programming error', new TypeError('x is not a function')],
    ['a non-error', 'Connection terminated'],
    ['nothing', undefined],
  ];
  for (const [name, error] of other) {
    it(`is false for ${name}`, () => {
      expect(isDatabaseUnavailable(error)).to.equal(false);
    });
  }

  it('tells a full disk (reason disk_full) from every other outage (reason database)', () => {
    for (const error of [withCode('SQLITE_FULL'), withCode('53100'), withCode('ENOSPC'), new Error('wrapped', { cause: withCode('53100') })]) {
      expect(isDiskFull(error)).to.equal(true);
      expect(databaseOutageReason(error)).to.equal('disk_full');
    }
    for (const error of [withCode('57P01'), withCode('SQLITE_BUSY'), withCode('53300'), withCode('ECONNREFUSED')]) {
      expect(isDiskFull(error)).to.equal(false);
      expect(databaseOutageReason(error)).to.equal('database');
    }
    expect(databaseFailureKind(withCode('SQLITE_FULL', 'database or disk is full'))).to.equal('SQLITE_FULL');
    expect(databaseFailureKind(withCode('53100', 'could not extend file "base/1/2": No space left on device'))).to.equal('53100');
  });

  it('names the kind for logs without the message', () => {
    expect(databaseFailureKind(withCode('57P01', 'terminating connection due to administrator command'))).to.equal('57P01');
    expect(databaseFailureKind(new Error('Query read timeout'))).to.equal('read_timeout');
    expect(databaseFailureKind(new TypeError('boom'))).to.equal('unknown');
  });

  it('is true for what a real PostgreSQL pool raises when nothing listens at DATABASE_URL', async () => {
    const port = await freePort(); // released again: nothing listens there
    const store = await openDatabase(buildTestConfig({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/none`, databaseConnectTimeoutMs: 1_000 }));
    try {
      const failure = await sql`select 1`.execute(store.db).then(() => null, (err: unknown) => err);
      expect(failure).to.be.instanceOf(Error);
      expect(isDatabaseUnavailable(failure), String(failure)).to.equal(true);
    } finally {
      await store.close();
    }
  });
});
