/**
 * Pix BR Codes ("copia e cola"; issue 30 items 1 and 2): the EMV MPM TLV payload of the Banco
 * Central's *Manual de Padrões para Iniciação do Pix* and BR Code manual, read and written here by
 * hand; the QR image is drawn by `qrcode`. Pure: no network, no clock, no database.
 *
 *   parsePixCode(text, path): PixCode            // VALIDATION_ERROR (at `path`) naming the failed check
 *   buildStaticPixCode(input): string             // VALIDATION_ERROR (path = the input field) unless valid
 *   renderPixQrPng(payload): Promise<Uint8Array>  // PNG, error correction M, 4-module quiet zone, 8 px a module
 *   pixCrc16(text): string                        // CRC16/CCITT-FALSE as 4 upper-case hex digits
 *
 * Why not a library for the code itself (evaluated in issue 30):
 * - `pix-utils` 2.8.2 parses and creates BR Codes, but its parser answers only 'invalid emv
 *   code' / 'invalid crc' / 'invalid pix' — never which field or check failed, which a
 *   VALIDATION_ERROR must name; it takes input of any length and recurses once per field;
 *   it checks neither the GUI (a template 26 with any GUI passes as Pix), nor the payload format
 *   indicator, currency (986) or country (BR), nor that the characters are printable ASCII; it reads
 *   the amount with `+` (so `1e3` is R$ 1,000.00, in floating point); a duplicate field silently
 *   replaces the first; it reads the account from id 26 only, whatever its GUI (another scheme's
 *   template in 26 gives its key, a Pix account in 27–51, which the manual allows, is refused); and a
 *   code without field 59, or whose template 62 or 80 does not hold sub-fields, makes it throw a
 *   TypeError instead of answering. Its runtime dependencies include axios (for the dynamic
 *   payload fetch, which needs the network). It stays as a test-only cross-check
 *   (test/api/codes/pix.test.ts parses every fixture with both). Its creator is not used either:
 *   it refuses a name over 25 characters instead of cutting it (the check runs before its
 *   transliteration), keeps letters that are not ASCII (ß, Ø) and does not check the txid's
 *   characters; the writer here emits the same field order, so for ASCII input both write the
 *   same code (tested).
 * - `pix-payload` 1.0.4 only creates, and writes the CRC without zero padding: one code in
 *   sixteen (any CRC below 0x1000) comes out as `6303` + three digits, which no reader accepts;
 *   it neither transliterates nor cuts the name and city, nor bounds the txid.
 * The QR image is a well-solved problem: `qrcode` 1.5.4 draws it.
 *
 * What is read: field 00 = 01 first; 01 (point of initiation) 11 or 12 when present; one Pix
 * merchant account among the templates 26–51 (GUI `br.gov.bcb.pix`, compared without regard to
 * case, as upper-case generators exist), carrying either a key (01; normalised as the payee
 * allowlist stores keys, normalizePixKey) — a static code, with optional description (02) — or a
 * location (25) — a dynamic code, whose amount and due date the location serves, so never taken
 * from the code; 52 (four digits), 53 = 986, 54 (amount, static only), 58 = BR, 59 (≤ 25), 60
 * (≤ 15), 62 with a txid (05: `***` = none; 1–25 letters and digits, up to 35 in a dynamic code
 * as the Pix API allows for its txids); 63 = the CRC, last. Every field is `id(2 digits)
 * length(2 digits) value`, non-empty, once; ids 65–79 (reserved) are refused, the others the EMV
 * layout defines (02–25 card schemes, 55–57, 61, 64, 80–99) are passed over. Only the first
 * failed check is reported, and never a piece of the input.
 */
import QRCode from 'qrcode';
import { validationError } from '../errors.js';
import { normalizePixKey } from '../money/destinations.js';

