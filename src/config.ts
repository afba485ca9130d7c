/**
 * Typed configuration. `loadConfig(env)` turns environment variables into a validated `Config`
 * with defaults that work embedded; an invalid value fails start-up with an error naming the
 * variable. Only the two entry points, `main.ts` and `auth/token-cli.ts`, pass `process.env` in;
 * tests build configs directly.
 */
import path from 'node:path';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Canonical base URL without a trailing slash; the MCP resource is `${publicUrl}/mcp`. */
  readonly publicUrl: string;
  readonly dataDir: string;
  /** `postgres://…` for replicas; null → SQLite file in `dataDir`. */
  readonly databaseUrl: string | null;
  /** null → in-memory counters. */
  readonly redisUrl: string | null;
  /** Prefix of every Redis key, so environments (or test runs) can share one Redis. */
  readonly redisKeyPrefix: string;
  /** /readyz answers 503 while a configured Redis is unreachable (false: reported, not failing). */
  readonly readinessRequiresRedis: boolean;
  /** External Account; both null → the embedded Account. */
  readonly accountIssuer: string | null;
  readonly accountJwksUrl: string | null;
  /** Browser origins accepted at /mcp; `*` as a port wildcard (`http://localhost:*`). */
  readonly allowedOrigins: readonly string[];
  readonly logLevel: string;
  /** Base64url 256-bit key sealing confirmation state; null → generated once into `dataDir` (SQLite) or the database (PostgreSQL). */
  readonly confirmationKey: string | null;
  /** Bearer token protecting GET /metrics; null → /metrics is not served on the public port. */
  readonly metricsToken: string | null;
  /** Protocol requests per minute per token subject. */
  readonly protocolRateLimitPerMinute: number;
  /** Failed authentications per minute per address before 429. */
  readonly authFailureLimitPerMinute: number;
  /** Longest accepted token lifetime (`exp − iat`); longer-lived tokens are refused, and not minted. */
  readonly tokenMaxLifetimeSeconds: number;
  /**
   * Behind a reverse proxy / load balancer that sets X-Forwarded-For: take the client address
   * (the failed-authentication throttle's key) from it. false → the socket's peer address, so a
   * client cannot pick its own address by sending the header.
   */
  readonly trustProxy: boolean;
  /** API budget per person per organization, per window. */
  readonly apiReadBudget: number;
  readonly apiWriteBudget: number;
  readonly apiBudgetWindowSeconds: number;
  /** Seed demo data on first start (embedded default: true). */
  readonly seedDemoData: boolean;
  /** Bounded wait for in-flight requests on SIGTERM. */
  readonly shutdownGraceMs: number;
  /** PostgreSQL: longest wait for a connection (new, or a free one from the pool) before the call fails as an outage. */
  readonly databaseConnectTimeoutMs: number;
  /** PostgreSQL: `statement_timeout` of every session; the client also stops waiting for an answer shortly after it. */
  readonly databaseStatementTimeoutMs: number;
  /** PostgreSQL: an idle pooled connection is closed after this long. */
  readonly databaseIdleTimeoutMs: number;
  /** Longest wait for the database at start-up (retried with backoff) before the process exits non-zero. */
  readonly databaseStartupTimeoutMs: number;
  /** Bytes of request bodies this process may hold at once; beyond it a body is refused with 503 before it is read. */
  readonly maxInflightBodyBytes: number;
  /** Idle keep-alive sockets are closed after this long (keep it above the load balancer's idle timeout). */
  readonly httpKeepAliveTimeoutMs: number;
  /** All request headers must arrive within this long (slow-loris protection); at most `httpRequestTimeoutMs`. */
  readonly httpHeadersTimeoutMs: number;
  /** A whole request, body included, must arrive within this long. */
  readonly httpRequestTimeoutMs: number;
  /**
   * Every API call's deadline: past it, its work stops and it is answered like a database outage
   * (503 + Retry-After, `details.reason: "deadline"`; docs/operations.md#request-deadline).
   */
  readonly requestDeadlineMs: number;
  /**
   * Where spans are exported through the OpenTelemetry SDK (docs/operations.md#trace-context):
   * `OTEL_TRACES_EXPORTER`, else `otlp` when `OTEL_EXPORTER_OTLP[_TRACES]_ENDPOINT` is set; empty
   * (the default, and whenever `OTEL_SDK_DISABLED=true`): no span leaves and the SDK is never loaded.
   */
  readonly traceExporters: readonly TraceExporterName[];
}

