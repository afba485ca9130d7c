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
import type { Services } from '../bootstrap.js';
import { createBodyMemory, type BodyMemory } from './capped-body.js';

export type GracefulServer = http.Server & { shutdown(): Promise<void>; readonly bodyMemory: BodyMemory };

export type ShutdownServices = Pick<Services, 'config' | 'logger' | 'close'>;

/** After the drain, how long closing the pools may take before the process gives up on them. */
const CLOSE_TIMEOUT_MS = 2_000;

function waitForClose(server: http.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

export async function listenGracefully(
  app: Pick<Koa, 'callback'>,
  services: ShutdownServices,
  { port, host }: { port: number; host: string },
): Promise<GracefulServer> {
  const { config } = services;
  const bodyMemory = createBodyMemory(config.maxInflightBodyBytes);
  const server = Object.assign(http.createServer(app.callback()), { bodyMemory }) as GracefulServer;
  // Slow-loris protection: headers must arrive quickly; a whole request (uploads up to 14 MB) gets longer.
  server.headersTimeout = config.httpHeadersTimeoutMs;
  server.requestTimeout = config.httpRequestTimeoutMs;
  server.keepAliveTimeout = config.httpKeepAliveTimeoutMs;

  // While draining, a finished response must not leave its keep-alive socket open (it would
  // hold `server.close()` until the grace period ends): answer with `Connection: close`.
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

  let stopping: Promise<void> | undefined;
  server.shutdown = () => {
    stopping ??= drainAndClose(server, services, () => {
      draining = true;
      for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
    });
    return stopping;
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

async function drainAndClose(server: http.Server, services: ShutdownServices, markDraining: () => void): Promise<void> {
  markDraining();
  const closed = waitForClose(server); // stops accepting now; resolves when every connection ended
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), services.config.shutdownGraceMs);
  });
  const outcome = await Promise.race([closed.then(() => 'drained' as const), graceOver]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    services.logger.warn({ grace_ms: services.config.shutdownGraceMs }, 'shutdown grace period over: closing remaining connections');
    server.closeAllConnections();
    await closed;
  }
  // A handler whose connection was cut may still hold a pool client; the pools get a bounded wait.
  const servicesClosed = services.close();
  const closeOver = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), CLOSE_TIMEOUT_MS);
  });
  const closing = await Promise.race([servicesClosed.then(() => 'closed' as const), closeOver]);
  clearTimeout(timer);
  if (closing === 'timeout') services.logger.warn({ close_timeout_ms: CLOSE_TIMEOUT_MS }, 'shutdown: pools did not close in time');
}