/** The longest BR Code (EMV MPM: 512 characters). */
export const MAX_BR_CODE_LENGTH = 512;
/** The Pix GUI of the merchant account template. */
export const PIX_GUI = 'br.gov.bcb.pix';
/** The manual's lengths of the merchant name (59), the merchant city (60) and a static code's txid (62.05). */
export const MAX_MERCHANT_NAME_LENGTH = 25;
export const MAX_MERCHANT_CITY_LENGTH = 15;
export const MAX_STATIC_TXID_LENGTH = 25;
const MAX_DYNAMIC_TXID_LENGTH = 35;
/** Field 54 holds at most 13 characters: 9999999999.99. */
const MAX_AMOUNT_CENTS = 999_999_999_999;
const MAX_LOCATION_LENGTH = 77;
const MAX_FIELD_VALUE_LENGTH = 99;

interface PixCodeCommon {
  readonly merchant_name: string;
  readonly merchant_city: string;
  /** The txid of field 62.05, null when `***`. */
  readonly txid: string | null;
  /** The code as read: surrounding white space removed, the CRC's hex digits upper-cased. */
  readonly payload: string;
}

export interface StaticPixCode extends PixCodeCommon {
  readonly kind: 'static';
  /** The payee's Pix key, normalised (normalizePixKey). */
  readonly key: string;
  readonly amount_cents: number | null;
  readonly description: string | null;
}

export interface DynamicPixCode extends PixCodeCommon {
  readonly kind: 'dynamic';
  /** The location (field 26.25) the payer's bank fetches the charge from; never fetched here. */
  readonly location: string;
  /** Never in the code: the caller gives the amount and due date of a dynamic code. */
  readonly amount_cents: null;
}

export type PixCode = StaticPixCode | DynamicPixCode;

type Refuse = (message: string) => never;

interface Field { readonly id: string; readonly value: string }

