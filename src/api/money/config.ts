/**
 * The money controls' configuration (docs/security.md#money-controls): spending limits, the
 * payee-allowlist requirement and the approval thresholds of one workspace, stored as JSON in
 * `security_settings.money_controls` and changed only through the Seguridad settings (REST,
 * `finance.security.write`, a personal token).
 *
 *   parseStoredControls(text): MoneyControls         // the stored JSON, read defensively (unknown keys ignored)
 *   readControlsInput(value, current): MoneyControls // a Seguridad update's `money_controls`, VALIDATION_ERROR on anything wrong
 *   toStoredControls(c) / toControlsJson(c)          // the stored JSON / the wire form (Money strings)
 *   loadMoneyControls(db, workspaceId): Promise<MoneyControls>
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import { validationError, type ValidationIssue } from '../errors.js';
import { formatCents, parseMoneyInput } from '../money.js';

export const LIMIT_WINDOWS = ['move', '24h', '1h'] as const;
export type LimitWindow = (typeof LIMIT_WINDOWS)[number];
export const CONTROLLED_CHANNELS = ['api', 'mcp'] as const;
export type ControlledChannel = (typeof CONTROLLED_CHANNELS)[number];
export const LIMIT_TOKEN_TYPES = ['oauth', 'personal'] as const;
export type LimitTokenType = (typeof LIMIT_TOKEN_TYPES)[number];

/** One spending limit: an amount per move (`move`), a total per rolling 24 h (`24h`) or a count per rolling hour (`1h`). */
export interface SpendingLimit {
  readonly window: LimitWindow;
  /** `move` and `24h`. */
  readonly amountCents: number | null;
  /** `1h`. */
  readonly count: number | null;
  readonly channels: readonly ControlledChannel[];
  /** Only the moves this member makes (and only they are limited by it); null: everyone's. */
  readonly madeBy: string | null;
  /** Only moves made with this kind of token; null: any. */
  readonly tokenType: LimitTokenType | null;
}

export interface MoneyControls {
  readonly limits: readonly SpendingLimit[];
  /** The channels whose money moves must go to allowlisted payment destinations (`payee_allowlist.required_on`). */
  readonly allowlistChannels: readonly ControlledChannel[];
  /** Above this total a confirmed move becomes an approval request; null: never. */
  readonly approvalThresholdCents: Readonly<Record<ControlledChannel, number | null>>;
  /** How long an approval request waits for a second person. */
  readonly approvalExpiryHours: number;
}

/** At most this many limits per workspace (each one is a query per money move). */
export const MAX_LIMITS = 20;
export const DEFAULT_APPROVAL_EXPIRY_HOURS = 24;
/** An approval request waits at most a week. */
export const MAX_APPROVAL_EXPIRY_HOURS = 168;
/** The largest hourly count a limit may set. */
export const MAX_LIMIT_COUNT = 100_000;

export const NO_MONEY_CONTROLS: MoneyControls = Object.freeze({
  limits: Object.freeze([]) as readonly SpendingLimit[],
  allowlistChannels: Object.freeze([]) as readonly ControlledChannel[],
  approvalThresholdCents: Object.freeze({ api: null, mcp: null }),
  approvalExpiryHours: DEFAULT_APPROVAL_EXPIRY_HOURS,
});

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads a configuration, collecting every issue under `base`; `strict` refuses unknown keys and bad values (a request), else they are skipped (stored JSON). */
class Reader {
  readonly issues: ValidationIssue[] = [];
  constructor(readonly strict: boolean, readonly base: string) {}

  fail(path: string, message: string): void {
    if (this.strict) this.issues.push({ path: `${this.base}.${path}`, message });
  }

  keys(value: Obj, allowed: readonly string[], path: string): void {
    for (const key of Object.keys(value)) if (!allowed.includes(key)) this.fail(path ? `${path}.${key}` : key, 'is not a known field');
  }

  channels(value: unknown, path: string): ControlledChannel[] | null {
    if (!Array.isArray(value) || value.some((c) => !CONTROLLED_CHANNELS.includes(c as ControlledChannel))) {
      this.fail(path, 'must be a list of channels: api, mcp');
      return null;
    }
    return CONTROLLED_CHANNELS.filter((c) => value.includes(c));
  }

  amount(value: unknown, path: string): number | null {
    try {
      return parseMoneyInput(value, `${this.base}.${path}`);
    } catch {
      this.fail(path, 'must be an amount greater than zero with at most 2 decimal places');
      return null;
    }
  }

  limit(value: unknown, path: string): SpendingLimit | null {
    if (!isObject(value)) {
      this.fail(path, 'must be an object');
      return null;
    }
    this.keys(value, ['window', 'amount', 'count', 'channels', 'made_by', 'token_type'], path);
    const window = value['window'];
    if (!LIMIT_WINDOWS.includes(window as LimitWindow)) {
      this.fail(`${path}.window`, 'must be move, 24h or 1h');
      return null;
    }
    let amountCents: number | null = null;
    let count: number | null = null;
    if (window === '1h') {
      const raw = value['count'];
      if (raw === undefined) this.fail(`${path}.count`, 'is required: a 1h limit counts moves');
      else if (!Number.isInteger(raw) || (raw as number) < 1 || (raw as number) > MAX_LIMIT_COUNT) this.fail(`${path}.count`, `must be an integer from 1 to ${MAX_LIMIT_COUNT}`);
      else count = raw as number;
      if (value['amount'] !== undefined) this.fail(`${path}.amount`, 'is not used by a 1h limit (it counts moves)');
    } else {
      if (value['amount'] === undefined) this.fail(`${path}.amount`, `is required: a ${String(window)} limit sums amounts`);
      else amountCents = this.amount(value['amount'], `${path}.amount`);
      if (value['count'] !== undefined) this.fail(`${path}.count`, `is not used by a ${String(window)} limit (it sums amounts)`);
    }
    const channels = this.channels(value['channels'] ?? ['api', 'mcp'], `${path}.channels`);
    if (channels && channels.length === 0) this.fail(`${path}.channels`, 'must name at least one channel');
    const person = value['made_by'] ?? null;
    if (person !== null && (typeof person !== 'string' || !UUID.test(person))) this.fail(`${path}.made_by`, 'must be a member\'s person id or null');
    const tokenType = value['token_type'] ?? null;
    if (tokenType !== null && !LIMIT_TOKEN_TYPES.includes(tokenType as LimitTokenType)) this.fail(`${path}.token_type`, 'must be oauth, personal or null');
    if ((amountCents === null && count === null) || !channels || channels.length === 0) return null;
    return {
      window: window as LimitWindow, amountCents, count, channels,
      madeBy: typeof person === 'string' && UUID.test(person) ? person.toLowerCase() : null,
      tokenType: LIMIT_TOKEN_TYPES.includes(tokenType as LimitTokenType) ? tokenType as LimitTokenType : null,
    };
  }

