/**
 * The former names of renamed tools (`x-mcp.aliases`) across the document: each must be a name no
 * tool and no other alias has (`tools/call` finds exactly one tool by it), and an alias past its
 * `until` date is an EXPIRED_ALIAS warning — under `--strict` (CI) the build fails until it is removed,
 * so an old name does not outlive the date its callers were promised.
 */
import { CodegenError, type SpecWarning } from '../errors.js';
import type { OperationModel } from '../plan-operation.js';

/** Today's date in UTC (`YYYY-MM-DD`), whatever the machine's time zone: the date aliases expire against. */
export function utcToday(now: number = Date.now()): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** Fails on an alias of an operation without a tool, or one that is another tool's name or another alias. */
export function checkAliases(models: readonly OperationModel[], toolNames: ReadonlyMap<OperationModel, string>): void {
  const owners = new Map<string, string>();
  for (const [model, name] of toolNames) owners.set(name, `the tool of ${model.ref.method} ${model.ref.path}`);
  for (const model of models) {
    model.mcp.aliases.forEach((alias, index) => {
      const at = `${model.pointer}/x-mcp/aliases/${index}/name`;
      if (!toolNames.has(model)) throw new CodegenError('INVALID_EXTENSION', model.file, at, `x-mcp.aliases on an operation without a tool (x-mcp.exclude): ${alias.name} would name nothing`);
      const owner = owners.get(alias.name);
      if (owner !== undefined) throw new CodegenError('NAME_CLASH', model.file, at, `alias ${alias.name} of ${toolNames.get(model)} is already the name of ${owner}`);
      owners.set(alias.name, `an alias of ${toolNames.get(model)}`);
    });
  }
}

/** One EXPIRED_ALIAS warning per alias whose `until` is before `today` (both `YYYY-MM-DD`, so text order is date order). */
export function expiredAliases(models: readonly OperationModel[], toolNames: ReadonlyMap<OperationModel, string>, today: string): SpecWarning[] {
  return models.flatMap((model) => model.mcp.aliases.flatMap((alias, index) => (alias.until < today
    ? [{
        rule: 'EXPIRED_ALIAS' as const, file: model.file, pointer: `${model.pointer}/x-mcp/aliases/${index}`,
        detail: `alias ${alias.name} of ${toolNames.get(model) ?? model.ref.operationId} was answered until ${alias.until} (today is ${today}, UTC); remove it`,
      }]
    : [])));
}
