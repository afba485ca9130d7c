/**
 * The README is what a newcomer needs — set-up, try it, connect a client, where things are,
 * pointers into docs/ — and no more: at most 160 lines. Everything else lives in docs/
 * (docs/README.md is the index), where the README links.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { PACKAGE_ROOT } from '../../src/package-root.js';

const MAX_README_LINES = 160;

describe('README.md stays a newcomer\'s page', () => {
  const readme = readFileSync(path.join(PACKAGE_ROOT, 'README.md'), 'utf8');

  it(`has at most ${MAX_README_LINES} lines (the rest goes into docs/)`, () => {
    const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
    expect(lines, 'README.md lines').to.be.at.most(MAX_README_LINES);
  });

  it('has the set-up, try it, connect a client and where things are, and points into docs/', () => {
    const headings = [...readme.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1]);
    expect(headings).to.include.members(['Set-up: two commands', 'Try it', 'Connect a client', 'Where things are', 'Documentation']);
    expect(readme).to.contain('npm install && npm start').and.to.contain('npm test').and.to.contain('docs/README.md');
  });
});
