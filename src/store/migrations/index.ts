/**
 * The static list of migrations (one set for SQLite and PostgreSQL). Append only: never edit
 * a migration that has shipped; add the next numbered file and register it here.
 */
import type { Migration } from 'kysely';
import * as identity from './0001-identity.js';
import * as finance from './0002-finance.js';
import * as foreignKeys from './0003-foreign-keys.js';
import * as accountKeys from './0004-account-keys.js';
import * as identityVersions from './0005-identity-versions.js';
import * as workspaceTimezone from './0006-workspace-timezone.js';
import * as statements from './0007-statements.js';
import * as oauthRecords from './0008-oauth-records.js';
import * as writeProbe from './0009-write-probe.js';
import * as moneyControls from './0010-money-controls.js';
import * as paymentCodes from './0011-payment-codes.js';

export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-identity': identity,
  '0002-finance': finance,
  '0003-foreign-keys': foreignKeys,
  '0004-account-keys': accountKeys,
  '0005-identity-versions': identityVersions,
  '0006-workspace-timezone': workspaceTimezone,
  '0007-statements': statements,
  '0008-oauth-records': oauthRecords,
  '0009-write-probe': writeProbe,
  '0010-money-controls': moneyControls,
  '0011-payment-codes': paymentCodes,
};
