/**
 * Where a side of the comparison comes from: a git revision (its committed generated/), a folder
 * holding the two files, one of the two files (its sibling is read beside it), or the freshly
 * generated files in memory. The default base of `generate` is the review copy at the merge base
 * with the main branch (`git merge-base HEAD main`) when git has one, else the copy on disk before
 * regeneration (the report's label says so and why).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { readSurface, type Surface } from './surface.js';
import { REVIEW_FILE, TOOLS_LIST_FILE } from './review.js';

const MAIN_BRANCHES = ['main', 'origin/main'];

/** Runs git in `dir`; undefined when git fails (no repository, no such revision or file). */
function git(dir: string, args: readonly string[]): string | undefined {
  try {
    return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 256 * 1024 * 1024 });
  } catch {
    return undefined;
  }
}

/** The nearest existing folder of `target` (the output folder may not exist yet). */
function existingFolder(target: string): string {
  let folder = path.resolve(target);
  while (!existsSync(folder)) folder = path.dirname(folder);
  return statSync(folder).isDirectory() ? folder : path.dirname(folder);
}

/** The output folder as a path inside its git work tree; undefined outside one. */
function repositoryPath(outDir: string): { root: string; relative: string } | undefined {
  const folder = existingFolder(outDir);
  const top = git(folder, ['rev-parse', '--show-toplevel'])?.trim();
  if (!top) return undefined;
  const resolved = path.join(realpathSync(folder), path.relative(folder, path.resolve(outDir)));
  const relative = path.relative(realpathSync(top), resolved).split(path.sep).join('/');
  return relative.startsWith('..') ? undefined : { root: top, relative };
}

/** The two files of `outDir` as committed at `revision`; undefined when the revision has no tools list there. */
export function readRevision(revision: string, outDir: string): Surface | undefined {
  const where = repositoryPath(outDir);
  if (where === undefined) throw new Error(`${outDir} is not inside a git work tree: cannot read revision ${revision}`);
  const commit = git(where.root, ['rev-parse', '--verify', '--quiet', `${revision}^{commit}`])?.trim();
  if (!commit) throw new Error(`unknown revision: ${revision}`);
  const show = (file: string): string | undefined => git(where.root, ['show', `${commit}:${where.relative === '' ? '' : `${where.relative}/`}${file}`]);
  const list = show(TOOLS_LIST_FILE);
  if (list === undefined) return undefined;
  return readSurface(`${revision} (${commit.slice(0, 7)})`, list, show(REVIEW_FILE));
}

/** A folder with the two files, or one of them (the other read beside it; the review copy may be absent). */
export function readPath(target: string): Surface {
  const folder = statSync(target).isDirectory() ? target : path.dirname(target);
  if (!statSync(target).isDirectory() && ![TOOLS_LIST_FILE, REVIEW_FILE].includes(path.basename(target))) {
    throw new Error(`${target}: expected a folder, ${TOOLS_LIST_FILE} or ${REVIEW_FILE}`);
  }
  const listFile = path.join(folder, TOOLS_LIST_FILE);
  if (!existsSync(listFile)) throw new Error(`${folder}: no ${TOOLS_LIST_FILE}`);
  const reviewFile = path.join(folder, REVIEW_FILE);
  return readSurface(folder, readFileSync(listFile, 'utf8'), existsSync(reviewFile) ? readFileSync(reviewFile, 'utf8') : undefined);
}

/**
 * A revision named on the command line (`--base`, a side of surface:diff): both files must be there
 * and readable; a report that quietly compared less than was asked for would pass what it never checked.
 */
export function readNamedRevision(revision: string, outDir: string): Surface {
  const surface = readRevision(revision, outDir);
  if (surface === undefined) throw new Error(`${revision} has no ${outDir}/${TOOLS_LIST_FILE}`);
  if (!surface.hasReview) throw new Error(`${surface.label} has no readable ${outDir}/${REVIEW_FILE} (missing, of another version or malformed)`);
  return surface;
}

/** A side named on the command line: a path when one exists, else a git revision of `outDir`. */
export function readSide(name: string, outDir: string): Surface {
  return existsSync(name) ? readPath(name) : readNamedRevision(name, outDir);
}

/**
 * The default base: the merge base with main when git has one and it holds the tools list, else the
 * files on disk, labelled with why (a shallow or detached checkout has no merge base); undefined when neither.
 */
export function findDefaultBase(outDir: string): Surface | undefined {
  const where = repositoryPath(outDir);
  let why = where === undefined ? 'not inside a git work tree' : `no merge base with ${MAIN_BRANCHES.join(' or ')} found`;
  for (const branch of where === undefined ? [] : MAIN_BRANCHES) {
    const mergeBase = git(where!.root, ['merge-base', 'HEAD', branch])?.trim();
    if (!mergeBase) continue;
    const surface = readRevision(mergeBase, outDir);
    if (surface !== undefined) return { ...surface, label: `merge base with ${branch} (${mergeBase.slice(0, 7)})` };
    why = `the merge base with ${branch} (${mergeBase.slice(0, 7)}) has no ${TOOLS_LIST_FILE}`;
  }
  return existsSync(path.join(outDir, TOOLS_LIST_FILE)) ? { ...readPath(outDir), label: `${outDir} on disk (${why})` } : undefined;
}

/** The head side from the files generate just produced (in memory). */
export function readGenerated(label: string, files: ReadonlyMap<string, string>): Surface {
  const list = files.get(TOOLS_LIST_FILE);
  if (list === undefined) throw new Error(`internal: ${TOOLS_LIST_FILE} was not generated`);
  return readSurface(label, list, files.get(REVIEW_FILE));
}
