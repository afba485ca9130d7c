/**
 * Turns the input of `attachments.upload` into checked file bytes and metadata, whichever way
 * they came: the JSON form `{file_name, content_type, content_base64, title?}` (REST JSON, MCP)
 * or bytes a transport already read (`input.upload`, REST multipart) next to
 * `{file_name, content_type, title?}`. Size, type, magic bytes and the file name are all
 * decided here, so both channels run the same checks; storing is the operation's job.
 */
import type { OperationInput } from '../../context.js';
import { validationError, type ValidationIssue } from '../../errors.js';
import { decodeStrictBase64 } from './base64.js';
import { resolveContentType, type AttachmentKind } from './content-types.js';
import { sanitizeFileName } from './file-name.js';
import { MAX_ATTACHMENT_BYTES, MAX_TITLE_LENGTH } from './limits.js';
import { assertMagicBytes } from './magic-bytes.js';

export interface CheckedUpload {
  readonly fileName: string;
  readonly contentType: string;
  readonly kind: AttachmentKind;
  readonly title: string | null;
  readonly bytes: Uint8Array;
}

/** Order matters: shape and size (VALIDATION_ERROR) before type and content (UNPROCESSABLE_ENTITY). */
export function checkUploadInput(input: OperationInput, maxBytes = MAX_ATTACHMENT_BYTES): CheckedUpload {
  const body = (typeof input.body === 'object' && input.body !== null ? input.body : {}) as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  const fileName = body['file_name'];
  const declaredType = body['content_type'];
  const title = body['title'];
  if (typeof fileName !== 'string') issues.push({ path: 'file_name', message: 'is required' });
  if (typeof declaredType !== 'string' || declaredType.trim() === '') issues.push({ path: 'content_type', message: 'is required' });
  if (title !== undefined && title !== null && typeof title !== 'string') issues.push({ path: 'title', message: 'must be string' });
  if (typeof title === 'string' && title.length > MAX_TITLE_LENGTH) {
    issues.push({ path: 'title', message: `must have at most ${MAX_TITLE_LENGTH} characters` });
  }
  const encoded = body['content_base64'];
  if (!input.upload && typeof encoded !== 'string') issues.push({ path: 'content_base64', message: 'is required' });
  if (issues.length > 0) throw validationError(issues);

  const bytes = input.upload ? input.upload.bytes : decodeStrictBase64(encoded as string, maxBytes);
  if (bytes.byteLength > maxBytes) throw validationError([{ path: 'file', message: `must be at most ${maxBytes} bytes` }]);
  if (bytes.byteLength === 0) throw validationError([{ path: input.upload ? 'file' : 'content_base64', message: 'must not be empty' }]);

  const displayName = sanitizeFileName(fileName as string);
  const resolved = resolveContentType(declaredType as string, displayName);
  assertMagicBytes(resolved.kind, bytes);
  const trimmedTitle = typeof title === 'string' ? title.trim() : '';
  return { fileName: displayName, contentType: resolved.contentType, kind: resolved.kind, title: trimmedTitle === '' ? null : trimmedTitle, bytes };
}
