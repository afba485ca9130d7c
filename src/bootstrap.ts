/**
 * Builds the long-lived services of one process from a `Config`: database (migrated, seeded
 * when configured), the Account/authenticator, counters, the operation service, and the
 * generated registry the surfaces are built from. Used by `main.ts` and by the test harness, so
 * both run exactly the same wiring. The only importer of generated/registry.gen.ts and
 * generated/handlers.gen.ts (dependency-cruiser rule registries-only-bootstrap): everything else
 * receives them through `Services.registry`.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './store/schema.js';
import { openDatabase, type OpenedDatabase } from './store/db.js';
import { migrateToLatest } from './store/migrate.js';
import { seedDemoData } from './seed/index.js';
import { createAuth, type AuthModule } from './auth/index.js';
import { createConfirmationDescribers, createDownloadLinks, createOperationService, type ConfirmationDescribers, type DownloadLinks, type OperationHandler, type OperationService } from './api/index.js';
import { handlers } from '../generated/handlers.gen.js';
import { createLimits, type Limits } from './http/limits.js';
import { createMetrics, type Metrics } from './http/metrics.js';
import { resourceTemplates, routes, tools } from '../generated/registry.gen.js';
import { profileExclusions } from '../generated/profile-exclusions.gen.js';
import type { ProfileExclusions } from './runtime/schema-profiles.js';
import type { OperationViews } from './runtime/views.js';
import { createOAuthServer, type ClientDocumentTestSeam, type OAuthServer } from './oauth/index.js';
import { clockDate, systemClock, type Clock } from './runtime/clock.js';
import { passThroughTracing, type Tracing } from './http/tracing.js';
// A type only, named through `import()` so that the one import of the adapter stays the dynamic one
// in loadTracing: the adapter (and the SDK under it) is loaded when an exporter is configured.
type SpanExporter = import('./http/otel-tracing.js').SpanExporter;

/** The generated registry, injected into the surfaces: the REST routes, MCP tools and resource templates, and every handler. */
export interface Registry extends OperationViews {
  /** Every operation's handler by operationId (generated/handlers.gen.ts). */
  readonly handlers: Readonly<Record<string, OperationHandler>>;
  /** The tools each client schema profile cannot represent, as the generator decided (generated/profile-exclusions.gen.ts). */
  readonly profileExclusions: ProfileExclusions;
}

/** The registry of this build: generated/registry.gen.ts, generated/handlers.gen.ts and generated/profile-exclusions.gen.ts. */
const registry: Registry = { routes, tools, resourceTemplates, handlers, profileExclusions };

export interface Services {
  readonly config: Config;
  readonly logger: Logger;
  readonly db: Kysely<Database>;
  readonly dialect: 'sqlite' | 'postgres';
  readonly auth: AuthModule;
  readonly limits: Limits;
  readonly metrics: Metrics;
  readonly operations: OperationService;
  /** The generated registry (routes, tools, resource templates, handlers) the surfaces are built from. */
  readonly registry: Registry;
  /** The confirmation sentence of each destructive operation, built from the registry and the handler index (MCP confirmation). */
  readonly describers: ConfirmationDescribers;
  /** The embedded Account's OAuth authorization server; null with an external Account (ACCOUNT_ISSUER). */
  readonly oauth: OAuthServer | null;
  /** The process's one clock (src/runtime/clock.ts); tests pass a manual one. */
  readonly clock: Clock;
  /** Spans of HTTP requests and MCP messages: the OpenTelemetry SDK when an exporter is configured, else pass-through (docs/operations.md#trace-context). */
  readonly tracing: Tracing;
  /** Signed download links a person opens in a browser (docs/security.md#download-links): made by the download tool, served by src/http/download-link.ts. */
  readonly downloadLinks: DownloadLinks;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Default: the system clock. */
  readonly clock?: Clock;
  /** Spans go through the OpenTelemetry SDK to this exporter, whatever the configuration (tests: an `InMemorySpanExporter`). */
  readonly spanExporter?: SpanExporter;
  /**
   * Tests only (never passed by src/main.ts, no setting reaches it): how the embedded Account
   * fetches Client ID Metadata Documents from the test's own https server on loopback
   * (src/oauth/client-documents.ts).
   */
  readonly clientDocumentTestSeam?: ClientDocumentTestSeam;
}

/**
 * The tracing of this process. The OpenTelemetry adapter is imported here and only here, and only
 * when spans are to be exported (as `pg` is only with DATABASE_URL): with tracing off the SDK is
 * never loaded (dependency-cruiser rule otel-adapter-on-demand).
 */
async function loadTracing(config: Config, spanExporter: SpanExporter | undefined): Promise<Tracing> {
  if (spanExporter === undefined && config.traceExporters.length === 0) return passThroughTracing;
  const { createOtelTracing } = await import('./http/otel-tracing.js');
  return createOtelTracing({ exporters: config.traceExporters, spanExporter });
}

export async function createServices(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<Services> {
  const clock = options.clock ?? systemClock;
  const store = await openDatabase(config, logger);
  let limits: Limits | undefined;
  let tracing: Tracing | undefined;
  try {
    tracing = await loadTracing(config, options.spanExporter);
    await migrateToLatest(store.db);
    if (config.seedDemoData) await seedDemoData(store.db, clock, registry);
    const metrics = createMetrics();
    limits = await createLimits(config, logger, metrics, { now: () => clock.now() });
    const auth = await createAuth(config, store.db, logger, metrics, { clock });
    const oauth = auth.accountKey === null ? null : await createOAuthServer({
      config, db: store.db, logger, signingKey: auth.accountKey, issuer: auth.issuer, audiences: auth.audiences, revocation: auth.revocation, clock,
      ...(options.clientDocumentTestSeam ? { clientDocumentTestSeam: options.clientDocumentTestSeam } : {}),
    });
    return assemble(config, logger, store, metrics, limits, auth, oauth, { clock, tracing });
  } catch (err) {
    // A failed start (main.ts retries while the database is down) leaves no pool, client or exporter behind.
    await tracing?.shutdown();
    await limits?.close();
    await store.close();
    throw err;
  }
}

function assemble(
  config: Config, logger: Logger, store: OpenedDatabase, metrics: Metrics, limits: Limits, auth: AuthModule, oauth: OAuthServer | null,
  { clock, tracing }: { clock: Clock; tracing: Tracing },
): Services {
  const describers = createConfirmationDescribers({ routes: registry.routes, handlers: registry.handlers });
  const operations = createOperationService({
    db: store.db, routes: registry.routes, handlers: registry.handlers, budget: limits.budget, now: () => clockDate(clock), describers,
    requestDeadlineMs: config.requestDeadlineMs, dialect: store.dialect, statementTimeoutMs: config.databaseStatementTimeoutMs,
    // With an external Account there is no page: approving is REST only (approval_url null).
    approvalPageUrl: oauth ? (workspaceId, id) => oauth.approvalRequestUrl(workspaceId, id) : undefined,
  });
  return {
    config,
    logger,
    db: store.db,
    dialect: store.dialect,
    auth,
    limits,
    metrics,
    operations,
    registry,
    describers,
    oauth,
    clock,
    tracing,
    downloadLinks: createDownloadLinks({ config, db: store.db, clock }),
    async close() {
      await limits.close();
      await store.close();
      // Last: the spans of the requests just drained are exported before the process ends.
      await tracing.shutdown();
    },
  };
}
