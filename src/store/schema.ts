/**
 * The database schema as Kysely sees it, for SQLite (embedded) and PostgreSQL (replicas) alike.
 * Portable column types only: ids are UUID text, timestamps ISO-8601 UTC text, dates
 * `YYYY-MM-DD` text, money integer cents, booleans 0/1 integers, JSON as text.
 * Every finance table carries `workspace_id`; identity tables carry `organization_id`.
 * The generated `fk_*` columns of migration 0003 (foreign keys of polymorphic references,
 * docs/data-model.md) are left out on purpose: the application never reads or writes them.
 */
import type { Generated } from 'kysely';

/** Columns every finance record carries (docs/domain.md#conventions). */
export interface AuditColumns {
  created_at: string;
  updated_at: string;
  created_by: string;
  updated_by: string;
  created_via: 'api' | 'mcp' | 'web';
  updated_via: 'api' | 'mcp' | 'web';
  /** Incremented on every update; bound into confirmation state. */
  version: number;
}

// ---- identity -------------------------------------------------------------------------

export interface OrganizationsTable { id: string; name: string; created_at: string; deleted_at: string | null }
/** `timezone`: IANA name, the workspace's "today" (migration 0006). */
export interface WorkspacesTable { id: string; organization_id: string; name: string; created_at: string; timezone: Generated<string> }
export interface PersonsTable { id: string; email: string; name: string; created_at: string; deleted_at: string | null }
export interface MembershipsTable {
  id: string;
  organization_id: string;
  person_id: string;
  status: 'active' | 'inactive';
  is_admin: number;
  /** JSON array of panel permissions, e.g. `["payables.view"]`. */
  permissions: string;
  created_at: string;
}
export interface MembershipWorkspacesTable { membership_id: string; workspace_id: string }
export interface RevokedTokensTable { jti: string; revoked_at: string; expires_at: string }
/** The embedded Account's signing keys (PostgreSQL; SQLite keeps `account-key.json`): private JWK as JSON text. */
export interface AccountKeysTable { kid: string; private_jwk: string; created_at: string; retired_at: string | null }
/**
 * One counter per organization, incremented by database triggers in the transaction of every
 * membership, granted-workspace, workspace or Seguridad change (migration 0005).
 */
export interface IdentityVersionsTable { organization_id: string; version: number }
/** Secrets replicas share (PostgreSQL): `confirmation-key` → base64url, unless CONFIRMATION_KEY overrides it. */
export interface SharedSecretsTable { name: string; value: string; created_at: string }
/** The embedded OAuth server's state (src/oauth/adapter.ts): one row per oidc-provider model instance. */
export interface OAuthRecordsTable {
  model: string; id: string; payload: string; grant_id: string | null; uid: string | null;
  expires_at: string | null; consumed_at: string | null;
}
/** The write probe's scratch row (src/store/write-probe.ts): inserted and deleted in one transaction. */
export interface WriteProbesTable {
  id: string; payload: Uint8Array;
}

// ---- finance --------------------------------------------------------------------------

