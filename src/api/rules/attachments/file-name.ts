/**
 * Sanitises an uploaded file's name for display (issue 7: no paths, no control characters). The
 * name is never used to build a path; the REST renderer (src/http/rest-render.ts) encodes it for headers.
 */

const MAX_FILE_NAME_LENGTH = 255;
const FALLBACK_FILE_NAME = 'file';

// C0/C1 controls, DEL, and the bidirectional overrides that can disguise an extension
// ("invoice\u202Efdp.exe"), plus zero-width characters.
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

export function sanitizeFileName(raw: string): string {
  // Basename only: both separators, since Windows browsers may send `C:\Users\…\nota.pdf`.
  const segments = raw.split(/[\\/]/);
  let name = (segments[segments.length - 1] ?? '').replace(UNSAFE_CHARACTERS, '').trim();
  if (name === '.' || name === '..') name = '';
  // Truncate by code points so a surrogate pair is never split, keeping the extension visible.
  const points = Array.from(name);
  if (points.length > MAX_FILE_NAME_LENGTH) {
    const dot = name.lastIndexOf('.');
    const extension = dot > 0 ? Array.from(name.slice(dot)) : [];
    const keep = extension.length > 0 && extension.length <= 10 ? extension : [];
    name = [...points.slice(0, MAX_FILE_NAME_LENGTH - keep.length), ...keep].join('').trim();
  }
  return name === '' ? FALLBACK_FILE_NAME : name;
}
