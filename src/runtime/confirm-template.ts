/**
 * The grammar of `x-kobana-confirm` templates, shared by the generator (which refuses a bad
 * template at build time) and src/api/confirmation/template.ts (which renders it). Pure text handling, no imports.
 *
 *   `Write off receivable {description} of {amount:brl}?`
 *   {field}      the target record's value (dotted paths reach nested objects: {person.name})
 *   {a|b}        the first of a, b that is neither null nor absent
 *   {field:brl}  a money string ("1234.56") shown as R$ 1.234,56
 */

export type TemplateSegment =
  | { readonly text: string }
  | { readonly fields: readonly (readonly string[])[]; readonly format: 'text' | 'brl' };

const PLACEHOLDER = /^([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*(?:\|[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)*)(?::(brl))?$/i;

/** Splits a template into text and placeholders; returns a reason string when it is malformed. */
export function parseConfirmTemplate(template: string): TemplateSegment[] | string {
  const segments: TemplateSegment[] = [];
  let rest = template;
  while (rest.length > 0) {
    const open = rest.indexOf('{');
    const close = rest.indexOf('}');
    if (close !== -1 && (open === -1 || close < open)) return 'has a "}" without its "{"';
    if (open === -1) {
      segments.push({ text: rest });
      break;
    }
    if (open > 0) segments.push({ text: rest.slice(0, open) });
    if (close === -1) return 'has a "{" without its "}"';
    const match = PLACEHOLDER.exec(rest.slice(open + 1, close));
    if (!match) return `has an invalid placeholder {${rest.slice(open + 1, close)}} (expected {field}, {a|b} or {field:brl})`;
    segments.push({ fields: (match[1] ?? '').split('|').map((path) => path.split('.')), format: match[2] === undefined ? 'text' : 'brl' });
    rest = rest.slice(close + 1);
  }
  if (!segments.some((segment) => 'fields' in segment)) return 'names no field of the target record';
  return segments;
}
