/**
 * Process entry point: reads the environment (the only file that touches `process`), builds
 * the services, listens, and shuts down gracefully on SIGTERM/SIGINT.
 */
import { pino } from 'pino';
import { loadConfig, ConfigError } from './config.js';
import { createServices } from './bootstrap.js';
import { createApp } from './app.js';
import { listenGracefully } from './http/server.js';
import { buildLoggerOptions } from './http/observability.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Invalid configuration: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = pino(buildLoggerOptions(config.logLevel));
  const services = await createServices(config, logger);
  const app = createApp(services);
  const server = await listenGracefully(app, services, { port: config.port, host: config.host });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port, mcp: `${config.publicUrl}/mcp`, mode: config.databaseUrl ? 'replica' : 'embedded' }, 'kobana-finance listening');
  if (!config.databaseUrl) {
    process.stdout.write(
      `\nkobana-finance is running.\n  MCP endpoint: ${config.publicUrl}/mcp\n  REST API:     ${config.publicUrl}/v1\n` +
        `  Mint a token: npm run token -- --person ana@demo.test --scope "finance.all.write"\n\n`,
    );
  }
  const stop = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    server.shutdown().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`kobana-finance failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