export interface CompaniesTable extends AuditColumns {
  id: string; workspace_id: string; cnpj: string; name: string; trade_name: string | null; active: number; deleted_at: string | null;
}
export interface AccountsTable extends AuditColumns {
  id: string; workspace_id: string; name: string;
  type: 'checking' | 'savings' | 'cash' | 'investment' | 'credit';
  bank_code: string | null; agency: string | null; account_number: string | null; active: number;
}
export interface CategoriesTable extends AuditColumns {
  id: string; workspace_id: string; name: string; type: 'debit' | 'credit'; parent_id: string | null; level: number;
}
export interface CostCentersTable extends AuditColumns {
  id: string; workspace_id: string; name: string; type: 'cost' | 'revenue' | 'both'; active: number;
}
export interface PeopleTable extends AuditColumns {
  id: string; workspace_id: string; name: string; kind: 'natural' | 'juridical'; document_number: string | null;
  is_customer: number; is_supplier: number; emails: string; deleted_at: string | null;
  /** Payment details (migration 0010): the destinations a payee allowlist approves. */
  pix_key: string | null; bank_code: string | null; agency: string | null; account_number: string | null;
}
export interface TaxesTable extends AuditColumns {
  id: string; workspace_id: string; name: string; default_rate: string; active: number;
}
/** Payables and receivables ("títulos"): one table, told apart by `kind`. */
export interface TitlesTable extends AuditColumns {
  id: string; workspace_id: string; kind: 'payable' | 'receivable';
  description: string; amount_cents: number; due_date: string; competence_date: string;
  status: 'pending' | 'paid' | 'received' | 'cancelled';
  person_id: string; category_id: string | null; financial_account_id: string | null;
  document_number: string | null; notes: string | null; payment_date: string | null;
  paid_amount_cents: number | null; interest_cents: number | null; discount_cents: number | null;
  transaction_id: string | null;
  /** The code the payable was recorded from (migration 0011; src/api/operations/payables-from-code.ts), null when typed by hand. */
  payment_code_kind: Generated<PaymentCodeKind | null>;
  /** The boleto's 44-digit barcode, or the BR Code payload as read. */
  payment_code: Generated<string | null>;
  /** The identity of one payment (the barcode; `pix:<txid>`), unique per workspace over titles not cancelled; null when the code names none. */
  payment_code_key: Generated<string | null>;
  /** JSON: what the code said when recorded (barcode, digitable_line, payload, pix_key, txid, location), the payable's `payment_code`. */
  payment_code_details: Generated<string | null>;
}
export type PaymentCodeKind = 'boleto' | 'utility' | 'pix_static' | 'pix_dynamic';
export interface AllocationsTable {
  id: string; workspace_id: string; parent_type: 'payable' | 'receivable' | 'transaction'; parent_id: string;
  cost_center_id: string; percentage: string | null; amount_cents: number; position: number;
}
export interface TransactionsTable extends AuditColumns {
  id: string; workspace_id: string; financial_account_id: string; type: 'debit' | 'credit';
  amount_cents: number; occurred_at: string; description: string | null; category_id: string | null;
  person_id: string | null; source: 'manual' | 'settlement' | 'transfer'; source_id: string | null;
}
export interface TransfersTable extends AuditColumns {
  id: string; workspace_id: string; from_account_id: string; to_account_id: string; amount_cents: number;
  occurred_at: string; description: string | null; debit_transaction_id: string; credit_transaction_id: string;
}
/** Content-addressed bytes, stored once per workspace. */
export interface BlobsTable { workspace_id: string; sha256: string; size: number; bytes: Uint8Array; created_at: string }
export interface AttachmentsTable extends AuditColumns {
  id: string; workspace_id: string; sha256: string; file_name: string; title: string | null; content_type: string; size: number;
}
export interface AttachmentLinksTable {
  id: string; workspace_id: string; attachment_id: string; parent_type: 'payable' | 'receivable' | 'transaction';
  parent_id: string; created_at: string; created_by: string;
}
export interface ActivityTable {
  id: string; workspace_id: string; person_id: string; channel: 'api' | 'mcp' | 'web' | 'link';
  operation: string; resource: string; record_id: string | null; created_at: string;
  /** JSON or null (migration 0010): a configuration change's `{changes: [{field, old, new}]}`, a move's approver. */
  details: Generated<string | null>;
}
export interface IdempotencyKeysTable {
  workspace_id: string; person_id: string; key: string; operation_id: string; request_hash: string;
  response_status: number; response_body: string | null; created_at: string; expires_at: string;
}
export interface SecuritySettingsTable {
  workspace_id: string;
  /** JSON: `{"api": ["move_money", …], "mcp": [...]}`; actions create|update|delete|move_money|upload. */
  blocked: string;
  /** JSON or null (migration 0010): limits, payee allowlist, approvals (src/api/money/config.ts). */
  money_controls: Generated<string | null>;
  updated_at: string; updated_by: string; version: number;
}
/** One outflow that ran (migration 0010): what the spending limits count. */
export interface MoneyMovesTable {
  id: string; workspace_id: string; operation_id: string; channel: 'api' | 'mcp' | 'web'; person_id: string;
  token_type: 'oauth' | 'personal'; amount_cents: number; record_id: string | null; approval_request_id: string | null; occurred_at: string;
}
/** A payment destination of a person someone approved (migration 0010). */
export interface PayeeAllowlistTable {
  id: string; workspace_id: string; person_id: string; kind: 'document_number' | 'pix_key' | 'bank_account'; value: string;
  approved_by: string; approved_at: string;
}
/** A confirmed money move waiting for a second person (migration 0010). */
export interface ApprovalRequestsTable {
  id: string; workspace_id: string; operation_id: string;
  /** JSON of the call's OperationInput (path, query, body; never the idempotency key). */
  input: string;
  sentence: string; amount_cents: number;
  /** JSON: the measured items (record, amount, payee, account, version). */
  items: string;
  person_id: string | null; financial_account_id: string | null;
  requested_by: string; requested_via: 'api' | 'mcp' | 'web'; token_type: 'oauth' | 'personal';
  status: 'pending_approval' | 'approved' | 'rejected';
  created_at: string; expires_at: string;
  decided_by: string | null; decided_via: 'api' | 'web' | null; decided_at: string | null; decision_reason: string | null;
  /** JSON of the move's answer once approved. */
  result: string | null;
  version: number;
}
export interface ConfirmationNoncesTable {
  nonce: string; workspace_id: string; person_id: string; tool: string; consumed_at: string; expires_at: string;
}

