/**
 * The real-world corpus (issue 16): public, openly licensed OpenAPI documents of different shapes
 * under test/fixtures/real-specs/<name>/ (each with a SOURCE.md naming repository, commit, path and
 * licence): the fixtures of the corpus list, test/codegen/corpus.ts. The generator runs in-process
 * over each into a temporary folder: every operation becomes a tool but those excluded on purpose
 * (listed in the corpus with the reason), every name is valid and unique,
 * every inputSchema compiles with the runtime's ajv, nothing touches the network, and a second run
 * renders identical text. How long each takes is measured by bench/codegen.ts
 * (bench/README.md#codegen), not asserted here.
 */
import { expect } from 'chai';
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { generate, type GenerateResult } from '../../codegen/generate.js';
import { renderPlan } from '../../codegen/emit/render.js';
import { writeOutput } from '../../codegen/emit/write.js';
import { loadSpec } from '../../codegen/load-spec.js';
import { planSpec } from '../../codegen/plan-spec.js';
import { isValidToolName } from '../../codegen/naming.js';
import { createAjv } from '../../src/api/validation.js';
import { skipWithReason } from '../helpers/mocha.js';
import { CORPUS, corpusFile, isFixture, REAL_SPECS } from './corpus.js';
import { makeTempDir } from './support.js';

/** The corpus's fixtures; test/codegen/corpus.test.ts runs the whole corpus through the CLI. */
const FIXTURES = CORPUS.filter(isFixture);

describe('the generator over the real-world corpus (test/fixtures/real-specs)', function () {
  this.timeout(120_000);
  let dir: string;
  let connections = 0;
  let server: Server | undefined;
  before(async function () {
    // The corpus touches no database: the run on PostgreSQL would repeat the same work.
    if (process.env.DATABASE_URL) skipWithReason(this, 'the corpus does not touch a database; it runs once, on the SQLite pass');
    dir = makeTempDir('kobana-corpus-');
    // Documents name real servers and remote examples: a listener on loopback stands in for
    // "nothing connects anywhere" (the loader refuses remote $refs before any request).
    server = createServer((socket) => { connections += 1; socket.destroy(); });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  });
  after(() => {
    server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads the five fixtures of the corpus list', () => expect(FIXTURES).to.have.length(5));
  for (const document of FIXTURES) {
    it(`${document.name}: ${document.operations - Object.keys(document.excluded).length} tools of ${document.operations} operations, valid unique names, ajv-compilable inputs, the same output twice`, async () => {
      const spec = corpusFile(document);
      expect(readFileSync(path.join(REAL_SPECS, document.source.folder, 'SOURCE.md'), 'utf8')).to.match(/Licence: \S/);
      const first = await generate(spec, { typeCheck: false });
      writeOutput(path.join(dir, document.name), first.files);

      const { plan } = first;
      expect(plan.routes.length + plan.skipped.length, 'operations').to.equal(document.operations);
      expect([...plan.skipped].sort()).to.deep.equal(Object.keys(document.excluded).sort());
      expect(plan.tools.length, 'tools').to.equal(document.operations - Object.keys(document.excluded).length);
      expect(plan.operations.filter((o) => o.definition.toolName === null)).to.deep.equal([]);
      assertNamesAndSchemas(first);

      // The second run stops before the type-check, which adds nothing to the rendered text:
      // identical rendered modules and tools mean identical files.
      const second = planSpec(await loadSpec(spec));
      const [before, after] = [renderPlan(plan).files, renderPlan(second).files];
      expect([...after.keys()]).to.deep.equal([...before.keys()]);
      expect(before).to.not.be.empty;
      for (const [file, text] of before) expect(after.get(file) === text, `${document.name}: ${file} differs between runs`).to.equal(true);
      expect(JSON.stringify(second.tools)).to.equal(JSON.stringify(plan.tools));
      expect(connections).to.equal(0);
    });
  }

  it('swagger-petstore-3: the body field "username" of PUT /user/{username} is its own argument beside the path parameter', async () => {
    const { plan } = await generate(path.join(REAL_SPECS, 'swagger-petstore-3/openapi.yaml'), { typeCheck: false });
    const update = plan.tools.find((tool) => tool.operation.method === 'PUT' && tool.operation.path === '/user/{username}');
    const targets = Object.entries(update?.args ?? {}).filter(([, target]) => 'name' in target && target.name === 'username');
    expect(targets.map(([, target]) => target.in).sort()).to.deep.equal(['body', 'path']);
    expect(new Set(targets.map(([argument]) => argument)).size).to.equal(2);
  });
});

function assertNamesAndSchemas({ plan }: GenerateResult): void {
  const names = plan.tools.map((tool) => tool.name);
  expect(names).to.not.be.empty;
  for (const name of names) expect(isValidToolName(name), name).to.equal(true);
  expect(new Set(names).size, 'unique tool names').to.equal(names.length);
  const ajv = createAjv();
  for (const tool of plan.tools) {
    expect(() => ajv.compile(tool.inputSchema as object), tool.name).to.not.throw();
  }
}
