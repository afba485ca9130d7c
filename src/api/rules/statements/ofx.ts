/**
 * Reads the transactions of an OFX bank or credit-card statement (OFX 1.x SGML or 2.x XML) with
 * `ofx-js`, after a linear pre-screen that keeps hostile files from the library's slow paths:
 *
 * - ofx-js turns SGML into XML with `/<([A-Z0-9_]*)+\.+([A-Z0-9_]*)>/`, whose nested quantifier
 *   backtracks exponentially in the length of an upper-case tag name (a 24-letter name costs a
 *   second, 30 letters minutes). Tag names are lower-cased here (but `OFX`, which the library
 *   splits on), so that class never matches more than nothing;
 * - its XML reader scans the rest of the text for an attribute after every tag name followed by
 *   anything but `>`, quadratic on `<A B<A B…`: every `<` must open `<name>` or `</name>`;
 * - `\s+<` and `>\s+` are quadratic on long whitespace runs: runs are collapsed to one character.
 *
 * Anything that does not read as a statement is a `ParseFailure` (the operation answers 422).
 *
 * Before any of that, `prescanOfx` counts the file's tags against the contract's bound
 * (statements.import, x-kobana-bounds.max_tags) and refuses a NUL byte, in native byte scans on
 * the event loop; the parse itself runs in a worker thread (ofx-thread.ts), so even a legal file
 * at the bounds never blocks the process. A file over a bound is an `OfxBoundExceeded`.
 */
import { parseSync } from 'ofx-js';
import { operation as importStatement } from '../../../../generated/operations/statements_import.gen.js';

/** The contract's bounds of one statement file (statements.import, x-kobana-bounds). */
export const STATEMENT_FILE_BOUNDS: { readonly maxLines: number; readonly maxTags: number } = readFileBounds();

function readFileBounds(): { maxLines: number; maxTags: number } {
  const { maxLines, maxTags } = importStatement.bounds ?? {};
  if (typeof maxLines !== 'number' || typeof maxTags !== 'number') throw new Error('statements.import declares no x-kobana-bounds.max_lines / max_tags');
  return { maxLines, maxTags };
}

export class OfxParseFailure extends Error {}

/** A file beyond one of the contract's bounds: `bound` is the x-kobana-bounds key, `limit` its value. */
export class OfxBoundExceeded extends Error {
  constructor(readonly bound: 'max_tags' | 'max_lines', readonly limit: number) {
    super(`the file exceeds ${bound} (${limit})`);
    this.name = 'OfxBoundExceeded';
  }
}

const LT = 0x3c;
const NUL = 0x00;

/**
 * Linear and allocation-free (native `indexOf` over the bytes): more than `maxTags` `<` is
 * OfxBoundExceeded; a NUL byte — never part of an OFX text, and refused by PostgreSQL in a text
 * column — is a ParseFailure, on either database alike.
 */
export function prescanOfx(bytes: Uint8Array, maxTags: number): void {
  if (bytes.indexOf(NUL) >= 0) throw new OfxParseFailure('a NUL byte');
  let tags = 0;
  for (let at = bytes.indexOf(LT); at >= 0; at = bytes.indexOf(LT, at + 1)) {
    tags += 1;
    if (tags > maxTags) throw new OfxBoundExceeded('max_tags', maxTags);
  }
}

export interface OfxLine {
  readonly fitid: string;
  readonly postedOn: string;
  readonly type: 'credit' | 'debit';
  readonly amountCents: number;
  readonly description: string;
  readonly counterparty: string | null;
}

const TAG = /<(\/?)([A-Za-z][A-Za-z0-9_.]{0,31})>/g;
/** The same, anchored where it is tried (sticky): checking every `<` stays linear. */
const TAG_AT = /<\/?[A-Za-z][A-Za-z0-9_.]{0,31}>/y;
const MAX_CENTS = 99_999_999_999_999;

