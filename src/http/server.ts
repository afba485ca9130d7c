/**
 * The HTTP listener and its graceful shutdown (issue 9: SIGTERM stops accepting, lets in-flight
 * requests finish within `SHUTDOWN_GRACE_MS`, then closes pools). Signal handling is `main.ts`'s;
 * this module only knows how to drain one server and close the services behind it.
 */
import http from 'node:http';
import type Koa from 'koa';
import type { Services } from '../bootstrap.js';

export type GracefulServer = http.Server & { shutdown(): Promise<void> };

export type ShutdownServices = Pick<Services, 'config' | 'logger' | 'close'>;

// Slow-loris protection: headers must arrive quickly; a whole request (uploads up to 14 MB) gets longer.
const HEADERS_TIMEOUT_MS = 20_000;
const REQUEST_TIMEOUT_MS = 120_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

function waitForClose(server: http.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

export async function listenGracefully(
  app: Koa,
  services: ShutdownServices,
  { port, host }: { port: number; host: string },
): Promise<GracefulServer> {
  const server = http.createServer(app.callback()) as GracefulServer;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;

  // While draining, a finished response must not leave its keep-alive socket open (it would
  // hold `server.close()` until the grace period ends): answer with `Connection: close`.
  let draining = false;
  const inFlight = new Set<http.ServerResponse>();
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
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
  await services.close();
}
