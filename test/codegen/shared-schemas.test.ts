/**
 * The generated modules after issue 28.2: every shared schema said once in
 * generated/definitions/schemas.gen.ts, the operation modules naming them. What the modules
 * rebuild is exactly what the planner built (and so what clients receive: the tools/list bytes are
 * test/mcp/tools-list-bytes.test.ts's snapshot), frozen, with no formatting pass needed.
 */
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { formatOutput } from '../../codegen/emit/check.js';
import { writeJson } from '../../codegen/emit/json-text.js';
import { SHARED_SCHEMAS_FILE } from '../../codegen/emit/render.js';
import { generate } from '../../codegen/generate.js';
import { operations } from '../../generated/registry.gen.js';
import * as sharedSchemas from '../../generated/definitions/schemas.gen.js';
import { makeTempDir, MINI_SPEC, readYaml, REPO_ROOT, writeSpec, type Doc } from './support.js';

const OUR_SPEC = path.join(REPO_ROOT, 'openapi/v1.yaml');

/** Every object below `value`, each once. */
function objectsBelow(value: unknown, seen = new Set<object>()): Set<object> {
  if (value !== null && typeof value === 'object' && !seen.has(value)) {
    seen.add(value);
    for (const member of Object.values(value)) objectsBelow(member, seen);
  }
  return seen;
}

describe('shared schemas (generated/definitions/schemas.gen.ts)', function () {
  this.timeout(60_000);
  let ours: Awaited<ReturnType<typeof generate>>;
  before(async () => {
    ours = await generate(OUR_SPEC, { typeCheck: false, handlers: { dir: path.join(REPO_ROOT, 'src/api/operations'), outDir: 'generated' } });
  });

  it('the modules rebuild exactly the planned definitions of openapi/v1.yaml', () => {
    expect(operations).to.have.length(ours.plan.operations.length).and.to.not.be.empty;
    expect(JSON.parse(JSON.stringify(operations))).to.deep.equal(JSON.parse(JSON.stringify(ours.plan.operations.map((planned) => planned.definition))));
  });

  it('shares a schema between operations by reference, and freezes every object of every operation', () => {
    const exported = Object.values(sharedSchemas);
    expect(exported).to.not.be.empty;
    const holders = (schema: object) => operations.filter((operation) => objectsBelow(operation).has(schema)).length;
    expect(exported.some((schema) => holders(schema) > 1), 'a schema held by two operations').to.equal(true);
    const all = objectsBelow(operations);
    expect(all.size).to.be.greaterThan(exported.length);
    for (const object of all) expect(Object.isFrozen(object)).to.equal(true);
    const [first] = exported;
    expect(() => { (first as Record<string, unknown>).type = 'changed'; }).to.throw(TypeError);
  });

  it('writes no $ref: a shared schema is an import, not a reference in the data', () => {
    const modules = [...ours.files].filter(([file]) => file.endsWith('.gen.ts'));
    expect(modules).to.not.be.empty;
    for (const [file, text] of modules) expect(text, file).to.not.include('"$ref"');
  });

  it('needs no formatting: the formatter changes no byte of any generated TypeScript file', async () => {
    const code = new Map([...ours.files].filter(([file]) => file.endsWith('.ts')));
    expect([...code.keys()]).to.include.members(['registry.gen.ts', 'handlers.gen.ts', SHARED_SCHEMAS_FILE, 'operations/payables_list.gen.ts']);
    const formatted = await formatOutput(code);
    for (const [file, text] of code) expect(formatted.get(file) === text, `${file} would be reformatted`).to.equal(true);
  });

  it('writes JSON as JSON.stringify(value, null, 2) does, and refuses what JSON cannot carry', () => {
    const none = () => undefined;
    expect(ours.plan.operations).to.not.be.empty;
    for (const { definition } of ours.plan.operations) expect(writeJson(definition, '', none)).to.equal(JSON.stringify(definition, null, 2));
    const odd = { a: [], b: {}, c: [1, 'two', null, { 'd"e': false, f: -0.5 }], g: 'ção\u2028🧾' };
    expect(writeJson(odd, '', none)).to.equal(JSON.stringify(odd, null, 2));
    for (const value of [{ a: undefined }, { a: Number.NaN }, { a: new Date(0) }, { a: () => 1 }, [Infinity]]) {
      expect(() => writeJson(value, '', none)).to.throw(/internal: \$/);
    }
  });

  it('names a shared schema after its component, and a change of that schema rewrites the shared module, not the operations naming it', async () => {
    const dir = makeTempDir();
    try {
      // The same path both times: the modules' header names the spec file.
      const doc: Doc = readYaml(MINI_SPEC);
      const before = await generate(writeSpec(dir, 'spec.yaml', doc), { typeCheck: false });
      doc.components.schemas.PayableInput.properties.description.maxLength = 300;
      const after = await generate(writeSpec(dir, 'spec.yaml', doc), { typeCheck: false });
      const names = (files: Map<string, string>) => [...(files.get(SHARED_SCHEMAS_FILE) ?? '').matchAll(/^export const (\w+)/gm)].map((match) => match[1]);
      expect(names(before.files)).to.include.members(['schema_Payable', 'schema_PayableInput']);
      expect(names(after.files)).to.deep.equal(names(before.files));
      const changed = [...after.files.keys()].filter((file) => file.endsWith('.gen.ts') && after.files.get(file) !== before.files.get(file));
      expect(changed.sort()).to.deep.equal([SHARED_SCHEMAS_FILE, 'registry.gen.ts']); // the registry names the spec's hash
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
