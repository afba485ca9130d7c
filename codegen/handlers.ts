/**
 * The handler side of the contract: lists the modules of the handlers folder (every `*.ts`
 * directly in it, by directory listing — there is no hand-kept index), imports each to read the
 * operationIds its `handlers` map declares, and fails the build when an operation has no handler
 * or a handler has no operation. The module list becomes `generated/handlers.gen.ts`.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildPointer, CodegenError } from './errors.js';
import type { SpecPlan } from './plan-spec.js';

export interface HandlerModule {
  /** The module's path as given on the command line, posix (e.g. `src/api/operations/accounts.ts`). */
  readonly file: string;
  /** Module name without extension (`cost-centers`). */
  readonly name: string;
  readonly operationIds: readonly string[];
}

const MODULE_NAME = /^[a-z][a-z0-9-]*$/;

/** Imports every `<name>.ts` of `dir` (sorted) and reads its exported `handlers` map. */
export async function collectHandlers(dir: string): Promise<HandlerModule[]> {
  const modules: HandlerModule[] = [];
  const names = readdirSync(dir).filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')).sort();
  for (const fileName of names) {
    const file = path.posix.join(dir.split(path.sep).join('/'), fileName);
    const name = fileName.slice(0, -'.ts'.length);
    if (!MODULE_NAME.test(name)) throw new CodegenError('INVALID_HANDLER', file, '', 'a handler module name is lower-case letters, digits and dashes');
    const exported = ((await import(pathToFileURL(path.resolve(dir, fileName)).href)) as { handlers?: unknown }).handlers;
    if (exported === null || typeof exported !== 'object' || Array.isArray(exported)
      || Object.values(exported).some((handler) => typeof handler !== 'function')) {
      throw new CodegenError('INVALID_HANDLER', file, '', 'every module of the handlers folder exports `handlers` (defineOperations({ operationId: handler }))');
    }
    modules.push({ file, name, operationIds: Object.keys(exported) });
  }
  return modules;
}

/** Every planned operation has exactly one handler and every handler names a planned operation. */
export function checkHandlers(plan: SpecPlan, modules: readonly HandlerModule[]): void {
  const problems: CodegenError[] = [];
  const owners = new Map<string, string>();
  const operations = new Set(plan.routes.map((route) => route.operation.operationId));
  for (const module of modules) {
    for (const operationId of module.operationIds) {
      const owner = owners.get(operationId);
      if (owner) problems.push(new CodegenError('INVALID_HANDLER', module.file, '', `handler ${operationId} is also declared in ${owner}`));
      owners.set(operationId, module.file);
      if (!operations.has(operationId)) problems.push(new CodegenError('UNKNOWN_HANDLER', module.file, '', `handler ${operationId} has no operation in ${plan.file}`));
    }
  }
  for (const { operation } of plan.routes) {
    if (owners.has(operation.operationId)) continue;
    problems.push(new CodegenError('MISSING_HANDLER', plan.file, buildPointer('paths', operation.path, operation.method.toLowerCase()),
      `operation ${operation.operationId} has no handler: export it from a module of the handlers folder with defineOperations`));
  }
  if (problems.length === 1) throw problems[0];
  if (problems.length > 1) throw new AggregateError(problems, `${problems.length} handler problems`);
}

/** The import specifier of `module` from a file in `outDir` (`../src/api/operations/accounts.js`). */
export function importSpecifier(outDir: string, module: HandlerModule): string {
  const relative = path.relative(outDir, module.file.replace(/\.ts$/, '.js')).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
}
