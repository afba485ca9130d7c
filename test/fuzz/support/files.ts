/**
 * File contents at the contract's size limits for the boundary fuzzer: the biggest file a
 * base64 field's `maxLength` admits (and the multipart upload of the same operation), built from
 * the field's own example — padded, or for an OFX statement repeated transaction by transaction
 * and, separately, as a flood of tiny tags (the two shapes whose work grows with the file).
 * Built on first use and shared by every case that sends them.
 */
import { Lazy } from './lazy.js';

/**
 * The sizes (bytes) of the largest files whose base64 text is exactly `maxLength` characters,
 * smallest first: `maxLength / 4 × 3` bytes and the one and two bytes less that pad to the same
 * length. A byte cap the contract states only in words (10 MB) is one of them.
 */
export function largestFileSizes(base64MaxLength: number): readonly number[] {
  const largest = Math.floor(base64MaxLength / 4) * 3;
  return [largest - 2, largest - 1, largest];
}

export interface FileVariant {
  readonly label: string;
  /** A Lazy Buffer. */
  readonly bytes: Lazy;
  /** Within the contract's size bound. */
  readonly inside: boolean;
}

/** Base64 characters assumed for a file field without `maxLength` (16 MiB of file). */
export const UNBOUNDED_FILE_BASE64 = Math.ceil((16 * 1024 * 1024) / 3) * 4;

const cache = new Map<string, Lazy>();

function cached(key: string, make: () => Buffer): Lazy {
  let lazy = cache.get(key);
  if (!lazy) {
    lazy = Lazy.once(make);
    cache.set(key, lazy);
  }
  return lazy;
}

/** `example` padded with trailing newlines to `size` bytes (or cut to it). */
function padded(example: Buffer, size: number): Buffer {
  if (example.length >= size) return example.subarray(0, size);
  return Buffer.concat([example, Buffer.alloc(size - example.length, 0x0a)]);
}

/** An OFX example split around its transactions: what comes before the first, one transaction, what follows the last. */
function ofxParts(example: Buffer): { head: string; unit: string; tail: string } | null {
  const text = example.toString('latin1');
  const start = text.indexOf('<STMTTRN>');
  const end = text.lastIndexOf('</STMTTRN>');
  if (start < 0 || end < start) return null;
  const close = end + '</STMTTRN>'.length;
  return { head: text.slice(0, start), unit: text.slice(start, close), tail: text.slice(close) };
}

/** Transactions (each with its own FITID) repeated until the file is `size` bytes. */
function ofxTransactions(example: Buffer, size: number, tag: string): Buffer {
  const parts = ofxParts(example);
  if (!parts) return padded(example, size);
  const units: string[] = [];
  let length = parts.head.length + parts.tail.length;
  for (let i = 0; ; i += 1) {
    const unit = parts.unit.replace(/<FITID>[^<]*/, `<FITID>${tag}-${i}`);
    if (length + unit.length > size) break;
    units.push(unit);
    length += unit.length;
  }
  return padded(Buffer.from(`${parts.head}${units.join('')}${parts.tail}`, 'latin1'), size);
}

/** One transaction followed by tiny empty tags until the file is `size` bytes. */
function ofxTinyTags(example: Buffer, size: number): Buffer {
  const parts = ofxParts(example);
  if (!parts) return padded(example, size);
  const room = size - parts.head.length - parts.unit.length - parts.tail.length;
  const flood = '<X>'.repeat(Math.max(0, Math.floor(room / 3)));
  return padded(Buffer.from(`${parts.head}${parts.unit}${flood}${parts.tail}`, 'latin1'), size);
}

/** The example with a NUL byte and an invalid UTF-8 sequence (a lone surrogate's CESU-8 bytes) inside each text value of its first transaction. */
function ofxHostileText(example: Buffer): Buffer {
  const parts = ofxParts(example);
  if (!parts) return example;
  const unit = parts.unit.replace(/<(MEMO|NAME|FITID)>([^<\r\n]*)/g, (_, tag: string, value: string) => `<${tag}>${value.slice(0, 1)}\u0000\u00ed\u00a0\u0080${value.slice(1)}`);
  return Buffer.from(`${parts.head}${unit}${parts.tail}`, 'latin1');
}

/** Markup tags of a text, as a linear scan counts them: every `<`. */
function tagCount(text: string): number {
  let count = 0;
  for (let i = text.indexOf('<'); i >= 0; i = text.indexOf('<', i + 1)) count += 1;
  return count;
}

/** An OFX statement of exactly `lines` transactions (each with its own FITID). */
export function ofxWithLines(example: Buffer, lines: number, tag: string): Buffer {
  const parts = ofxParts(example);
  if (!parts) return example;
  const units = Array.from({ length: lines }, (_, i) => parts.unit.replace(/<FITID>[^<]*/, `<FITID>${tag}-${i}`));
  return Buffer.from(`${parts.head}${units.join('')}${parts.tail}`, 'latin1');
}

/** An OFX statement of one transaction and tiny tags, `tags` markup tags in all. */
export function ofxWithTags(example: Buffer, tags: number): Buffer {
  const parts = ofxParts(example);
  if (!parts) return example;
  const own = tagCount(`${parts.head}${parts.unit}${parts.tail}`);
  return Buffer.from(`${parts.head}${parts.unit}${'<X>'.repeat(Math.max(0, tags - own))}${parts.tail}`, 'latin1');
}

export function looksLikeOfx(example: Buffer, contentType: string | null): boolean {
  return /ofx/i.test(contentType ?? '') || example.subarray(0, 64).toString('latin1').includes('OFX');
}

/**
 * Files for a field whose example is `example`: the example, the largest files of `sizes`
 * (largestFileSizes; for OFX also its two growing shapes, at the smallest of them), and one byte
 * over the largest. `key` names the field (cache key).
 */
export function fileVariants(key: string, example: Buffer, contentType: string | null, sizes: readonly number[]): FileVariant[] {
  const largest = Math.max(...sizes);
  const smallest = Math.min(...sizes);
  const variants: FileVariant[] = [
    { label: 'example file', bytes: Lazy.once(() => example), inside: true },
    ...sizes.map((size) => ({ label: `largest file (${size} bytes)`, bytes: cached(`${key}:${size}`, () => padded(example, size)), inside: true })),
    { label: `file one byte over (${largest + 1} bytes)`, bytes: cached(`${key}:over`, () => padded(example, largest + 1)), inside: false },
  ];
  if (looksLikeOfx(example, contentType)) {
    variants.push(
      { label: `largest OFX of transactions (${smallest} bytes)`, bytes: cached(`${key}:ofx-transactions`, () => ofxTransactions(example, smallest, 'FZ')), inside: true },
      { label: `largest OFX of tiny tags (${smallest} bytes)`, bytes: cached(`${key}:ofx-tags`, () => ofxTinyTags(example, smallest)), inside: true },
      { label: 'OFX with NUL and invalid UTF-8 in its text', bytes: cached(`${key}:ofx-nul`, () => ofxHostileText(example)), inside: true },
    );
  }
  return variants;
}
