/**
 * A tool whose schemas the server's ajv cannot compile (issue 28: every inputSchema written
 * compiles). The case met in the public corpus is a `pattern` that is an ECMAScript regular
 * expression without the `u` flag but not with it (`\:` is an invalid escape under `u`, which ajv
 * uses): DigitalOcean's tag names. The tool is excluded with an UNCOMPILABLE_SCHEMA warning naming
 * it, the schema and ajv's reason; the other tools and every route stay; `--strict` makes it an
 * error, reported before the format and type-check phases.
 */
import { expect } from 'chai';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { generate } from '../../codegen/generate.js';
import { createAjv } from '../../src/runtime/ajv.js';
import { makeTempDir, REPO_ROOT, runCli } from './support.js';

const SPEC = path.join(REPO_ROOT, 'test/fixtures/codegen-robust/uncompilable-pattern.yaml');
const ROUTE_SPEC = path.join(REPO_ROOT, 'test/fixtures/codegen-robust/uncompilable-route.yaml');

describe('a tool whose schema the server cannot compile', function () {
  this.timeout(60_000);

  it('is excluded with a warning naming the tool, the schema and the reason; the rest is generated and compiles', async () => {
    const result = await generate(SPEC, { typeCheck: false });
    const warnings = result.warnings.filter((w) => w.rule === 'UNCOMPILABLE_SCHEMA');
    expect(warnings).to.have.length(1);
    expect(warnings[0]!.pointer).to.equal('#/paths/~1tags/post');
    expect(warnings[0]!.detail).to.match(/^the argument schema of tool create_tag does not compile \(Invalid regular expression: .*Invalid escape\); the tool is excluded \(its REST route would fail at first use\)$/);
    expect(result.plan.tools.map((tool) => tool.name)).to.deep.equal(['list_tags']);
    expect(result.plan.routes.map((route) => `${route.operation.method} ${route.operation.path}`).sort()).to.deep.equal(['GET /tags', 'POST /tags']);
    const listed = JSON.parse(result.files.get('tools-list.gen.json')!) as { name: string; inputSchema: object }[];
    expect(listed.map((tool) => tool.name)).to.deep.equal(['list_tags']);
    const ajv = createAjv({ quiet: true });
    expect(listed).to.not.be.empty;
    for (const tool of listed) expect(() => ajv.compile(tool.inputSchema), tool.name).to.not.throw();
    // The excluded operation's module says so: no tool name, its route kept.
    const module = [...result.files].find(([file]) => file.startsWith('operations/create_tag'))?.[1] ?? '';
    expect(module).to.contain('"toolName": null');
  });

  it('a route without a tool whose schemas do not compile is named too (it stays, and would fail at first use)', async () => {
    const result = await generate(ROUTE_SPEC, { typeCheck: false });
    const details = result.warnings.filter((w) => w.rule === 'UNCOMPILABLE_SCHEMA').map((w) => w.detail);
    expect(details).to.have.length(1);
    expect(details[0]).to.match(/^the schema of parameter prefix of the REST route GET \/labels does not compile \(Invalid regular expression: .*\); the route would fail at first use$/);
    expect(result.plan.routes.map((route) => route.operation.operationId).sort()).to.deep.equal(['createLabel', 'listLabels']);
    expect(result.plan.tools.map((tool) => tool.name)).to.deep.equal(['create_label']);
    const error = await generate(ROUTE_SPEC, { typeCheck: false, strict: true }).then(() => null, (e: unknown) => e as Error);
    expect(error?.message).to.contain('would fail at first use [UNCOMPILABLE_SCHEMA; not allowed with --strict]');
  });

  it('fails --strict from the command line before the format and type-check phases, writing nothing', () => {
    const out = makeTempDir('kobana-uncompilable-');
    try {
      const run = runCli(['--spec', SPEC, '--out', path.join(out, 'generated'), '--strict']);
      expect(run.status, run.stderr).to.equal(1);
      const lines = run.stderr.split('\n');
      const failed = lines.indexOf('phase check: failed');
      expect(failed, run.stderr).to.be.greaterThan(0);
      expect(lines.slice(0, failed).some((line) => /^phase (format|type-check|write)/.test(line)), run.stderr).to.equal(false);
      expect(run.stderr).to.contain('[UNCOMPILABLE_SCHEMA; not allowed with --strict]');
      expect(existsSync(path.join(out, 'generated', 'tools-list.gen.json'))).to.equal(false);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
