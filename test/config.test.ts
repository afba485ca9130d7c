import path from 'node:path';
import { expect } from 'chai';
import { loadConfig, ConfigError } from '../src/config.js';

const KEY = 'A'.repeat(43);

describe('loadConfig(env)', () => {
  it('gives working embedded defaults for an empty environment', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config).to.include({
      port: 3000,
      host: '127.0.0.1',
      publicUrl: 'http://localhost:3000',
      dataDir: path.resolve('/srv/app', './data'),
      databaseUrl: null,
      redisUrl: null,
      accountIssuer: null,
      confirmationKey: null,
      metricsToken: null,
      seedDemoData: true,
      logLevel: 'info',
    });
    expect(config.allowedOrigins).to.deep.equal(['http://localhost:*', 'http://127.0.0.1:*']);
  });

  it('accepts tokens living up to 30 days unless TOKEN_MAX_LIFETIME_SECONDS says otherwise', () => {
    expect(loadConfig({}).tokenMaxLifetimeSeconds).to.equal(30 * 86_400);
    expect(loadConfig({ TOKEN_MAX_LIFETIME_SECONDS: '3600' }).tokenMaxLifetimeSeconds).to.equal(3600);
  });

  it('gives every call a 10 s deadline unless REQUEST_DEADLINE_MS says otherwise', () => {
    expect(loadConfig({}).requestDeadlineMs).to.equal(10_000);
    expect(loadConfig({ REQUEST_DEADLINE_MS: '2500' }).requestDeadlineMs).to.equal(2_500);
  });

  it('exports spans only when OTEL_TRACES_EXPORTER or an OTLP endpoint says so, and never with OTEL_SDK_DISABLED=true', () => {
    const endpoint = 'http://collector:4318';
    expect(loadConfig({}).traceExporters).to.deep.equal([]);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }).traceExporters).to.deep.equal(['otlp']);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces` }).traceExporters).to.deep.equal(['otlp']);
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'console' }).traceExporters).to.deep.equal(['console']);
    expect(loadConfig({ OTEL_TRACES_EXPORTER: ' OTLP , console,otlp' }).traceExporters).to.deep.equal(['otlp', 'console']);
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }).traceExporters).to.deep.equal([]);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'true' }).traceExporters).to.deep.equal([]);
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'TRUE' }).traceExporters).to.deep.equal([]);
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'false' }).traceExporters).to.deep.equal(['otlp']);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).traceExporters).to.deep.equal(['otlp']);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }).traceExporters)
      .to.deep.equal(['otlp']);
    // The protocol matters only to the OTLP exporter.
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'console', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).traceExporters).to.deep.equal(['console']);
  });

  it('derives PUBLIC_URL from PORT and strips a trailing slash from an explicit one', () => {
    expect(loadConfig({ PORT: '8080' }).publicUrl).to.equal('http://localhost:8080');
    expect(loadConfig({ PUBLIC_URL: 'https://finance.example/' }).publicUrl).to.equal('https://finance.example');
  });

  it('switches to replica mode with DATABASE_URL: demo seed off, confirmation key optional (shared through the database)', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://db/finance' });
    expect(config.databaseUrl).to.equal('postgres://db/finance');
    expect(config.seedDemoData).to.equal(false);
    expect(config.confirmationKey).to.equal(null);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/finance', CONFIRMATION_KEY: KEY }).confirmationKey).to.equal(KEY);
  });

  const invalid: ReadonlyArray<{ given: Record<string, string>; variable: string }> = [
    { given: { PORT: 'eighty' }, variable: 'PORT' },
    { given: { PORT: '70000' }, variable: 'PORT' },
    { given: { PUBLIC_URL: 'localhost:3000' }, variable: 'PUBLIC_URL' },
    { given: { DATABASE_URL: 'mysql://db/x' }, variable: 'DATABASE_URL' },
    { given: { REDIS_URL: 'http://cache' }, variable: 'REDIS_URL' },
    { given: { ACCOUNT_ISSUER: 'https://account.example' }, variable: 'ACCOUNT_JWKS_URL' },
    { given: { ACCOUNT_JWKS_URL: 'https://account.example/jwks' }, variable: 'ACCOUNT_ISSUER' },
    { given: { CONFIRMATION_KEY: 'short' }, variable: 'CONFIRMATION_KEY' },
    { given: { API_READ_BUDGET: '0' }, variable: 'API_READ_BUDGET' },
    { given: { SEED_DEMO_DATA: 'maybe' }, variable: 'SEED_DEMO_DATA' },
    { given: { REDIS_KEY_PREFIX: 'has spaces' }, variable: 'REDIS_KEY_PREFIX' },
    { given: { TOKEN_MAX_LIFETIME_SECONDS: '30' }, variable: 'TOKEN_MAX_LIFETIME_SECONDS' },
    { given: { TOKEN_MAX_LIFETIME_SECONDS: '3153600000' }, variable: 'TOKEN_MAX_LIFETIME_SECONDS' },
    { given: { REQUEST_DEADLINE_MS: '0' }, variable: 'REQUEST_DEADLINE_MS' },
    { given: { REQUEST_DEADLINE_MS: 'soon' }, variable: 'REQUEST_DEADLINE_MS' },
    { given: { OTEL_TRACES_EXPORTER: 'jaeger' }, variable: 'OTEL_TRACES_EXPORTER' },
    { given: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, variable: 'OTEL_EXPORTER_OTLP_PROTOCOL' },
    { given: { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }, variable: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' },
  ];
  for (const { given, variable } of invalid) {
    it(`fails naming ${variable} for ${JSON.stringify(given)}`, () => {
      let error: unknown;
      try {
        loadConfig(given);
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as ConfigError).variable).to.equal(variable);
      expect((error as ConfigError).message).to.match(new RegExp(`^${variable}: `));
    });
  }
});
