/**
 * The one sanitizer for record values and arguments placed into text a person reads
 * (confirmation sentences, resource titles, prompt texts): control characters (C0, DEL, C1),
 * line/paragraph separators and the bidirectional controls (U+061C, U+200E/U+200F,
 * U+202A–U+202E, U+2066–U+2069) become one space each run. A bidi override in a name could
 * otherwise make a client show "pay 10 to B" as something else (amount and account reversed).
 * Stored data is untouched; only what is displayed is flattened.
 *
 *   sanitizeDisplayText(value: string): string
 */

const HIDDEN_OR_REORDERING = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g;

export function sanitizeDisplayText(value: string): string {
  return value.replace(HIDDEN_OR_REORDERING, ' ');
}
