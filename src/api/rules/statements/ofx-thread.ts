/**
 * Parses an OFX file off the event loop (docs/domain.md#bounded-work): one worker thread per
 * file (ofx-worker.ts), at most PARSERS at once in the process, each with a capped heap, and
 * none past the call's deadline — a parse still running then is terminated and the call answers
 * as an outage (DeadlineExceededError). The caller has pre-scanned the file (ofx.ts, prescanOfx).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DeadlineExceededError, type Deadline } from '../../../runtime/deadline.js';
import { OfxBoundExceeded, OfxParseFailure, type OfxLine } from './ofx.js';
import type { OfxWorkerAnswer } from './ofx-worker.js';

/** Parses running at once in this process; more wait their turn (within their deadline). */
const PARSERS = 2;
/** A worker's heap: a file at the contract's bounds needs about a third of it (bench/README.md, OFX import). */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 };

// The worker module beside this one: `.js` in dist/, `.ts` under tsx (tests, dev), where a
// worker thread does not get the parent's loader in time: it registers tsx's before importing.
const here = fileURLToPath(import.meta.url);
const WORKER_FILE = path.join(path.dirname(here), `ofx-worker${path.extname(here)}`);

/** tsx's ESM API (`tsx/esm/api`, import condition), found through its package.json: the worker cannot resolve a package name from an eval'd script. */
function tsxLoaderUrl(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const entry = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api']?.import.default;
  if (entry === undefined) throw new Error('tsx has no ./esm/api export');
  return pathToFileURL(path.join(path.dirname(manifest), entry)).href;
}

let tsxLoader: string | undefined;

function startWorker(): Worker {
  if (!WORKER_FILE.endsWith('.ts')) return new Worker(WORKER_FILE, { resourceLimits: WORKER_LIMITS });
  tsxLoader ??= JSON.stringify(tsxLoaderUrl());
  const loader = tsxLoader;
  const entry = JSON.stringify(pathToFileURL(WORKER_FILE).href);
  return new Worker(`import(${loader}).then((tsx) => { tsx.register(); return import(${entry}); });`, { eval: true, resourceLimits: WORKER_LIMITS });
}

let running = 0;
const waiting: Array<() => void> = [];

function release(): void {
  running -= 1;
  waiting.shift()?.();
}

/** Resolves when a parser slot is free; rejects with DeadlineExceededError if the deadline passes first. */
function acquire(deadline: Deadline): Promise<void> {
  if (running < PARSERS) {
    running += 1;
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    const take = (): void => {
      clearTimeout(timer);
      running += 1;
      resolve();
    };
    const timer = setTimeout(() => {
      const at = waiting.indexOf(take);
      if (at >= 0) waiting.splice(at, 1);
      reject(new DeadlineExceededError());
    }, deadline.remainingMs());
    waiting.push(take);
  });
}

function runWorker(bytes: Uint8Array, maxLines: number, deadline: Deadline): Promise<OfxLine[]> {
  return new Promise((resolve, reject) => {
    const worker = startWorker();
    let settled = false;
    const settle = (finish: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      finish();
    };
    const timer = setTimeout(() => settle(() => reject(new DeadlineExceededError())), deadline.remainingMs());
    worker.once('message', (answer: OfxWorkerAnswer) => settle(() => {
      if ('lines' in answer) resolve(answer.lines);
      else if (answer.failure === 'bound') reject(new OfxBoundExceeded(answer.bound, answer.limit));
      else reject(new OfxParseFailure('not an OFX statement'));
    }));
    // A worker that ran out of its heap (or failed otherwise) read nothing usable.
    worker.once('error', () => settle(() => reject(new OfxParseFailure('the parser failed'))));
    worker.once('exit', () => settle(() => reject(new OfxParseFailure('the parser stopped'))));
    worker.postMessage({ bytes, maxLines });
  });
}

/** The file's lines, parsed in a worker thread; OfxParseFailure, OfxBoundExceeded or DeadlineExceededError otherwise. */
export async function parseOfxOffThread(bytes: Uint8Array, maxLines: number, deadline: Deadline): Promise<OfxLine[]> {
  deadline.check();
  await acquire(deadline);
  try {
    return await runWorker(bytes, maxLines, deadline);
  } finally {
    release();
  }
}
