/**
 * Process entry point: reads the environment (the only file that touches `process`), listens,
 * builds the services (waiting for the database — `startup.ts`), and shuts down gracefully on
 * SIGTERM/SIGINT. Exits non-zero when start-up fails, e.g. no database within
 * `DATABASE_STARTUP_TIMEOUT_MS`.
 */
import { pino, type Logger } from 'pino';
import { loadConfig, ConfigError, type Config } from './config.js';
import { startServer } from './startup.js';
import type { GracefulServer } from './http/server.js';
import { buildLoggerOptions } from './http/observability.js';
import { PACKAGE_ROOT } from './package-root.js';
import { tokenCommandFor } from './auth/token-args.js';

/** The configuration of the environment; an invalid one ends the process with status 2, naming the variable. */
function readConfig(): Config {
  try {
    // A relative DATA_DIR is read from the project folder, as `npm run token` reads it, whatever
    // folder the process was started from.
    return loadConfig(process.env, PACKAGE_ROOT);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Invalid configuration: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** SIGTERM and SIGINT drain the server, then exit; the answer says whether a stop was asked. */
function stopOnSignals(server: GracefulServer, logger: Logger): () => boolean {
  let stopping = false;
  // Repeated signals join the same drain (Ctrl-C under `npm start` delivers SIGINT twice: from
  // the terminal and forwarded by npm); a second one must not kill the process mid-drain.
  const stop = (signal: string) => {
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.shutdown().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return () => stopping;
}

/** The log line of a started server and, embedded, the banner: where to connect and how to mint a token. */
function announce(config: Config, server: GracefulServer, logger: Logger): void {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port, mcp: `${config.publicUrl}/mcp`, mode: config.databaseUrl ? 'replica' : 'embedded' }, 'kobana-finance listening');
  if (!config.databaseUrl) {
    process.stdout.write(
      `\nkobana-finance is running.\n  MCP endpoint: ${config.publicUrl}/mcp\n  REST API:     ${config.publicUrl}/v1\n` +
        `  Mint a token: ${tokenCommandFor(config, PACKAGE_ROOT)}\n\n`,
    );
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const logger = pino(buildLoggerOptions(config.logLevel));
  const { server, ready } = await startServer(config, logger);
  const stopping = stopOnSignals(server, logger);
  try {
    await ready;
  } catch (err) {
    if (stopping()) return;
    throw err;
  }
  announce(config, server, logger);
}

main().catch((err: unknown) => {
  process.stderr.write(`kobana-finance failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
