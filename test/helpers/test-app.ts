/**
 * startTestApp: the real app (createServices + createApp + listenGracefully) on a free
 * loopback port, with a temporary data dir (SQLite) or a fresh PostgreSQL schema when
 * DATABASE_URL is set, the embedded Account, and demo data. Everyone's HTTP tests use it.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import type { Config } from '../../src/config.js';
import { createServices, type Registry, type ServiceOptions, type Services } from '../../src/bootstrap.js';
import { createApp } from '../../src/app.js';
import { listenGracefully } from '../../src/http/server.js';
import type { MintTokenOptions } from '../../src/auth/index.js';
import { buildTestConfig, createTestSchema } from './database.js';
import type { Clock } from '../../src/runtime/clock.js';
import type { ClientDocumentTestSeam } from '../../src/oauth/index.js';

export interface TestApp {
  /** `http://127.0.0.1:<port>` (also the app's publicUrl, so iss/aud/resource match). */
  readonly url: string;
  readonly services: Services;
  /** Mints a token with the embedded Account (person = email; defaults: finance.all, personal, aud mcp, 1 h). */
  mintToken(options: MintTokenOptions): Promise<string>;
  close(): Promise<void>;
}

export interface StartTestAppOptions {
  readonly config?: Partial<Config>;
  /** The app's clock (test/helpers/clock.ts); default the system clock. */
  readonly clock?: Clock;
  /** The app's logger (a test reading the log lines passes one); default pino at `config.logLevel`. */
  readonly logger?: Logger;
  /** Spans go through the OpenTelemetry SDK to this exporter (an `InMemorySpanExporter`); default: as the config says (off). */
  readonly spanExporter?: ServiceOptions['spanExporter'];
  /** How the embedded Account fetches Client ID Metadata Documents from the test's https server (src/oauth/client-documents.ts). */
  readonly clientDocumentTestSeam?: ClientDocumentTestSeam;
  /** The registry the surfaces are built from, changed (a test-only tool alias); default the generated one. */
  readonly mapRegistry?: (registry: Registry) => Registry;
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export async function startTestApp(options: StartTestAppOptions = {}): Promise<TestApp> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-test-'));
  const schema = await createTestSchema();
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const config = buildTestConfig({ port, publicUrl: url, dataDir, databaseUrl: schema.databaseUrl, ...options.config });
  const logger = options.logger ?? pino({ level: config.logLevel });
  const cleanup = async () => {
    await schema.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  };
  let services: Services;
  try {
    services = await createServices(config, logger, {
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.spanExporter ? { spanExporter: options.spanExporter } : {}),
      ...(options.clientDocumentTestSeam ? { clientDocumentTestSeam: options.clientDocumentTestSeam } : {}),
    });
  } catch (err) {
    await cleanup();
    throw err;
  }
  let server: Awaited<ReturnType<typeof listenGracefully>>;
  try {
    const served = options.mapRegistry ? { ...services, registry: options.mapRegistry(services.registry) } : services;
    server = await listenGracefully(createApp(served), served, { port: config.port, host: config.host });
  } catch (err) {
    await services.close();
    await cleanup();
    throw err;
  }
  let closed: Promise<void> | undefined;
  return {
    url,
    services,
    async mintToken(mint) {
      if (!services.auth.mintToken) throw new Error('mintToken needs the embedded Account (ACCOUNT_ISSUER unset).');
      return services.auth.mintToken(mint);
    },
    close() {
      closed ??= server.shutdown().then(cleanup);
      return closed;
    },
  };
}
