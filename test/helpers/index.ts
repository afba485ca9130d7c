/** Test helpers in one import: the test app, test databases, demo ids. */
export { startTestApp, type TestApp, type StartTestAppOptions } from './test-app.js';
export { openTestDatabase, createTestSchema, buildTestConfig, type TestDatabase, type TestSchema } from './database.js';
export { DEMO } from '../../src/seed/ids.js';
export { buildDefaultClaims, craftToken, craftUnsignedToken, loadTestAppKey, readJti, type CraftOptions } from './tokens.js';
