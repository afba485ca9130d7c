/**
 * The grammar of `x-kobana-confirm` templates, shared by the generator (which refuses a bad
 * template at build time) and src/api/confirmation/template.ts (which renders it). Pure text handling, no imports.
 *
 *   `Write off receivable {description} of {amount:brl}, {arg.reason}?`
 *   {field}      the target record's value (dotted paths reach nested objects: {person.name})
 *   {a|b}        the first of a, b that is neither null nor absent
 *   {field:brl}  a money string ("1234.56") shown as R$ 1.234,56
 *   {arg.x}      the call's free-text argument x, quoted, capped and labelled: `x given: "…"`
 *                (`no x given` when absent); the build refuses it for a money, date or id
 *                argument (codegen/classify.ts): those come from the record or a calculation
 *   {calc.c.v}   value v of the server's own computation c (CALCULATIONS), the one its handler
 *                writes: `{calc.settlement.paid_amount}` is R$ …, `{calc.settlement.payment_date}` a date
 */

/** The server's computations a template may show, each value's kind (money: as R$, date: as is). */
export const CALCULATIONS = {
  /** What a settle of the target title pays (src/api/rules/settlement.ts `planSettlement`). */
  settlement: { payment_date: 'date', paid_amount: 'money', interest_amount: 'money', discount_amount: 'money' },
} as const;
export type CalculationName = keyof typeof CALCULATIONS;

export type TemplateSegment =
  | { readonly text: string }
  | { readonly fields: readonly (readonly string[])[]; readonly format: 'text' | 'brl' }
  | { readonly argument: string }
  | { readonly calculation: CalculationName; readonly value: string; readonly kind: 'money' | 'date' };

const PLACEHOLDER = /^([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*(?:\|[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)*)(?::(brl))?$/i;
const NAMESPACES = new Set(['arg', 'calc']);

/** `{arg.x}` / `{calc.c.v}` → their segment; a reason string when misused; null for a record field. */
function parseNamespaced(paths: readonly (readonly string[])[], brl: boolean): TemplateSegment | string | null {
  if (!paths.some((path) => NAMESPACES.has(path[0] ?? ''))) return null;
  const [path] = paths;
  if (paths.length !== 1 || path === undefined) return 'takes no alternatives ({arg.…} and {calc.…} name one value)';
  if (path[0] === 'arg') {
    if (path.length !== 2 || brl) return 'must be {arg.<argument>} (a free-text argument, shown quoted and labelled)';
    return { argument: path[1] ?? '' };
  }
  const calculation = path[1] ?? '';
  const values: Readonly<Record<string, 'money' | 'date'>> | undefined = Object.hasOwn(CALCULATIONS, calculation) ? CALCULATIONS[calculation as CalculationName] : undefined;
  const kind = values !== undefined && path.length === 3 && Object.hasOwn(values, path[2] ?? '') ? values[path[2] ?? ''] : undefined;
  if (kind === undefined) {
    const known = Object.entries(CALCULATIONS).flatMap(([name, of]) => Object.keys(of).map((value) => `calc.${name}.${value}`));
    return `names no calculation (known: ${known.join(', ')})`;
  }
  if (brl && kind !== 'money') return 'formats a date as money';
  return { calculation: calculation as CalculationName, value: path[2] ?? '', kind };
}

function parsePlaceholder(inner: string): TemplateSegment | string {
  const match = PLACEHOLDER.exec(inner);
  if (!match) return `has an invalid placeholder {${inner}} (expected {field}, {a|b}, {field:brl}, {arg.x} or {calc.c.v})`;
  const fields = (match[1] ?? '').split('|').map((path) => path.split('.'));
  const brl = match[2] !== undefined;
  const namespaced = parseNamespaced(fields, brl);
  if (typeof namespaced === 'string') return `has an invalid placeholder {${inner}}: it ${namespaced}`;
  return namespaced ?? { fields, format: brl ? 'brl' : 'text' };
}

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
    const segment = parsePlaceholder(rest.slice(open + 1, close));
    if (typeof segment === 'string') return segment;
    segments.push(segment);
    rest = rest.slice(close + 1);
  }
  if (!segments.some((segment) => 'fields' in segment)) return 'names no field of the target record';
  return segments;
}

/** The `{arg.x}` names of a parsed template. */
export function templateArguments(segments: readonly TemplateSegment[]): string[] {
  return segments.flatMap((segment) => ('argument' in segment ? [segment.argument] : []));
}

/** The `{calc.…}` computations a parsed template needs. */
export function templateCalculations(segments: readonly TemplateSegment[]): CalculationName[] {
  return [...new Set(segments.flatMap((segment) => ('calculation' in segment ? [segment.calculation] : [])))];
}
