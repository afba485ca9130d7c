/**
 * A schema property named `__proto__` (legal JSON, and a JSON Schema property name like any other)
 * survives into the generated modules: written as `"__proto__": …` in an object literal it would
 * set the object's prototype instead (codegen/emit/json-text.ts writes it as a computed key).
 */
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { generate } from '../../codegen/generate.js';
import type { OperationDefinition } from '../../src/runtime/types.js';
import { makeTempDir, REPO_ROOT } from './support.js';

type Obj = Record<string, unknown>;
const SPEC = path.join(REPO_ROOT, 'test/fixtures/codegen-robust/proto-key.yaml');

describe('a schema property named __proto__', function () {
  this.timeout(60_000);

  it('is an own property of the generated module\'s schemas, inline and shared', async () => {
    // Type-checked too: the computed key is valid TypeScript in the typed literal.
    const result = await generate(SPEC);
    const out = makeTempDir('kobana-proto-key-');
    for (const [file, text] of result.files) {
      mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
      writeFileSync(path.join(out, file), text);
    }
    const file = [...result.files.keys()].find((name) => name.startsWith('operations/'))!;
    const { operation } = await import(pathToFileURL(path.join(out, file)).href) as { operation: OperationDefinition };
    const body = operation.requestBody!.content['application/json'] as { properties: Obj };
    expect(Object.getPrototypeOf(body.properties)).to.equal(Object.prototype);
    expect(Object.keys(body.properties)).to.deep.equal(['__proto__', 'text']);
    expect(Object.hasOwn(body.properties, '__proto__')).to.equal(true);
    expect((body.properties['__proto__'] as Obj).description).to.equal('an inline property named __proto__');
    const response = operation.successResponse;
    expect(response.kind).to.equal('json');
    const shared = (response.kind === 'json' ? response.schema.properties : {}) as Obj;
    expect(Object.keys(shared)).to.deep.equal(['__proto__', 'id']);
    expect((shared['__proto__'] as Obj).description).to.equal('a shared property named __proto__');
  });
});
