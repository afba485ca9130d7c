// mocha's settings for `npm test` and `npx mocha`. Without file arguments the run is the whole
// suite (test/**/*.test.ts); `npm test -- test/api/money.test.ts` (one file, several, or a glob)
// runs only those: scripts/mocha-spec.cjs.
'use strict';

const { specFor } = require('./scripts/mocha-spec.cjs');

module.exports = {
  'node-option': ['import=tsx'],
  spec: specFor(process.argv.slice(2)),
  extension: ['ts'],
  recursive: true,
  timeout: 20000,
  reporter: 'spec',
  exit: true,
  require: ['test/helpers/root-hooks.ts'],
};
