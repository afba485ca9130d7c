/**
 * The corpus of public documents (test/codegen/corpus.ts; docs/generator.md#the-real-world-corpus)
 * through the generator as CI runs it: the CLI in a child process with no flags. For each `ci`
 * document: exit 0, one tool per operation but those excluded with their reason, every
 * `inputSchema` compiles with the runtime's ajv, every profile file passes its checker, and the
 * child's peak RSS (measured by a preload, not by the generator) stays within 1 GB. The `soak`
 * documents, which add size but no feature the `ci` ones lack, run only in `npm run soak:corpus`
 * to keep CI's time (docs/testing.md#the-generators-corpus). For every
 * document: the file is there, holds what the list says it covers, under the licence noted.
 * CPU time is measured by the soak and bench/codegen.ts, never asserted.
 */
import { expect } from 'chai';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { skipWithReason } from '../helpers/mocha.js';
import { readDocumentFacts } from './corpus-features.js';
import { corpusFailures, MAX_RSS_MB, runCorpusDocument, summarize } from './corpus-run.js';
import { CORPUS, corpusFile, describeSource, isFixture, REAL_SPECS, type CorpusDocument, type CorpusFeature } from './corpus.js';
import { makeTempDir, REPO_ROOT } from './support.js';

const EVERY_FEATURE: readonly CorpusFeature[] = [
  '1,000+ operations', 'Swagger 2.0 formData', 'OpenAPI 3.1 webhooks', 'callbacks', 'discriminators',
  'recursive schemas', 'unions with array, object and scalar branches', 'multi-file',
];

describe('the generator over the public corpus (test/codegen/corpus.ts), as CI runs it', function () {
  // The largest document (GitHub's REST API) takes minutes of wall time on a loaded machine.
  this.timeout(600_000);
  let dir: string;
  before(function () {
    if (process.env.DATABASE_URL) skipWithReason(this, 'the corpus does not touch a database; it runs once, on the SQLite pass');
    dir = makeTempDir('kobana-public-corpus-');
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('covers every shape the generator must handle, in at least ten documents, each of the noted format, version and licence', () => {
    expect(CORPUS.length).to.be.at.least(10);
    expect(new Set(CORPUS.flatMap((document) => document.covers))).to.have.all.keys(...EVERY_FEATURE);
    for (const document of CORPUS) {
      const facts = readDocumentFacts(corpusFile(document));
      expect([...facts.features], `${document.name} (${describeSource(document)})`).to.include.members([...document.covers]);
      expect(facts.format, `${document.name}: format`).to.equal(document.format);
      if (document.source.kind === 'package') expect(installedVersion(document.source.package), document.source.package).to.equal(document.source.version);
      if (!document.covers.includes('multi-file')) expect(facts.operations, `${document.name}: operations`).to.equal(document.operations);
      const noted = facts.licence ?? sourceNoteLicence(document);
      expect(noted, `${document.name}: licence`).to.equal(document.licence);
    }
    // The reader can tell: Swagger Petstore 3 has none of the shapes.
    const petstore = CORPUS.find((document) => document.name === 'swagger-petstore-3');
    expect(readDocumentFacts(corpusFile(petstore!)).features).to.be.empty;
  });

  const inCi = CORPUS.filter((document) => document.run === 'ci');
  it('runs the 1,000-operation document in CI', () => {
    expect(inCi.flatMap((document) => document.covers)).to.include('1,000+ operations');
  });

  for (const document of inCi) {
    const tools = document.operations - Object.keys(document.excluded).length;
    it(`${document.name} (${describeSource(document)}): ${tools} tools, every inputSchema compiles, every profile file passes its checker, peak RSS ≤ ${MAX_RSS_MB} MB`, () => {
      const out = path.join(dir, document.name);
      const run = runCorpusDocument(document, out);
      expect(run.status, `${document.name} failed after ${run.cpuSeconds.toFixed(1)} s of CPU:\n${summarize(run.errors)}`).to.equal(0);
      const failures = corpusFailures(document, out, run);
      expect(failures.length, `${document.name}: ${failures.length} failures:\n${summarize(failures)}`).to.equal(0);
    });
  }
});

/** The version of a dev dependency in node_modules (the lockfile pins it; the list notes it). */
function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** A fixture without `info.license` names its licence in its SOURCE.md (`- Licence: MIT (…)`). */
function sourceNoteLicence(document: CorpusDocument): string | undefined {
  if (!isFixture(document)) return undefined;
  const note = readFileSync(path.join(REAL_SPECS, document.source.folder, 'SOURCE.md'), 'utf8');
  return /^- Licence: (.+?)(?: \(|,|$)/m.exec(note)?.[1];
}
