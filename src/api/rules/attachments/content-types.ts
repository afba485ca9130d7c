/**
 * The file types an attachment may have (issue 7: pdf, png, jpeg, xml, ofx, csv, xlsx) and how a
 * declared content type is normalised. It does not look at the bytes (magic-bytes.ts does).
 */
import { ApiError } from '../../errors.js';

export type AttachmentKind = 'pdf' | 'png' | 'jpeg' | 'xml' | 'ofx' | 'csv' | 'xlsx';

/** Canonical content type of each kind, as stored and served. */
const CANONICAL_CONTENT_TYPES: Readonly<Record<AttachmentKind, string>> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpeg: 'image/jpeg',
  xml: 'application/xml',
  ofx: 'application/x-ofx',
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** Every accepted spelling (lower-case, without parameters) → its kind. */
const ACCEPTED: Readonly<Record<string, AttachmentKind>> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'application/x-ofx': 'ofx',
  'application/ofx': 'ofx',
  'text/csv': 'csv',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
};

const EXTENSIONS: Readonly<Record<string, AttachmentKind>> = {
  pdf: 'pdf', png: 'png', jpg: 'jpeg', jpeg: 'jpeg', xml: 'xml', ofx: 'ofx', csv: 'csv', xlsx: 'xlsx',
};

/** Generic types browsers send when they do not know the file; the extension decides then. */
const GENERIC_TYPES: ReadonlySet<string> = new Set(['application/octet-stream', 'binary/octet-stream']);

export interface ResolvedType {
  readonly kind: AttachmentKind;
  readonly contentType: string;
}

/**
 * Resolves a declared content type (parameters such as `; charset=utf-8` are dropped) to an
 * allowed kind. A generic `application/octet-stream` falls back to the file name's extension,
 * since browsers send it for `.ofx` and the like. Anything else → UNPROCESSABLE_ENTITY.
 */
export function resolveContentType(declared: string, fileName: string): ResolvedType {
  const base = (declared.split(';')[0] ?? '').trim().toLowerCase();
  let kind: AttachmentKind | undefined = Object.hasOwn(ACCEPTED, base) ? ACCEPTED[base] : undefined;
  if (kind === undefined && GENERIC_TYPES.has(base)) {
    const extension = /\.([a-z0-9]{1,5})$/i.exec(fileName)?.[1]?.toLowerCase() ?? '';
    kind = Object.hasOwn(EXTENSIONS, extension) ? EXTENSIONS[extension] : undefined;
  }
  if (kind === undefined) {
    throw new ApiError('UNPROCESSABLE_ENTITY', 'This file type is not allowed; use pdf, png, jpeg, xml, ofx, csv or xlsx.', {
      allowed_content_types: Object.values(CANONICAL_CONTENT_TYPES),
    });
  }
  return { kind, contentType: CANONICAL_CONTENT_TYPES[kind] };
}
