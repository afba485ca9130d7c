/**
 * The tools as served: each tool's JSON is serialized once at start-up per era variant, and a
 * `tools/list` body is the concatenation of the caller's reachable tools, cached per (variant,
 * reachable set). Which tools a caller reaches is `OperationService.canReach`'s decision.
 */
import type { Caller, OperationService } from '../dispatch/index.js';
import type { ToolDefinition } from '../runtime/types.js';
import { RawJson } from './json-rpc.js';
import { knowsTitles, type Era } from './versions.js';

export interface CatalogEntry {
  readonly tool: ToolDefinition;
  /** With `title` (2025-06-18, 2026-07-28). */
  readonly titledJson: string;
  /** Without `title` (2025-03-26). */
  readonly untitledJson: string;
}

export interface ToolCatalog {
  readonly entries: readonly CatalogEntry[];
  find(name: string): CatalogEntry | undefined;
  /** The `tools` array for this caller and era, as pre-serialized JSON. */
  listTools(caller: Caller, era: Era): RawJson;
}

/** Bounded: the number of distinct (scope, permission) combinations is small in practice. */
const MAX_CACHED_LISTS = 512;

/** Name order makes the list deterministic whatever order the registry arrives in. */
export function createToolCatalog(tools: readonly ToolDefinition[], operations: Pick<OperationService, 'canReach'>): ToolCatalog {
  const entries = [...tools]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(serializeEntry);
  const byName = new Map(entries.map((entry) => [entry.tool.name, entry]));
  const lists = new Map<string, RawJson>();
  return {
    entries,
    find: (name) => byName.get(name),
    listTools(caller, era) {
      const titled = knowsTitles(era);
      const flags = entries.map((entry) => operations.canReach(caller, entry.tool.operation));
      // One character per tool: cheap to build, unique per reachable set.
      const key = (titled ? 't' : 'u') + flags.map((reached) => (reached ? '1' : '0')).join('');
      let cached = lists.get(key);
      if (cached === undefined) {
        const reachable = entries.filter((_, index) => flags[index]);
        cached = new RawJson(`[${reachable.map((entry) => (titled ? entry.titledJson : entry.untitledJson)).join(',')}]`);
        if (lists.size >= MAX_CACHED_LISTS) lists.clear();
        lists.set(key, cached);
      }
      return cached;
    },
  };
}

function serializeEntry(tool: ToolDefinition): CatalogEntry {
  const { name, title, description, inputSchema, annotations } = tool;
  return {
    tool,
    titledJson: JSON.stringify({ name, title, description, inputSchema, annotations }),
    // annotations (incl. its optional title) exist since 2025-03-26; the tool-level title does not.
    untitledJson: JSON.stringify({ name, description, inputSchema, annotations }),
  };
}
