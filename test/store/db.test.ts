import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { resolveSqlitePath } from '../../src/store/db.js';

describe('resolveSqlitePath(dataDir)', () => {
  it('creates a missing data folder readable by its owner only (it holds the books and the signing keys)', () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-db-'));
    try {
      const dataDir = path.join(parent, 'data');
      expect(resolveSqlitePath(dataDir)).to.equal(path.join(dataDir, 'kobana.sqlite'));
      expect(fs.statSync(dataDir).mode & 0o777).to.equal(0o700);
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  it('passes :memory: through without touching the file system', () => {
    expect(resolveSqlitePath(':memory:')).to.equal(':memory:');
  });
});
