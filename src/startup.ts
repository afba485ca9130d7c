/**
 * Start-up of one process, shared by `main.ts` and the tests: listen at once, then build the
 * services, waiting out a database that is not reachable yet with bounded exponential backoff
 * (one warn line per attempt). Until the services are built the listener answers as
 * `http/starting.ts` says (`/healthz` 200, `/readyz` 503, the rest 503 + `Retry-After`), so an
 * orchestrator keeps the replica out of rotation instead of restarting it; then the same
 * listener serves the app. A failure that is not an outage (bad credentials, unknown database,
 * a migration error), or no database within `databaseStartupTimeoutMs`, rejects `ready`.
 */
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createServices, type Services } from './bootstrap.js';
import { createApp } from './app.js';
import { listenGracefully, type GracefulServer } from './http/server.js';
import { createStartingApp } from './starting-app.js';
import { databaseFailureKind, isDatabaseUnavailable } from './store/db-unavailable.js';

const FIRST_RETRY_DELAY_MS = 250;
const MAX_RETRY_DELAY_MS = 5_000;

export interface StartedServer {
  readonly server: GracefulServer;
  /** The services once they serve; rejects when start-up failed, or was stopped by `server.shutdown()`. */
  readonly ready: Promise<Services>;
}

export type BuildServices = (config: Config, logger: Logger) => Promise<Services>;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** Builds the services, retrying while the database is unreachable, up to the configured wait. */
async function buildServicesWhenDatabaseIsUp(
  config: Config,
  logger: Logger,
  signal: AbortSignal,
  build: BuildServices = createServices,
): Promise<Services> {
  // A real wait for a real database, not a window of the application: monotonic time, never the services' clock.
  const deadline = performance.now() + config.databaseStartupTimeoutMs;
  let delay = FIRST_RETRY_DELAY_MS;
  for (let attempt = 1; ; attempt += 1) {
    let failure: unknown;
    try {
      const services = await build(config, logger);
      if (!signal.aborted) return services;
      await services.close();
      throw signal.reason;
    } catch (err) {
      if (signal.aborted || !isDatabaseUnavailable(err)) throw err;
      failure = err;
    }
    const kind = databaseFailureKind(failure);
    const remaining = deadline - performance.now();
    if (remaining <= 0) {
      throw new Error(`the database was not reachable within DATABASE_STARTUP_TIMEOUT_MS (${config.databaseStartupTimeoutMs} ms; last failure: ${kind})`);
    }
    const wait = Math.min(delay, remaining);
    logger.warn({ attempt, db_error: kind, retry_in_ms: wait }, 'database unreachable at start-up; retrying');
    await sleep(wait, signal);
    delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS);
  }
}

export async function startServer(config: Config, logger: Logger, build: BuildServices = createServices): Promise<StartedServer> {
  let serve: ReturnType<Koa['callback']> = createStartingApp().callback();
  let services: Services | undefined;
  const stopping = new AbortController();
  let ready: Promise<Services> | undefined;
  const server = await listenGracefully({ callback: () => (req, res) => serve(req, res) }, {
    config,
    logger,
    async close() {
      stopping.abort(new Error('start-up stopped by shutdown'));
      await ready?.catch(() => undefined);
      await services?.close();
    },
  }, { port: config.port, host: config.host });
  ready = buildServicesWhenDatabaseIsUp(config, logger, stopping.signal, build).then((built) => {
    services = built;
    serve = createApp(built).callback();
    return built;
  });
  return { server, ready };
}
