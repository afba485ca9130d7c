// Runs before `npm start` and `npm run token` (prestart, pretoken): makes sure dist/ holds a
// build of the current sources, so the two set-up commands (`npm install && npm start`) build on
// a fresh clone and a later `npm start` never runs code older than src/. Plain JavaScript on
// purpose: it must run on a production install, where neither TypeScript nor tsx is present —
// there dist/ is the shipped build and is used as it is. Everything it prints goes to stderr, so
// `TOKEN=$(npm run -s token -- …)` captures only the token.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = path.join(ROOT, 'dist/src/main.js');
const SOURCES = ['src', 'generated', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

/** The newest modification time under a file or folder, in ms. */
function newestMtime(target) {
  const stat = statSync(target, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted or renamed file changes its folder
  for (const entry of readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

function findTsc() {
  try {
    const manifest = createRequire(path.join(ROOT, 'package.json')).resolve('typescript/package.json');
    return path.join(path.dirname(manifest), 'bin/tsc');
  } catch {
    return null; // a production install (`npm ci --omit=dev`): no compiler
  }
}

const tsc = findTsc();
if (tsc === null) {
  if (existsSync(ENTRY)) process.exit(0);
  process.stderr.write('dist/ is missing and TypeScript is not installed. Build where the dev dependencies are installed ' +
    '(`npm ci && npm run build`), keep dist/, then `npm ci --omit=dev`.\n');
  process.exit(1);
}
const built = statSync(ENTRY, { throwIfNoEntry: false })?.mtimeMs ?? 0;
if (built > Math.max(...SOURCES.map((s) => newestMtime(path.join(ROOT, s))))) process.exit(0);

process.stderr.write(built === 0 ? 'Building dist/ (first start)…\n' : 'Sources changed since the last build: rebuilding dist/…\n');
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
if (result.status !== 0) {
  rmSync(ENTRY, { force: true }); // tsc emits despite type errors: the next start must try again
  process.stderr.write('The build failed (`npm run build` shows the errors); not starting stale or broken code.\n');
  process.exit(1);
}
