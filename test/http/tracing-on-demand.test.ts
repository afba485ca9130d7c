/**
 * The OpenTelemetry SDK is loaded only when spans are to be exported (docs/operations.md#trace-context),
 * as `pg` is only with DATABASE_URL: a child process builds the services with the OTEL_* variables
 * of each case and records every module it resolves. This is what holds src/bootstrap.ts's import of
 * src/http/otel-tracing.ts dynamic (dependency-cruiser cannot tell a static import beside a dynamic one).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { PACKAGE_ROOT } from '../../src/package-root.js';

const run = promisify(execFile);
const CHILD = path.join(PACKAGE_ROOT, 'test/fixtures/tracing/start-services.ts');

interface Started {
  readonly exporting: boolean;
  /** Resolved module URLs naming OpenTelemetry or the adapter. */
  readonly otel: readonly string[];
  readonly resolved: number;
}

/** The environment without any OTEL_* variable of this process, plus the case's. */
function environment(otel: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
  return { ...env, ...otel };
}

async function startWith(otel: Record<string, string>): Promise<Started> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kf-otel-'));
  const out = path.join(dir, 'resolved.txt');
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', CHILD], { cwd: PACKAGE_ROOT, env: { ...environment(otel), RESOLUTIONS_OUT: out }, timeout: 60_000 });
    const urls = (await readFile(out, 'utf8')).split('\n').filter((url) => url !== '');
    const { exporting } = JSON.parse(stdout) as { exporting: boolean };
    return { exporting, otel: urls.filter((url) => url.includes('/@opentelemetry/') || url.endsWith('/src/http/otel-tracing.ts')), resolved: urls.length };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('the OpenTelemetry SDK on demand', function () {
  this.timeout(120_000);

  // Which variables mean "export" is loadConfig's (test/config.test.ts); these cases check what is loaded for each answer.
  it('is not loaded without an exporter, nor with OTEL_SDK_DISABLED=true', async function () {
    for (const otel of [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' }] as Record<string, string>[]) {
      const started = await startWith(otel);
      // The recorder saw the app's modules: bootstrap, the store, the tracing seam.
      expect(started.resolved, JSON.stringify(otel)).to.be.greaterThan(100);
      expect(started.otel, JSON.stringify(otel)).to.deep.equal([]);
      expect(started.exporting, JSON.stringify(otel)).to.equal(false);
    }
  });

  it('is loaded, with the adapter, when an OTLP endpoint is set', async function () {
    const started = await startWith({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(started.exporting).to.equal(true);
    expect(started.otel.some((url) => url.endsWith('/src/http/otel-tracing.ts'))).to.equal(true);
    expect(started.otel.some((url) => url.includes('/@opentelemetry/sdk-trace-node/'))).to.equal(true);
  });
});
