/**
 * Shared helpers for the generator tests: run the real CLI as a child process, make temp copies
 * of fixture specs and walk JSON Schemas. No generator logic lives here.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/specs');
export const MINI_SPEC = path.join(FIXTURES, 'finance-mini.yaml');

export interface CliRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs `codegen/cli.ts` exactly as `npm run generate` does (tsx), from the repo root. */
/** The command-line script `surface:diff` runs, for runCli's second argument. */
export const SURFACE_DIFF_CLI = 'codegen/surface/diff-cli.ts';

export function runCli(args: readonly string[], script = 'codegen/cli.ts'): CliRun {
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, script), ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, ms: performance.now() - started };
}

export function makeTempDir(prefix = 'kobana-codegen-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export type Doc = Record<string, any>; // free-form OpenAPI test documents

export function readYaml(file: string): Doc {
  return parse(readFileSync(file, 'utf8')) as Doc;
}

/** Writes `doc` as YAML into `dir/name` and returns the path. */
export function writeSpec(dir: string, name: string, doc: Doc): string {
  const file = path.join(dir, name);
  writeFileSync(file, stringify(doc));
  return file;
}

type Schema = Record<string, unknown>;

/** Calls `visit` on every subschema reachable through properties/items/anyOf/oneOf/… with its path. */
export function walkSchema(schema: Schema, visit: (node: Schema, at: string) => void, at = '#'): void {
  visit(schema, at);
  const children: Array<[unknown, string]> = [];
  for (const [name, child] of Object.entries((schema.properties as Schema | undefined) ?? {})) children.push([child, `${at}/properties/${name}`]);
  for (const [name, child] of Object.entries((schema.patternProperties as Schema | undefined) ?? {})) children.push([child, `${at}/patternProperties/${name}`]);
  if (schema.items && typeof schema.items === 'object') children.push([schema.items, `${at}/items`]);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') children.push([schema.additionalProperties, `${at}/additionalProperties`]);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    ((schema[key] as Schema[] | undefined) ?? []).forEach((child, index) => children.push([child, `${at}/${key}/${index}`]));
  }
  for (const [child, where] of children) walkSchema(child as Schema, visit, where);
}