/** The text from `<OFX>` on, made safe for the parser, or a failure. */
function screen(text: string): string {
  const start = text.indexOf('<OFX>');
  if (start < 0) throw new OfxParseFailure('no <OFX> element');
  const header = text.slice(0, start);
  const body = text.slice(start).replace(/\s+/g, (run) => (run.includes('\n') ? '\n' : ' '));
  // Every `<` opens a plain tag; nothing else (comments, attributes, processing instructions).
  let tags = 0;
  for (let at = body.indexOf('<'); at >= 0; at = body.indexOf('<', at + 1)) {
    TAG_AT.lastIndex = at;
    if (!TAG_AT.test(body)) throw new OfxParseFailure('a malformed tag');
    tags += 1;
  }
  if (tags < 2) throw new OfxParseFailure('no elements');
  const lowered = body.replace(TAG, (_all, slash: string, name: string) => (name === 'OFX' ? `<${slash}OFX>` : `<${slash}${name.toLowerCase().replace(/\./g, '')}>`));
  return `${header}${lowered}`;
}

function asList(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  return Array.isArray(value) ? value : [value];
}

function child(node: unknown, name: string): unknown {
  return node !== null && typeof node === 'object' && !Array.isArray(node) ? (node as Record<string, unknown>)[name] : undefined;
}

function text(node: unknown): string {
  return typeof node === 'string' ? node.trim() : '';
}

/** `20260305`, `20260305120000`, `20260305120000.000[-3:BRT]` → `2026-03-05` (the bank's own date). */
function readDate(raw: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})/.exec(raw);
  if (!m) throw new OfxParseFailure('a transaction without a valid DTPOSTED');
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  const parsed = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== date) throw new OfxParseFailure('an impossible DTPOSTED');
  return date;
}

/** `-120.50`, `+40`, `1234,5` (Brazilian banks write a decimal comma) → signed cents. */
function readAmount(raw: string): number {
  const m = /^([+-]?)(\d{1,12})(?:[.,](\d{1,2}))?$/.exec(raw);
  if (!m) throw new OfxParseFailure('a transaction without a valid TRNAMT');
  const cents = Number(m[2]) * 100 + Number((m[3] ?? '0').padEnd(2, '0'));
  if (cents === 0 || cents > MAX_CENTS) throw new OfxParseFailure('a zero or out-of-range TRNAMT');
  return m[1] === '-' ? -cents : cents;
}

/** Every statement transaction list of the file: bank (`stmtrs`) and credit card (`ccstmtrs`). */
function findTransactions(ofx: unknown): unknown[] {
  const found: unknown[] = [];
  for (const [set, wrapper, statement] of [['bankmsgsrsv1', 'stmttrnrs', 'stmtrs'], ['creditcardmsgsrsv1', 'ccstmttrnrs', 'ccstmtrs']] as const) {
    for (const response of asList(child(child(ofx, set), wrapper))) {
      for (const list of asList(child(child(response, statement), 'banktranlist'))) found.push(...asList(child(list, 'stmttrn')));
    }
  }
  return found;
}

/** The file's lines; at most `maxLines` transactions (the contract's x-kobana-bounds.max_lines), else OfxBoundExceeded. */
export function parseOfxStatement(bytes: Uint8Array, maxLines: number): OfxLine[] {
  // OFX 1.x is often Latin-1 (CHARSET:1252); a lone byte ≥ 0x80 then reads as U+FFFD, which is
  // kept rather than guessed.
  const raw = new TextDecoder('utf-8').decode(bytes);
  let parsed: { OFX: unknown };
  try {
    parsed = parseSync(screen(raw));
  } catch (err) {
    if (err instanceof OfxParseFailure) throw err;
    throw new OfxParseFailure('not an OFX document');
  }
  if (!parsed.OFX || typeof parsed.OFX !== 'object') throw new OfxParseFailure('no OFX element');
  const transactions = findTransactions(parsed.OFX);
  if (transactions.length > maxLines) throw new OfxBoundExceeded('max_lines', maxLines);
  return transactions.map((t) => {
    const fitid = text(child(t, 'fitid'));
    if (fitid === '' || fitid.length > 255) throw new OfxParseFailure('a transaction without a valid FITID');
    const signed = readAmount(text(child(t, 'trnamt')));
    const name = text(child(t, 'name')).slice(0, 255);
    const memo = text(child(t, 'memo')).slice(0, 255);
    return {
      fitid, postedOn: readDate(text(child(t, 'dtposted'))), type: signed < 0 ? 'debit' : 'credit', amountCents: Math.abs(signed),
      description: memo || name || text(child(t, 'trntype')) || 'Lançamento', counterparty: name || null,
    };
  });
}
