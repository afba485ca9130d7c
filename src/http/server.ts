/**
 * The HTTP listener and its graceful shutdown (issue 9: SIGTERM stops accepting, lets in-flight
 * requests finish within `SHUTDOWN_GRACE_MS`, then closes pools). Signal handling is `main.ts`'s;
 * this module only knows how to drain one server and close the services behind it. At the end of
 * the grace period every remaining connection is destroyed — a request still sending its body
 * (an upload) is aborted, and the body readers (capped-body.ts, multipart.ts) reject at once.
 * It also gives every request the process's body-memory budget (capped-body.ts).
 */
import http from 'node:http';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createBodyMemory, type BodyMemory } from './capped-body.js';

export type GracefulServer = http.Server & { shutdown(): Promise<void>; readonly bodyMemory: BodyMemory };

/** What the listener and its shutdown need of the services (bootstrap's Services satisfy it; start-up passes its own). */
export interface ShutdownServices {
  readonly config: Pick<Config,
    'maxInflightBodyBytes' | 'httpHeadersTimeoutMs' | 'httpRequestTimeoutMs' | 'httpKeepAliveTimeoutMs' | 'shutdownGraceMs'>;
  readonly logger: Pick<Logger, 'warn'>;
  /** Closes the pools behind the server, once it is drained. */
  close(): Promise<void>;
}

/** After the drain, how long closing the pools may take before the process gives up on them. */
const CLOSE_TIMEOUT_MS = 2_000;

function waitForClose(server: http.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Whether `work` settled within `ms` ('done') or the wait ran out first ('timeout'); the timer never outlives it. */
async function settleWithin(work: Promise<unknown>, ms: number): Promise<'done' | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const over = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([work.then(() => 'done' as const), over]);
  } finally {
    clearTimeout(timer);
  }
}

/** Slow-loris protection: headers must arrive quickly; a whole request (uploads up to 14 MB) gets longer. */
function applyTimeouts(server: http.Server, config: ShutdownServices['config']): void {
  server.headersTimeout = config.httpHeadersTimeoutMs;
  server.requestTimeout = config.httpRequestTimeoutMs;
  server.keepAliveTimeout = config.httpKeepAliveTimeoutMs;
}

/**
 * Tracks every request (its body-memory account, and the responses in flight) and returns the
 * switch that starts the drain. While draining, a finished response must not leave its keep-alive
 * socket open (it would hold `server.close()` until the grace period ends): it answers with
 * `Connection: close`.
 */
function trackRequests(server: http.Server, bodyMemory: BodyMemory): () => void {
  let draining = false;
  const inFlight = new Set<http.ServerResponse>();
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    bodyMemory.track(req, res);
    inFlight.add(res);
    if (draining) res.shouldKeepAlive = false;
    res.once('close', () => inFlight.delete(res));
    res.once('finish', () => {
      if (draining) server.closeIdleConnections();
    });
  });
  return function markDraining() {
    draining = true;
    for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
  };
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function listenGracefully(
  app: Pick<Koa, 'callback'>,
  services: ShutdownServices,
  { port, host }: { port: number; host: string },
): Promise<GracefulServer> {
  const bodyMemory = createBodyMemory(services.config.maxInflightBodyBytes);
  const server = Object.assign(http.createServer(app.callback()), { bodyMemory }) as GracefulServer;
  applyTimeouts(server, services.config);
  const markDraining = trackRequests(server, bodyMemory);
  let stopping: Promise<void> | undefined;
  server.shutdown = () => {
    stopping ??= drainAndClose(server, services, markDraining);
    return stopping;
  };
  await listen(server, port, host);
  return server;
}

async function drainAndClose(server: http.Server, services: ShutdownServices, markDraining: () => void): Promise<void> {
  markDraining();
  const closed = waitForClose(server); // stops accepting now; resolves when every connection ended
  server.closeIdleConnections();
  const { shutdownGraceMs } = services.config;
  if ((await settleWithin(closed, shutdownGraceMs)) === 'timeout') {
    services.logger.warn({ grace_ms: shutdownGraceMs }, 'shutdown grace period over: closing remaining connections');
    server.closeAllConnections();
    await closed;
  }
  // A handler whose connection was cut may still hold a pool client; the pools get a bounded wait.
  if ((await settleWithin(services.close(), CLOSE_TIMEOUT_MS)) === 'timeout') {
    services.logger.warn({ close_timeout_ms: CLOSE_TIMEOUT_MS }, 'shutdown: pools did not close in time');
  }
}
