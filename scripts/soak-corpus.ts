/**
 * The generator's corpus soak (docs/testing.md#the-generators-corpus): every document of
 * test/codegen/corpus.ts — those CI runs (test/codegen/corpus.test.ts) and those too costly for it
 * (`run: 'soak'`) — through the CLI as CI runs it (no flags, a child process each, one after the
 * other), with the checks of the corpus test. Prints a Markdown row per document: outcome, CPU
 * seconds (user + system) and peak RSS of the child, measured by a preload, and wall time; exits 1
 * when any document fails.
 *
 *   npm run soak:corpus                          # every document
 *   npm run soak:corpus -- --only github-rest,bunq
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { corpusFailures, runCorpusDocument, type CorpusRun } from '../test/codegen/corpus-run.js';
import { CORPUS, describeSource, type CorpusDocument } from '../test/codegen/corpus.js';

const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

/** `ok`, or what failed: the CLI's first error, or the number of failures and the first. */
function outcome(document: CorpusDocument, outDir: string, run: CorpusRun): { ok: boolean; text: string } {
  if (run.status !== 0) return { ok: false, text: `fails after ${run.cpuSeconds.toFixed(1)} s of CPU: ${run.errors[0] ?? `exit ${run.status}`}` };
  const failures = corpusFailures(document, outDir, run);
  return failures.length === 0 ? { ok: true, text: 'ok' } : { ok: false, text: `fails: ${failures.length} problems, first: ${failures[0]}` };
}

function main(): number {
  const { values } = parseArgs({ options: { only: { type: 'string' } } });
  const names = values.only?.split(',');
  const documents = CORPUS.filter((document) => names === undefined || names.includes(document.name));
  if (documents.length === 0) throw new Error(`no corpus document named ${values.only}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'kobana-corpus-soak-'));
  let failed = 0;
  try {
    console.log(`load average before: ${load()} (${cpus().length} CPUs, Node ${process.version})`);
    console.log('| document | source | run | outcome | CPU (user + system) | peak RSS | wall |');
    console.log('|---|---|---|---|---:|---:|---:|');
    for (const document of documents) {
      const out = path.join(dir, document.name);
      const run = runCorpusDocument(document, out);
      const result = outcome(document, out, run);
      if (!result.ok) failed += 1;
      console.log(`| ${document.name} | ${describeSource(document)} | ${document.run} | ${result.text.replace(/\|/g, '/').slice(0, 240)} | ${run.cpuSeconds.toFixed(1)} s | ${run.maxRssMb.toFixed(0)} MB | ${run.wallSeconds.toFixed(1)} s |`);
      rmSync(out, { recursive: true, force: true });
    }
    console.log(`load average after: ${load()}; ${failed} of ${documents.length} documents failed`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return failed === 0 ? 0 : 1;
}

process.exitCode = main();