  controls(value: unknown, current: MoneyControls): MoneyControls {
    if (!isObject(value)) {
      this.fail('', 'must be an object');
      return current;
    }
    this.keys(value, ['limits', 'payee_allowlist', 'approvals'], '');
    let limits = current.limits;
    if (value['limits'] !== undefined) {
      const raw = value['limits'];
      if (!Array.isArray(raw) || raw.length > MAX_LIMITS) this.fail('limits', `must be a list of at most ${MAX_LIMITS} limits`);
      else limits = raw.map((item, i) => this.limit(item, `limits[${i}]`)).filter((l): l is SpendingLimit => l !== null);
    }
    let allowlistChannels = current.allowlistChannels;
    const allowlist = value['payee_allowlist'];
    if (allowlist !== undefined) {
      if (!isObject(allowlist)) this.fail('payee_allowlist', 'must be an object');
      else {
        this.keys(allowlist, ['required_on'], 'payee_allowlist');
        allowlistChannels = this.channels(allowlist['required_on'] ?? [], 'payee_allowlist.required_on') ?? allowlistChannels;
      }
    }
    let thresholds = current.approvalThresholdCents;
    let expiry = current.approvalExpiryHours;
    const approvals = value['approvals'];
    if (approvals !== undefined) {
      if (!isObject(approvals)) this.fail('approvals', 'must be an object');
      else {
        this.keys(approvals, ['thresholds', 'expires_after_hours'], 'approvals');
        const raw = approvals['thresholds'];
        if (raw !== undefined) {
          if (!isObject(raw)) this.fail('approvals.thresholds', 'must be an object with api and mcp');
          else {
            this.keys(raw, CONTROLLED_CHANNELS, 'approvals.thresholds');
            const next: Record<ControlledChannel, number | null> = { ...thresholds };
            for (const channel of CONTROLLED_CHANNELS) {
              if (raw[channel] === undefined) continue;
              next[channel] = raw[channel] === null ? null : this.amount(raw[channel], `approvals.thresholds.${channel}`);
            }
            thresholds = next;
          }
        }
        const hours = approvals['expires_after_hours'];
        if (hours !== undefined) {
          if (!Number.isInteger(hours) || (hours as number) < 1 || (hours as number) > MAX_APPROVAL_EXPIRY_HOURS) {
            this.fail('approvals.expires_after_hours', `must be an integer from 1 to ${MAX_APPROVAL_EXPIRY_HOURS}`);
          } else expiry = hours as number;
        }
      }
    }
    return { limits, allowlistChannels, approvalThresholdCents: thresholds, approvalExpiryHours: expiry };
  }
}

/** The stored JSON, read defensively: anything unreadable is left out, never trusted. */
export function parseStoredControls(text: string | null | undefined): MoneyControls {
  if (!text) return NO_MONEY_CONTROLS;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return NO_MONEY_CONTROLS;
  }
  return new Reader(false, 'money_controls').controls(parsed, NO_MONEY_CONTROLS);
}

/** A Seguridad update's `money_controls` over the current configuration: a section present replaces it, absent keeps it. */
export function readControlsInput(value: unknown, current: MoneyControls): MoneyControls {
  const reader = new Reader(true, 'money_controls');
  const next = reader.controls(value, current);
  if (reader.issues.length > 0) throw validationError(reader.issues);
  return next;
}

/** The wire form (Money strings), which is also what is stored. */
export function toControlsJson(controls: MoneyControls): Record<string, unknown> {
  return {
    limits: controls.limits.map((l) => ({
      window: l.window,
      ...(l.amountCents !== null ? { amount: formatCents(l.amountCents) } : {}),
      ...(l.count !== null ? { count: l.count } : {}),
      channels: [...l.channels],
      made_by: l.madeBy,
      token_type: l.tokenType,
    })),
    payee_allowlist: { required_on: [...controls.allowlistChannels] },
    approvals: {
      thresholds: Object.fromEntries(CONTROLLED_CHANNELS.map((c) => [c, controls.approvalThresholdCents[c] === null ? null : formatCents(controls.approvalThresholdCents[c] as number)])),
      expires_after_hours: controls.approvalExpiryHours,
    },
  };
}

export function toStoredControls(controls: MoneyControls): string {
  return JSON.stringify(toControlsJson(controls));
}

export async function loadMoneyControls(db: Kysely<Database>, workspaceId: string): Promise<MoneyControls> {
  const row = await db.selectFrom('security_settings').select('money_controls').where('workspace_id', '=', workspaceId).executeTakeFirst();
  return parseStoredControls(row?.money_controls);
}
