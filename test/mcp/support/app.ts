/**
 * The MCP tests' view of the shared test harness (test/helpers): a real app on loopback, real
 * minted tokens, SQLite (PostgreSQL when DATABASE_URL is set).
 */
export { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** The scopes of an all-powerful personal token (reads and writes, money included). */
export const ALL_WRITE = 'finance.all.write';
export const ALL_READ = 'finance.all';
