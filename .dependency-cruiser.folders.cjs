/**
 * The folder view of the import rules: no cycle between folders (`npm run lint:deps` runs it
 * after the module rules of `.dependency-cruiser.cjs`, with the same options).
 *
 * One difference from the module view: the imports of generated/handlers.gen.ts are not followed
 * here. depcruise's folder view counts the top-level `src` folder twice — as the folder of the
 * wiring files (src/bootstrap.ts, which imports the handler index) and of src/config.ts (which
 * src/store imports), and as the sum of all of src/ — so the index's imports of src/api/operations
 * would close src → generated → src/api/operations → src/store → src, a cycle of folders that no
 * module makes; folder rules cannot tell it apart (depcruise 17 ignores `via` in folder scope).
 * The module view checks those imports (rules handler-index-only-operations and
 * registries-only-bootstrap, and no-module-cycles); cycles through every other generated module,
 * generated/operations included, are still caught here.
 */
const modules = require('./.dependency-cruiser.cjs');

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      comment: 'No cycle between folders.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    ...modules.options,
    doNotFollow: { path: ['node_modules', '^generated/handlers\\.gen\\.ts$'] },
  },
};