/** An imported bank statement line (migration 0007); unique per (workspace, account, fitid). */
export interface StatementLinesTable extends AuditColumns {
  id: string; workspace_id: string; financial_account_id: string; fitid: string; posted_on: string; type: 'debit' | 'credit';
  amount_cents: number; description: string; counterparty: string | null; category_id: string | null; cost_center_id: string | null;
  person_id: string | null; rule_id: string | null; reconciliation_id: string | null;
}
export interface ReconciliationsTable extends AuditColumns { id: string; workspace_id: string }
export interface ReconciliationItemsTable {
  id: string; workspace_id: string; reconciliation_id: string; item_type: 'statement_line' | 'payable' | 'receivable' | 'transaction';
  item_id: string; amount_cents: number; settlement_transaction_id: string | null;
}
export interface ClassificationRulesTable extends AuditColumns {
  id: string; workspace_id: string; name: string; position: number; active: number;
  description_contains: string | null; counterparty_contains: string | null; min_amount_cents: number | null; max_amount_cents: number | null;
  financial_account_id: string | null; set_category_id: string | null; set_cost_center_id: string | null; set_person_id: string | null;
}
export interface Database {
  organizations: OrganizationsTable;
  workspaces: WorkspacesTable;
  persons: PersonsTable;
  memberships: MembershipsTable;
  membership_workspaces: MembershipWorkspacesTable;
  revoked_tokens: RevokedTokensTable;
  account_keys: AccountKeysTable;
  shared_secrets: SharedSecretsTable;
  identity_versions: IdentityVersionsTable;
  oauth_records: OAuthRecordsTable;
  write_probes: WriteProbesTable;
  companies: CompaniesTable;
  accounts: AccountsTable;
  categories: CategoriesTable;
  cost_centers: CostCentersTable;
  people: PeopleTable;
  taxes: TaxesTable;
  titles: TitlesTable;
  allocations: AllocationsTable;
  transactions: TransactionsTable;
  transfers: TransfersTable;
  blobs: BlobsTable;
  attachments: AttachmentsTable;
  attachment_links: AttachmentLinksTable;
  activity: ActivityTable;
  money_moves: MoneyMovesTable;
  payee_allowlist: PayeeAllowlistTable;
  approval_requests: ApprovalRequestsTable;
  idempotency_keys: IdempotencyKeysTable;
  security_settings: SecuritySettingsTable;
  confirmation_nonces: ConfirmationNoncesTable;
  statement_lines: StatementLinesTable;
  reconciliations: ReconciliationsTable;
  reconciliation_items: ReconciliationItemsTable;
  classification_rules: ClassificationRulesTable;
}
