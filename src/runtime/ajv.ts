/**
 * The one ajv configuration (JSON Schema 2020-12 + formats) of the Finance API: the server
 * validates with it (src/api/validation.ts) and the generator compiles every tool's schemas with
 * it before writing them (codegen/generate.ts, check phase), so a schema that reaches generated/
 * is one the server can compile. Here, below both, because codegen/ reaches only src/runtime.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';

// ajv-formats ships CJS with `module.exports = formatsPlugin` + `.default`; under NodeNext the
// default import is the module object, so pick whichever is callable.
type AddFormats = (ajv: Ajv2020, options?: { mode?: 'fast' | 'full' }) => Ajv2020;
const addFormats: AddFormats =
  (addFormatsImport as unknown as { default?: AddFormats }).default ?? (addFormatsImport as unknown as AddFormats);

/**
 * `quiet`: no console notes (an unknown `format` is ignored either way); the generator compiles
 * thousands of foreign schemas. `checkOnly`: the generator compiles a schema only to know that the
 * server can, and never runs the result, so ajv skips its optimizing passes over the generated code
 * (they change how fast a validator runs, not whether a schema compiles; a third of the compile time).
 */
export function createAjv(options: { readonly quiet?: boolean; readonly checkOnly?: boolean } = {}): Ajv2020 {
  // allErrors: every failing field is reported (issue 4 §8); strict off: OpenAPI keywords
  // (example, x-kobana-*, discriminator) appear inside schemas.
  const ajv = new Ajv2020({
    allErrors: true, strict: false, coerceTypes: false, useDefaults: false,
    ...(options.quiet ? { logger: false } : {}), ...(options.checkOnly ? { code: { optimize: false } } : {}),
  });
  // "full" mode checks real calendar dates (2026-02-30 fails) and full date-times.
  addFormats(ajv, { mode: 'full' });
  return ajv;
}
