/**
 * Lexically screens the raw sql fragments of a builder query's filter (WHERE / ON / HAVING /
 * ON CONFLICT … WHERE) for anything that could change the shape of the filter around them.
 * It parses no SQL, checks no scoping and throws nothing: `workspace-guard.ts` decides where to
 * screen and turns a hazard into a refusal.
 */
import { RawNode } from 'kysely';
import { isNode, type AnyNode } from './workspace-guard-scope.js';

const FORBIDDEN_TOP_LEVEL_WORDS = new Set(['or', 'union', 'intersect', 'except', 'select']);

/** Why a raw fragment could change the shape of the filter around it, or undefined. */
function findFragmentHazard(text: string): string | undefined {
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === "'" || ch === '"' || ch === '`') {
      const end = text.indexOf(ch, i + 1);
      if (end < 0) return 'an unterminated quote';
      i = end + 1;
      continue;
    }
    if ((ch === '-' && text[i + 1] === '-') || (ch === '/' && text[i + 1] === '*')) return 'a comment';
    if (ch === ';') return 'a semicolon';
    if (ch === '(') depth += 1;
    if (ch === ')') {
      depth -= 1;
      if (depth < 0) return 'unbalanced parentheses';
    }
    if (/[A-Za-z_]/.test(ch)) {
      const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(text.slice(i))?.[0] ?? ch;
      if (depth === 0 && FORBIDDEN_TOP_LEVEL_WORDS.has(word.toLowerCase())) return `a top-level "${word.toLowerCase()}" (wrap it in parentheses)`;
      i += word.length;
      continue;
    }
    i += 1;
  }
  return depth === 0 ? undefined : 'unbalanced parentheses';
}

function isQueryNode(node: AnyNode): boolean {
  return node.kind.endsWith('QueryNode');
}

/**
 * The hazard of the first raw fragment of a filter that has one, in tree order, or undefined.
 * Nested subqueries are not entered: each is checked as its own query.
 */
export function findRawFilterHazard(filter: unknown): string | undefined {
  if (Array.isArray(filter)) {
    for (const item of filter) {
      const hazard = findRawFilterHazard(item);
      if (hazard) return hazard;
    }
    return undefined;
  }
  if (!isNode(filter) || isQueryNode(filter)) return undefined;
  if (RawNode.is(filter)) {
    const fragments = Array.isArray(filter.sqlFragments) ? filter.sqlFragments : [];
    const hazard = findFragmentHazard(fragments.join(' ? '));
    if (hazard) return hazard;
  }
  for (const value of Object.values(filter)) {
    if (typeof value !== 'object' || value === null) continue;
    const hazard = findRawFilterHazard(value);
    if (hazard) return hazard;
  }
  return undefined;
}
