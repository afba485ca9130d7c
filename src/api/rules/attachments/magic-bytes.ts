/**
 * Checks that the bytes of a PDF, PNG or JPEG start with that format's signature (issue 7), so a
 * file cannot claim a type it is not (a PNG declared as PDF fails). Text formats (xml, ofx,
 * csv) and xlsx have no signature checked here.
 */
import { ApiError } from '../../errors.js';
import type { AttachmentKind } from './content-types.js';

const SIGNATURES: Partial<Record<AttachmentKind, readonly number[]>> = {
  pdf: [0x25, 0x50, 0x44, 0x46, 0x2d], // "%PDF-"
  png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  jpeg: [0xff, 0xd8, 0xff],
};

export function matchesSignature(kind: AttachmentKind, bytes: Uint8Array): boolean {
  const signature = SIGNATURES[kind];
  if (!signature) return true;
  if (bytes.length < signature.length) return false;
  return signature.every((byte, i) => bytes[i] === byte);
}

export function assertMagicBytes(kind: AttachmentKind, bytes: Uint8Array): void {
  if (!matchesSignature(kind, bytes)) {
    throw new ApiError('UNPROCESSABLE_ENTITY', 'The file content does not match its declared type.');
  }
}
