/**
 * A type-check that could not run is not a type error: when tsc is killed by a signal or its
 * native binary is missing, the build fails saying so (`the type-check could not run: tsc …`),
 * not "generated code does not type-check (0 errors)" (codegen/emit/check.ts).
 */
import { expect } from 'chai';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CodegenError } from '../../codegen/errors.js';
import { typeCheckOutput } from '../../codegen/emit/check.js';
import { makeTempDir } from './support.js';

const FILES = new Map([['operations/a.gen.ts', 'export const a: number = 1;\n']]);

async function failure(tscScript: string): Promise<CodegenError> {
  const dir = makeTempDir('kobana-tsc-stand-in-');
  try {
    const tsc = path.join(dir, 'tsc.cjs');
    writeFileSync(tsc, tscScript);
    const error = await typeCheckOutput(FILES, { specFile: 'spec.yaml', tsc }).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(CodegenError);
    return error as CodegenError;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('a type-check that could not run', function () {
  this.timeout(30_000);

  it('names the signal that killed tsc', async () => {
    const error = await failure("process.kill(process.pid, 'SIGKILL');\n");
    expect(error.code).to.equal('TYPE_CHECK');
    expect(error.detail).to.equal('the type-check could not run: tsc was killed by SIGKILL');
  });

  it('names the exit code and what tsc said when its native binary is missing', async () => {
    const error = await failure("console.error('Could not find the native binary for linux-x64'); process.exit(1);\n");
    expect(error.code).to.equal('TYPE_CHECK');
    expect(error.detail).to.equal('the type-check could not run: tsc exited with code 1: Could not find the native binary for linux-x64');
  });

  it('still reports type errors as such', async () => {
    const error = await failure("console.log('generated/operations/a.gen.ts(1,14): error TS2322: Type \\'string\\' is not assignable to type \\'number\\'.'); process.exit(2);\n");
    expect(error.detail).to.match(/^generated code does not type-check \(1 errors\):\n {2}generated\/operations\/a\.gen\.ts\(1,14\): error TS2322/);
  });
});