/** The span exporters this build carries: OTLP over HTTP/JSON, and the console. */
export type TraceExporterName = 'otlp' | 'console';

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be an integer between ${min} and ${max}`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be an integer between ${min} and ${max}`);
  return value;
}

function readUrl(env: Env, name: string, protocols: readonly string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be an absolute URL');
  }
  if (!protocols.includes(url.protocol)) throw new ConfigError(name, `must use ${protocols.join(' or ')}`);
  return raw;
}

function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, 'must be true or false');
}

function readRedisKeyPrefix(env: Env): string {
  const raw = env.REDIS_KEY_PREFIX;
  if (raw === undefined || raw === '') return 'kobana-finance:';
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(raw)) throw new ConfigError('REDIS_KEY_PREFIX', 'must be 1-64 characters of letters, digits, ".", "_", ":" or "-"');
  return raw;
}

/** An external Account is named by both variables or by neither (both null: the embedded Account). */
function readExternalAccount(env: Env): Pick<Config, 'accountIssuer' | 'accountJwksUrl'> {
  const accountIssuer = readUrl(env, 'ACCOUNT_ISSUER', ['http:', 'https:']);
  const accountJwksUrl = readUrl(env, 'ACCOUNT_JWKS_URL', ['http:', 'https:']);
  if ((accountIssuer === null) !== (accountJwksUrl === null)) {
    throw new ConfigError(accountIssuer === null ? 'ACCOUNT_ISSUER' : 'ACCOUNT_JWKS_URL', 'ACCOUNT_ISSUER and ACCOUNT_JWKS_URL are set together');
  }
  return { accountIssuer, accountJwksUrl };
}

/** Unset: a key is generated once (into DATA_DIR; with DATABASE_URL the replicas share one generated key through the database). */
function readConfirmationKey(env: Env): string | null {
  const confirmationKey = env.CONFIRMATION_KEY || null;
  if (confirmationKey !== null && !/^[A-Za-z0-9_-]{43}$/.test(confirmationKey)) {
    throw new ConfigError('CONFIRMATION_KEY', 'must be 32 bytes, base64url-encoded (43 characters)');
  }
  return confirmationKey;
}

function readAllowedOrigins(env: Env): readonly string[] {
  return (env.ALLOWED_ORIGINS ?? 'http://localhost:*,http://127.0.0.1:*')
    .split(',').map((o) => o.trim()).filter((o) => o.length > 0);
}

