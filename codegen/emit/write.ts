/**
 * Puts generated files on disk, or (for `--check`) compares them with what is on disk. Only files
 * named `*.gen.ts` under the output folder are ever deleted or reported as extra.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';

export interface CheckResult {
  readonly changed: string[];
  readonly missing: string[];
  readonly extra: string[];
}

/** Lists `*.gen.ts` files anywhere under `outDir` as output-relative posix paths. */
function listGenerated(outDir: string): string[] {
  if (!existsSync(outDir)) return [];
  return readdirSync(outDir, { recursive: true, encoding: 'utf8' })
    .filter((relative) => relative.endsWith('.gen.ts'))
    .map((relative) => relative.split(path.sep).join('/'))
    .sort();
}

/** Writes every file (only when its content changed) and removes stale `*.gen.ts` files. */
export function writeOutput(outDir: string, files: ReadonlyMap<string, string>): { written: number; removed: number } {
  let written = 0;
  for (const folder of new Set([...files.keys()].map((relative) => path.dirname(path.join(outDir, relative))))) mkdirSync(folder, { recursive: true });
  for (const [relative, text] of files) {
    const target = path.join(outDir, relative);
    if (existsSync(target) && readFileSync(target, 'utf8') === text) continue;
    writeFileSync(target, text);
    written += 1;
  }
  const stale = listGenerated(outDir).filter((relative) => !files.has(relative));
  for (const relative of stale) rmSync(path.join(outDir, relative));
  // A folder the removals emptied goes with them.
  for (const folder of new Set(stale.map((relative) => path.dirname(path.join(outDir, relative))))) {
    if (path.resolve(folder) !== path.resolve(outDir) && existsSync(folder) && readdirSync(folder).length === 0) rmSync(folder, { recursive: true });
  }
  return { written, removed: stale.length };
}

/** Compares the in-memory output with `outDir` without touching the disk. */
export function checkOutput(outDir: string, files: ReadonlyMap<string, string>): CheckResult {
  const changed: string[] = [];
  const missing: string[] = [];
  for (const [relative, text] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const target = path.join(outDir, relative);
    if (!existsSync(target)) missing.push(relative);
    else if (readFileSync(target, 'utf8') !== text) changed.push(relative);
  }
  const extra = listGenerated(outDir).filter((relative) => !files.has(relative));
  return { changed, missing, extra };
}
