/**
 * Strict decoding of `content_base64` (issue 7: invalid base64 → VALIDATION_ERROR, ≤ 10 MB
 * decoded). The encoded length is checked before decoding so a giant string fails without
 * allocating its decoded copy; Node's own decoder is lenient, hence the checks first.
 */
import { validationError } from '../../errors.js';

const BASE64_SHAPE = /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Largest encoded length whose decoded size can be ≤ maxBytes. */
export function maxEncodedLength(maxBytes: number): number {
  return Math.ceil(maxBytes / 3) * 4;
}

function decodedLength(encoded: string): number {
  const padding = encoded.endsWith('==') ? 2 : encoded.endsWith('=') ? 1 : 0;
  return (encoded.length / 4) * 3 - padding;
}

/**
 * Decodes standard, padded base64 (RFC 4648 §4): no whitespace, no URL-safe alphabet, and the
 * unused bits of the last character must be zero, so one string decodes to exactly one file.
 */
export function decodeStrictBase64(encoded: string, maxBytes: number, path = 'content_base64'): Buffer {
  if (encoded.length > maxEncodedLength(maxBytes)) {
    throw validationError([{ path, message: `must decode to at most ${maxBytes} bytes` }]);
  }
  if (encoded.length % 4 !== 0 || !BASE64_SHAPE.test(encoded) || !hasZeroUnusedBits(encoded)) {
    throw validationError([{ path, message: 'must be standard padded base64' }]);
  }
  const size = decodedLength(encoded);
  if (size > maxBytes) throw validationError([{ path, message: `must decode to at most ${maxBytes} bytes` }]);
  if (size === 0) throw validationError([{ path, message: 'must not be empty' }]);
  return Buffer.from(encoded, 'base64');
}

function hasZeroUnusedBits(encoded: string): boolean {
  if (encoded.endsWith('==')) return (ALPHABET.indexOf(encoded.charAt(encoded.length - 3)) & 0x0f) === 0;
  if (encoded.endsWith('=')) return (ALPHABET.indexOf(encoded.charAt(encoded.length - 2)) & 0x03) === 0;
  return true;
}