export function loadConfig(env: Env, cwd = '.'): Config {
  const port = readInt(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const publicUrl = (readUrl(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const databaseUrl = readUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = readUrl(env, 'REDIS_URL', ['redis:', 'rediss:']);
  return {
    port,
    host,
    publicUrl,
    dataDir: path.resolve(cwd, env.DATA_DIR || './data'),
    databaseUrl,
    redisUrl,
    redisKeyPrefix: readRedisKeyPrefix(env),
    readinessRequiresRedis: readBool(env, 'READINESS_REQUIRES_REDIS', true),
    ...readExternalAccount(env),
    allowedOrigins: readAllowedOrigins(env),
    logLevel: env.LOG_LEVEL || 'info',
    confirmationKey: readConfirmationKey(env),
    metricsToken: env.METRICS_TOKEN || null,
    protocolRateLimitPerMinute: readInt(env, 'PROTOCOL_RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
    authFailureLimitPerMinute: readInt(env, 'AUTH_FAILURE_LIMIT_PER_MINUTE', 30, 1, 1_000_000),
    tokenMaxLifetimeSeconds: readInt(env, 'TOKEN_MAX_LIFETIME_SECONDS', 30 * 86_400, 60, 366 * 86_400),
    trustProxy: readBool(env, 'TRUST_PROXY', false),
    apiReadBudget: readInt(env, 'API_READ_BUDGET', 1200, 1, 10_000_000),
    apiWriteBudget: readInt(env, 'API_WRITE_BUDGET', 300, 1, 10_000_000),
    apiBudgetWindowSeconds: readInt(env, 'API_BUDGET_WINDOW_SECONDS', 60, 1, 86_400),
    // Replicas (DATABASE_URL) share one database: nobody seeds it by default.
    seedDemoData: readBool(env, 'SEED_DEMO_DATA', databaseUrl === null),
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    ...readDatabaseTimeouts(env),
    // At least one largest body (the 14,680,064-byte /mcp cap), or such a body could never be read.
    maxInflightBodyBytes: readInt(env, 'MAX_INFLIGHT_BODY_BYTES', 64 * 1024 * 1024, 16 * 1024 * 1024, 16 * 1024 * 1024 * 1024),
    ...readHttpTimeouts(env),
    requestDeadlineMs: readInt(env, 'REQUEST_DEADLINE_MS', 10_000, 1, 600_000),
    traceExporters: readTraceExporters(env),
  };
}

const TRACE_EXPORTERS: ReadonlySet<string> = new Set<TraceExporterName>(['otlp', 'console']);

/** The OTLP exporter this build carries speaks HTTP/JSON; another protocol asked for (the traces' own variable wins) would fail at every export. */
function checkOtlpProtocol(env: Env): void {
  const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const raw = env[name];
  if (raw !== undefined && raw !== '' && raw.trim() !== 'http/json') throw new ConfigError(name, 'must be http/json (the OTLP exporter of this build)');
}

/**
 * The OpenTelemetry SDK's switches, read as its specification defines them: `OTEL_SDK_DISABLED=true`
 * turns everything off; `OTEL_TRACES_EXPORTER` is a comma-separated list of `otlp`, `console`
 * or `none`; unset, an OTLP endpoint variable alone means `otlp`.
 */
function readTraceExporters(env: Env): readonly TraceExporterName[] {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return [];
  const listed = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  const unknown = listed.find((name) => name !== 'none' && !TRACE_EXPORTERS.has(name));
  if (unknown !== undefined) throw new ConfigError('OTEL_TRACES_EXPORTER', `must list otlp, console or none (not ${JSON.stringify(unknown)})`);
  const endpoint = Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const exporters = listed.length > 0 ? [...new Set(listed.filter((name) => name !== 'none'))] as TraceExporterName[] : endpoint ? ['otlp' as const] : [];
  if (exporters.includes('otlp')) checkOtlpProtocol(env);
  return exporters;
}

function readDatabaseTimeouts(env: Env): Pick<Config,
  'databaseConnectTimeoutMs' | 'databaseStatementTimeoutMs' | 'databaseIdleTimeoutMs' | 'databaseStartupTimeoutMs'> {
  return {
    databaseConnectTimeoutMs: readInt(env, 'DATABASE_CONNECT_TIMEOUT_MS', 2_000, 100, 120_000),
    databaseStatementTimeoutMs: readInt(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 10_000, 100, 3_600_000),
    databaseIdleTimeoutMs: readInt(env, 'DATABASE_IDLE_TIMEOUT_MS', 10_000, 1_000, 3_600_000),
    databaseStartupTimeoutMs: readInt(env, 'DATABASE_STARTUP_TIMEOUT_MS', 60_000, 0, 3_600_000),
  };
}

function readHttpTimeouts(env: Env): Pick<Config, 'httpKeepAliveTimeoutMs' | 'httpHeadersTimeoutMs' | 'httpRequestTimeoutMs'> {
  const httpRequestTimeoutMs = readInt(env, 'HTTP_REQUEST_TIMEOUT_MS', 120_000, 1_000, 3_600_000);
  const httpHeadersTimeoutMs = readInt(env, 'HTTP_HEADERS_TIMEOUT_MS', 20_000, 1_000, 3_600_000);
  if (httpHeadersTimeoutMs > httpRequestTimeoutMs) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS', 'must not be greater than HTTP_REQUEST_TIMEOUT_MS');
  }
  return { httpKeepAliveTimeoutMs: readInt(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 1, 3_600_000), httpHeadersTimeoutMs, httpRequestTimeoutMs };
}
