/**
 * A document with many dangling `$ref`s (issue 28, fix 3) is refused with every one of them at
 * once, each at the `file#pointer` it is written at — here five, across the root file and a file
 * it references (missing pointers inside and across files, missing files) — one `error:` line each.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CodegenError } from '../../codegen/errors.js';
import { loadSpec } from '../../codegen/load-spec.js';
import { makeTempDir, REPO_ROOT, runCli } from './support.js';

const DIR = 'test/fixtures/codegen-robust/dangling-refs';
const SPEC = path.join(REPO_ROOT, DIR, 'openapi.yaml');
const EXPECTED = [
  `${DIR}/openapi.yaml#/paths/~1things/post/requestBody/content/application~1json/schema/$ref: $ref target "#/components/schemas/Missing" does not exist`,
  `${DIR}/schemas.yaml#/Thing/properties/owner/$ref: $ref target "#/Owner" does not exist`,
  `${DIR}/schemas.yaml#/Thing/properties/kind/$ref: $ref file "kinds.yaml" does not exist`,
  `${DIR}/openapi.yaml#/paths/~1others/get/parameters/0/$ref: $ref file "parameters.yaml" does not exist`,
  `${DIR}/openapi.yaml#/paths/~1others/get/responses/200/content/application~1json/schema/$ref: $ref target "schemas.yaml#/Nope" does not exist`,
];

describe('dangling references', function () {
  this.timeout(60_000);

  it('are all reported at once, each with its file#pointer', async () => {
    const error = await loadSpec(SPEC).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(AggregateError);
    const errors = (error as AggregateError).errors as CodegenError[];
    expect(errors.every((e) => e instanceof CodegenError && e.code === 'INVALID_DOCUMENT')).to.equal(true);
    expect(errors.map((e) => e.message)).to.deep.equal(EXPECTED);
  });

  it('the CLI prints one error line each and writes nothing', () => {
    const out = path.join(makeTempDir(), 'out');
    const run = runCli(['--spec', SPEC, '--out', out, '--quiet']);
    expect(run.status).to.equal(1);
    expect(run.stderr.trim().split('\n')).to.deep.equal(EXPECTED.map((line) => `error: ${line}`));
    expect(existsSync(out)).to.equal(false);
  });
});
