/**
 * The shortest and longest strings a contract `pattern` accepts, and one just too long, for the
 * boundary fuzzer (test/fuzz/support/schema-bounds.ts). It reads the small regular-expression
 * subset the contract's patterns use (anchors, literals and escapes, `\d`, character classes,
 * groups with alternatives, `? * + {n} {m,n} {m,}`); any other pattern yields null and the
 * fuzzer falls back to the schema's examples.
 */

type Node =
  | { readonly kind: 'chars'; readonly first: string; readonly last: string }
  | { readonly kind: 'group'; readonly alternatives: readonly (readonly Item[])[] };

interface Item {
  readonly node: Node;
  readonly min: number;
  /** null: unbounded. */
  readonly max: number | null;
}

export interface PatternExtremes {
  readonly shortest: string;
  readonly longest: string;
  /** The longest with one repetition more than a bounded quantifier allows; null when none is bounded. */
  readonly overlong: string | null;
}

/** Repetitions used for an unbounded quantifier's "longest". */
const UNBOUNDED_REPEAT = 16;

class Parser {
  private at = 0;

  constructor(private readonly text: string) {}

  parse(): readonly (readonly Item[])[] {
    if (this.text.startsWith('^')) this.at += 1;
    const alternatives = this.alternatives();
    if (this.text[this.at] === '$') this.at += 1;
    if (this.at !== this.text.length) throw new Error('unsupported pattern');
    return alternatives;
  }

  private alternatives(): (readonly Item[])[] {
    const out: Item[][] = [this.sequence()];
    while (this.text[this.at] === '|') {
      this.at += 1;
      out.push(this.sequence());
    }
    return out;
  }

  private sequence(): Item[] {
    const items: Item[] = [];
    for (;;) {
      const char = this.text[this.at];
      if (char === undefined || char === '|' || char === ')' || (char === '$' && this.at === this.text.length - 1)) return items;
      const node = this.atom();
      const [min, max] = this.quantifier();
      items.push({ node, min, max });
    }
  }

  private atom(): Node {
    const char = this.text[this.at] ?? '';
    this.at += 1;
    if (char === '(') {
      if (this.text.startsWith('?:', this.at)) this.at += 2;
      const alternatives = this.alternatives();
      if (this.text[this.at] !== ')') throw new Error('unsupported pattern');
      this.at += 1;
      return { kind: 'group', alternatives };
    }
    if (char === '[') {
      const end = this.text.indexOf(']', this.at);
      if (end < 0) throw new Error('unsupported pattern');
      const body = this.text.slice(this.at, end);
      this.at = end + 1;
      if (body.startsWith('^') || body === '') throw new Error('unsupported pattern');
      const chars = [...body.matchAll(/(.)-(.)|(.)/gu)].flatMap((m) => (m[1] !== undefined && m[2] !== undefined ? [m[1], m[2]] : [m[3] ?? '']));
      const sorted = [...chars].sort();
      return { kind: 'chars', first: sorted[0] ?? '', last: sorted[sorted.length - 1] ?? '' };
    }
    if (char === '\\') {
      const escaped = this.text[this.at] ?? '';
      this.at += 1;
      if (escaped === 'd') return { kind: 'chars', first: '0', last: '9' };
      if (/[A-Za-z]/.test(escaped)) throw new Error('unsupported pattern');
      return { kind: 'chars', first: escaped, last: escaped };
    }
    if ('.*+?{}'.includes(char)) throw new Error('unsupported pattern');
    return { kind: 'chars', first: char, last: char };
  }

  private quantifier(): [number, number | null] {
    const char = this.text[this.at];
    if (char === '?') { this.at += 1; return [0, 1]; }
    if (char === '*') { this.at += 1; return [0, null]; }
    if (char === '+') { this.at += 1; return [1, null]; }
    if (char !== '{') return [1, 1];
    const match = /^\{(\d+)(,(\d*))?\}/.exec(this.text.slice(this.at));
    if (!match) throw new Error('unsupported pattern');
    this.at += match[0].length;
    const min = Number(match[1]);
    if (match[2] === undefined) return [min, min];
    return [min, match[3] === '' || match[3] === undefined ? null : Number(match[3])];
  }
}

function render(alternatives: readonly (readonly Item[])[], mode: 'shortest' | 'longest'): string {
  const options = alternatives.map((sequence) => sequence.map((item) => renderItem(item, mode, item.max === null ? item.min + UNBOUNDED_REPEAT : item.max)).join(''));
  return options.reduce((best, option) => ((mode === 'longest' ? option.length > best.length : option.length < best.length) ? option : best));
}

function renderItem(item: Item, mode: 'shortest' | 'longest', longestCount: number): string {
  const count = mode === 'shortest' ? item.min : longestCount;
  const one = item.node.kind === 'chars' ? (mode === 'shortest' ? item.node.first : item.node.last) : render(item.node.alternatives, mode);
  return one.repeat(count);
}

/** The longest string with one more repetition at the bounded quantifier with the largest bound (on the first alternative that has one). */
function renderOverlong(alternatives: readonly (readonly Item[])[]): string | null {
  for (const sequence of alternatives) {
    let widest = -1;
    sequence.forEach((item, i) => {
      if (item.max !== null && (widest < 0 || item.max > (sequence[widest]?.max ?? 0))) widest = i;
    });
    if (widest < 0) continue;
    return sequence.map((other, j) => renderItem(other, 'longest', (other.max ?? other.min + UNBOUNDED_REPEAT) + (j === widest ? 1 : 0))).join('');
  }
  return null;
}

export function patternExtremes(pattern: string): PatternExtremes | null {
  let alternatives: readonly (readonly Item[])[];
  try {
    alternatives = new Parser(pattern).parse();
  } catch {
    return null;
  }
  const regex = new RegExp(pattern, 'u');
  const shortest = render(alternatives, 'shortest');
  const longest = render(alternatives, 'longest');
  if (!regex.test(shortest) || !regex.test(longest)) return null;
  const overlong = renderOverlong(alternatives);
  return { shortest, longest, overlong: overlong !== null && !regex.test(overlong) ? overlong : null };
}
