/**
 * The lines of a consent page's statement of access (`ul.access`, src/oauth/pages.ts), as text,
 * and the check that none contradicts another: the Seguridad settings are named in the one line
 * that says the grant never reaches them, and in no other.
 */
import { expect } from 'chai';
import { NEVER_LINE } from '../../../src/oauth/pages.js';

const unescape = (html: string) => html.replace(/<[^>]+>/g, '').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

export function accessLines(html: string): string[] {
  const list = /<ul class="access">(.*?)<\/ul>/s.exec(html);
  if (list === null) throw new Error('the page has no statement of access');
  return [...(list[1] as string).matchAll(/<li>(.*?)<\/li>/gs)].map((m) => unescape(m[1] as string).trim());
}

/** At most six lines; Seguridad only in the "never" line; no line both grants and withholds. */
export function expectConsistentLines(lines: readonly string[]): void {
  expect(lines.length, lines.join('\n')).to.be.within(1, 6);
  expect(lines.filter((l) => /seguridad|security/i.test(l)), lines.join('\n')).to.deep.equal([`${NEVER_LINE}.`]);
  expect(lines.filter((l) => /\bnot\b|except|never/i.test(l)), 'only one line withholds anything').to.deep.equal([`${NEVER_LINE}.`]);
}