/** CRC16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor) of ASCII text: 4 upper-case hex digits. */
export function pixCrc16(text: string): string {
  let crc = 0xffff;
  for (let i = 0; i < text.length; i++) {
    crc ^= (text.charCodeAt(i) & 0xff) << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const CRC_TAIL = /6304[0-9A-Fa-f]{4}$/;

/**
 * The fields of `text`, in order. `label(id)` names a field in a refusal ("field 59", "field
 * 26.01"); `within` names the enclosing field for a sub-field's overrun.
 */
function readFields(text: string, refuse: Refuse, label: (id: string) => string, within: string | null): Field[] {
  const fields: Field[] = [];
  const seen = new Set<string>();
  const end = within === null ? 'the end' : `the end of ${within}`;
  let at = 0;
  while (at < text.length) {
    if (text.length - at < 4) {
      refuse(fields.length === 0 ? `${within ?? 'the code'} ends inside a field header` : `${text.length - at} characters are left over after ${label(fields[fields.length - 1]!.id)}`);
    }
    const id = text.slice(at, at + 2);
    if (!/^\d{2}$/.test(id)) refuse(`the field id at position ${at + 1}${within === null ? '' : ` of ${within}`} is not two digits`);
    const lengthText = text.slice(at + 2, at + 4);
    if (!/^\d{2}$/.test(lengthText)) refuse(`the length of ${label(id)} is not two digits`);
    const length = Number(lengthText);
    if (length === 0) refuse(`${label(id)} is empty`);
    if (at + 4 + length > text.length) refuse(`the length of ${label(id)} runs past ${end}`);
    if (seen.has(id)) refuse(`${label(id)} appears twice`);
    seen.add(id);
    fields.push({ id, value: text.slice(at + 4, at + 4 + length) });
    at += 4 + length;
  }
  return fields;
}

function fieldMap(fields: readonly Field[]): Map<string, string> {
  return new Map(fields.map((f) => [f.id, f.value]));
}

function required(fields: ReadonlyMap<string, string>, id: string, name: string, refuse: Refuse): string {
  const value = fields.get(id);
  if (value === undefined) refuse(`field ${id} (${name}) is missing`);
  return value;
}

/** Cents of field 54 ("10.50", "10.5", "10"): integer arithmetic, no floating point. */
function readAmount(value: string, refuse: Refuse): number {
  const match = /^(\d{1,10})(?:\.(\d{1,2}))?$/.exec(value);
  if (match === null || value.length > 13) refuse('field 54 (amount) is not an amount such as 10.50');
  const cents = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  if (cents <= 0) refuse('field 54 (amount) is not above zero');
  return cents;
}

const LOCATION = /^(?:https:\/\/)?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+(?::\d{1,5})?(?:\/[\x21-\x7e]*)?$/;

interface PixAccount { readonly id: string; readonly sub: ReadonlyMap<string, string> }

/** The one Pix merchant account among the templates 26–51. */
function pixAccount(fields: readonly Field[], refuse: Refuse): PixAccount {
  const templates = fields.filter((f) => Number(f.id) >= 26 && Number(f.id) <= 51).map((f) => ({
    id: f.id,
    sub: fieldMap(readFields(f.value, refuse, (id) => `field ${f.id}.${id}`, `field ${f.id}`)),
  }));
  const pix = templates.filter((t) => t.sub.get('00')?.toLowerCase() === PIX_GUI);
  if (pix.length > 1) refuse(`more than one of fields ${pix.map((t) => t.id).join(', ')} is a Pix merchant account`);
  const account = pix[0];
  if (account !== undefined) return account;
  if (templates.length === 0) refuse(`the Pix merchant account (a field 26–51 with GUI ${PIX_GUI}) is missing`);
  if (templates.length === 1) refuse(`field ${templates[0]!.id} is not a Pix merchant account (its GUI, field ${templates[0]!.id}.00, is not ${PIX_GUI})`);
  return refuse(`none of fields ${templates.map((t) => t.id).join(', ')} is a Pix merchant account (GUI ${PIX_GUI})`);
}

function readTxid(fields: ReadonlyMap<string, string>, max: number, refuse: Refuse): string | null {
  const additional = required(fields, '62', 'additional data', refuse);
  const sub = fieldMap(readFields(additional, refuse, (id) => `field 62.${id}`, 'field 62'));
  const txid = sub.get('05');
  if (txid === undefined) refuse('field 62 (additional data) has no txid (field 62.05)');
  if (txid === '***') return null;
  if (!new RegExp(`^[A-Za-z0-9]{1,${max}}$`).test(txid)) refuse(`field 62.05 (txid) is neither *** nor 1 to ${max} letters and digits`);
  return txid;
}

function failAt(path: string): Refuse {
  return (message: string): never => { throw validationError([{ path, message }]); };
}

/** The code checked as text (bound, characters, CRC): trimmed, the CRC's hex digits upper-cased. */
function checkedText(text: string, refuse: Refuse): string {
  if (typeof text !== 'string') refuse('must be a string (a Pix BR Code)');
  if (text.length > MAX_BR_CODE_LENGTH * 2) refuse(`is longer than a BR Code (at most ${MAX_BR_CODE_LENGTH} characters)`);
  const trimmed = text.trim();
  if (trimmed.length === 0) refuse('must not be empty (a Pix BR Code)');
  if (trimmed.length > MAX_BR_CODE_LENGTH) refuse(`is longer than a BR Code (at most ${MAX_BR_CODE_LENGTH} characters)`);
  if (!PRINTABLE_ASCII.test(trimmed)) {
    const position = [...trimmed].findIndex((ch) => !PRINTABLE_ASCII.test(ch)) + 1;
    refuse(`contains a character outside printable ASCII, which a BR Code may not carry (character ${position})`);
  }
  if (!CRC_TAIL.test(trimmed)) refuse('does not end with the CRC field (6304 and four hexadecimal digits)');
  const code = trimmed.slice(0, -4) + trimmed.slice(-4).toUpperCase();
  if (pixCrc16(code.slice(0, -4)) !== code.slice(-4)) refuse('the CRC does not match (the code was altered or mistyped)');
  return code;
}

/** The top-level fields: 00 = 01 first, 63 last, no reserved id, 01 = 11 | 12 when present. */
function topFields(code: string, refuse: Refuse): Field[] {
  const fields = readFields(code, refuse, (id) => `field ${id}`, null);
  if (fields[0]?.id !== '00') refuse('the code does not start with field 00 (payload format indicator)');
  if (fields[0].value !== '01') refuse('field 00 (payload format indicator) is not 01');
  const last = fields[fields.length - 1]!;
  if (last.id !== '63' || last.value.length !== 4) refuse('field 63 (CRC) is not the last field');
  const reserved = fields.find((f) => Number(f.id) >= 65 && Number(f.id) <= 79);
  if (reserved !== undefined) refuse(`field ${reserved.id} is not a BR Code field (ids 65–79 are reserved)`);
  const initiation = fields.find((f) => f.id === '01')?.value;
  if (initiation !== undefined && initiation !== '11' && initiation !== '12') refuse('field 01 (point of initiation method) is neither 11 nor 12');
  return fields;
}

interface Merchant { readonly amount: number | null; readonly merchant_name: string; readonly merchant_city: string }

/** Fields 52, 53, 54, 58, 59 and 60. */
function readMerchant(top: ReadonlyMap<string, string>, refuse: Refuse): Merchant {
  if (!/^\d{4}$/.test(required(top, '52', 'merchant category code', refuse))) refuse('field 52 (merchant category code) is not four digits');
  if (required(top, '53', 'transaction currency', refuse) !== '986') refuse('field 53 (transaction currency) is not 986 (the real)');
  const amountText = top.get('54');
  const amount = amountText === undefined ? null : readAmount(amountText, refuse);
  if (required(top, '58', 'country code', refuse) !== 'BR') refuse('field 58 (country code) is not BR');
  const name = required(top, '59', 'merchant name', refuse);
  if (name.length > MAX_MERCHANT_NAME_LENGTH) refuse(`field 59 (merchant name) is longer than ${MAX_MERCHANT_NAME_LENGTH} characters`);
  const city = required(top, '60', 'merchant city', refuse);
  if (city.length > MAX_MERCHANT_CITY_LENGTH) refuse(`field 60 (merchant city) is longer than ${MAX_MERCHANT_CITY_LENGTH} characters`);
  return { amount, merchant_name: name, merchant_city: city };
}

/**
 * Reads a Pix "copia e cola" BR Code. Refused (VALIDATION_ERROR at `path`, one issue naming the
 * check) unless it is one, whole and unaltered.
 */
export function parsePixCode(text: string, path: string): PixCode {
  const refuse: Refuse = failAt(path);
  const code = checkedText(text, refuse);
  const fields = topFields(code, refuse);
  const top = fieldMap(fields);
  const account = pixAccount(fields, refuse);
  const { amount, ...merchant } = readMerchant(top, refuse);
  const at = account.id;
  const rawKey = account.sub.get('01');
  const location = account.sub.get('25');
  if (rawKey !== undefined && location !== undefined) refuse(`field ${at} carries both a key (field ${at}.01) and a location (field ${at}.25)`);
  if (location !== undefined) {
    if (location.length > MAX_LOCATION_LENGTH || !LOCATION.test(location)) refuse(`field ${at}.25 (location) is not a location URL`);
    return { kind: 'dynamic', location, amount_cents: null, ...merchant, txid: readTxid(top, MAX_DYNAMIC_TXID_LENGTH, refuse), payload: code };
  }
  if (rawKey === undefined) refuse(`field ${at} carries neither a key (field ${at}.01) nor a location (field ${at}.25)`);
  const key = normalizePixKey(rawKey);
  if (key === null) refuse(`field ${at}.01 is not a Pix key (CPF, CNPJ, e-mail, +55 phone or random key)`);
  return {
    kind: 'static', key, amount_cents: amount, description: account.sub.get('02') ?? null,
    ...merchant, txid: readTxid(top, MAX_STATIC_TXID_LENGTH, refuse), payload: code,
  };
}

/** Letters NFKD does not decompose into an ASCII base letter and marks. */
const TRANSLITERATION: Readonly<Record<string, string>> = {
  ß: 'ss', Æ: 'AE', æ: 'ae', Ø: 'O', ø: 'o', Œ: 'OE', œ: 'oe', Ł: 'L', ł: 'l', Đ: 'D', đ: 'd', Ð: 'D', ð: 'd', Þ: 'TH', þ: 'th', ı: 'i',
};

/** Printable ASCII of free text: accents dropped (ç → c), a few letters spelled out, anything else a space; spaces collapsed. */
export function toBrCodeText(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, (ch) => TRANSLITERATION[ch] ?? ' ')
    .replace(/\s+/g, ' ').trim();
}

export interface StaticPixCodeInput {
  /** The receiving account's Pix key (normalised before use). */
  readonly key: string;
  /** The charge's amount; null for a code the payer fills in. */
  readonly amountCents: number | null;
  readonly merchantName: string;
  readonly merchantCity: string;
  /** 1–25 letters and digits; null writes `***` (no txid). */
  readonly txid: string | null;
  /** Free text for the payer (field 26.02), transliterated to ASCII. */
  readonly description?: string | null;
}

function tlv(id: string, value: string): string {
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

function formatAmount(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

function upperText(text: string, max: number, path: string): string {
  const value = typeof text === 'string' ? toBrCodeText(text).toUpperCase().slice(0, max).trimEnd() : '';
  if (!/[A-Z0-9]/.test(value)) throw validationError([{ path, message: 'must contain letters or digits' }]);
  return value;
}

/**
 * A static BR Code for a charge: field order 00, 26 (GUI, key, description), 52 = 0000, 53, 54,
 * 58, 59, 60, 62 (txid), 63. Name and city upper-cased ASCII, cut to 25 and 15 characters.
 */
export function buildStaticPixCode(input: StaticPixCodeInput): string {
  const key = typeof input.key === 'string' ? normalizePixKey(input.key) : null;
  if (key === null) throw validationError([{ path: 'key', message: 'must be a Pix key: CPF or CNPJ digits, an e-mail (ASCII letters only), a +55 phone number in E.164 or a random key (EVP)' }]);
  const cents = input.amountCents;
  if (cents !== null && (!Number.isSafeInteger(cents) || cents <= 0 || cents > MAX_AMOUNT_CENTS)) {
    throw validationError([{ path: 'amount_cents', message: `must be a whole number of cents from 1 to ${MAX_AMOUNT_CENTS}` }]);
  }
  const name = upperText(input.merchantName, MAX_MERCHANT_NAME_LENGTH, 'merchant_name');
  const city = upperText(input.merchantCity, MAX_MERCHANT_CITY_LENGTH, 'merchant_city');
  const txid = input.txid;
  if (txid !== null && (typeof txid !== 'string' || !new RegExp(`^[A-Za-z0-9]{1,${MAX_STATIC_TXID_LENGTH}}$`).test(txid))) {
    throw validationError([{ path: 'txid', message: `must be 1 to ${MAX_STATIC_TXID_LENGTH} letters (A–Z, a–z) and digits` }]);
  }
  const account = tlv('00', PIX_GUI) + tlv('01', key);
  const description = typeof input.description === 'string' ? toBrCodeText(input.description) : '';
  const room = MAX_FIELD_VALUE_LENGTH - account.length - 4;
  if (description.length > room) {
    throw validationError([{ path: 'description', message: room > 0 ? `must be at most ${room} characters with this key` : 'does not fit beside this key' }]);
  }
  const body = tlv('00', '01')
    + tlv('26', account + (description === '' ? '' : tlv('02', description)))
    + tlv('52', '0000') + tlv('53', '986')
    + (cents === null ? '' : tlv('54', formatAmount(cents)))
    + tlv('58', 'BR') + tlv('59', name) + tlv('60', city)
    + tlv('62', tlv('05', txid ?? '***'))
    + '6304';
  return body + pixCrc16(body);
}

/** Pixels per module and quiet-zone modules of the QR image. */
export const PIX_QR_SCALE = 8;
export const PIX_QR_MARGIN = 4;

/** The QR image (PNG) of a BR Code, which is parsed first: only a valid code is drawn. */
export async function renderPixQrPng(payload: string): Promise<Uint8Array> {
  const code = parsePixCode(payload, 'payload').payload;
  const png = await QRCode.toBuffer(code, { type: 'png', errorCorrectionLevel: 'M', margin: PIX_QR_MARGIN, scale: PIX_QR_SCALE });
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}
