/**
 * The tools as served. Each tool's JSON is serialized once per (schema form, era variant) — the
 * first time that form is asked for — and a whole `tools/list` response is kept as bytes per
 * (protocol version, schema form, tools shown): the JSON-RPC `id` is the only thing spliced in
 * per request, so no tool schema is serialized or re-encoded while answering. Which tools are
 * shown is scope ∩ permission (`OperationService.canReach`) narrowed by the request's view
 * (view.ts), and in a client schema profile by the tools the generator found that profile cannot
 * represent (generated/profile-exclusions.gen.ts): those are neither listed nor callable in it.
 */
import type { Caller, OperationService } from '../../api/index.js';
import { Lru } from '../../runtime/lru.js';
import { decodeArguments, NO_PROFILE_EXCLUSIONS, toSchemaProfile, type Decoder, type ProfileExclusions, type SchemaProfile } from '../../runtime/schema-profiles.js';
import type { JsonSchema, ToolDefinition } from '../../runtime/types.js';
import { PreparedResult, RawJson, serializeResult } from '../json-rpc.js';
import { shapeResult } from '../respond.js';
import { DEFAULT_VIEW, viewShows, type ToolView } from '../view.js';
import { knowsStructuredOutput, knowsTitles, type Era } from '../versions.js';

export interface CatalogEntry {
  readonly tool: ToolDefinition;
}

export interface ToolCatalog {
  /** Sorted by name. */
  readonly entries: readonly CatalogEntry[];
  /** Every toolset a tool belongs to (the names `?toolsets=` accepts). */
  readonly toolsets: ReadonlySet<string>;
  /** The tool `tools/call` names (by its name or a former one), when the view shows it; undefined answers like an unknown tool. */
  find(name: string, view: ToolView): CatalogEntry | undefined;
  /** Arguments written in the view's schema form, as canonical arguments. */
  decodeArguments(entry: CatalogEntry, view: ToolView, args: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>>;
  /** The tools `tools/list` shows this caller in this view, by name (the instructions are built from them). */
  shown(caller: Caller, view: ToolView): readonly ToolDefinition[];
  /** The whole `tools/list` result for this caller, era and view, era shaping included. */
  listResult(caller: Caller, era: Era, view: ToolView): PreparedResult;
}

/**
 * Bounded: one entry per (version, schema form, tool set) in use, ~50–150 KB each; callers with
 * the same scopes and permissions share one. Least recently used goes first.
 */
const MAX_CACHED_LISTS = 64;

/** The fields of one tool in `tools/list`, in order (docs/protocol.md#tools); 2025-03-26 has no title and no outputSchema. */
export function describeTool(tool: ToolDefinition, inputSchema: JsonSchema, era: Era): Record<string, unknown> {
  const { name, title, description, annotations } = tool;
  const full = knowsTitles(era);
  const outputSchema = knowsStructuredOutput(era) && tool.output ? tool.output.schema : undefined;
  // annotations (incl. its optional title) exist since 2025-03-26; the tool-level title does not.
  return full
    ? { name, title, description, inputSchema, ...(outputSchema ? { outputSchema } : {}), annotations }
    : { name, description, inputSchema, annotations };
}

interface ProfiledEntry {
  readonly inputSchema: JsonSchema;
  readonly decoder: Decoder | null;
}

type Entries = readonly CatalogEntry[];

/** Whether the profile serves the tool at `index`: a profile serves all but the tools the generator excluded from it. */
type Served = (profile: SchemaProfile, index: number) => boolean;

function createServed(entries: Entries, exclusions: ProfileExclusions): Served {
  const excluded = new Map(Object.entries(exclusions).map(([profile, names]) => [profile, new Set(names)] as const));
  const flags = new Map<SchemaProfile, readonly boolean[]>();
  for (const [profile, names] of excluded) if (names.size > 0) flags.set(profile as SchemaProfile, entries.map(({ tool }) => !names.has(tool.name)));
  return (profile, index) => flags.get(profile)?.[index] ?? true;
}

/** Each tool's input schema and JSON per schema form (and era variant), computed the first time the form is asked for. */
function createSchemaForms(entries: Entries, served: Served): { profiled(profile: SchemaProfile): readonly ProfiledEntry[]; toolJson(era: Era, profile: SchemaProfile): readonly string[] } {
  const profiles = new Map<SchemaProfile, readonly ProfiledEntry[]>();
  const serialized = new Map<string, readonly string[]>();
  const profiled = (profile: SchemaProfile): readonly ProfiledEntry[] => {
    let forms = profiles.get(profile);
    if (forms === undefined) {
      forms = entries.map(({ tool }, index) => {
        // A tool the profile does not serve is never shown in it: its form is never built.
        if (profile === 'canonical' || !served(profile, index)) return { inputSchema: tool.inputSchema, decoder: null };
        const { schema, decoder } = toSchemaProfile(profile, tool.inputSchema);
        return { inputSchema: schema, decoder };
      });
      profiles.set(profile, forms);
    }
    return forms;
  };
  const toolJson = (era: Era, profile: SchemaProfile): readonly string[] => {
    const key = `${knowsTitles(era) ? 't' : 'u'}${knowsStructuredOutput(era) ? 'o' : ''}|${profile}`;
    let texts = serialized.get(key);
    if (texts === undefined) {
      const forms = profiled(profile);
      texts = entries.map(({ tool }, index) => JSON.stringify(describeTool(tool, forms[index]!.inputSchema, era)));
      serialized.set(key, texts);
    }
    return texts;
  };
  return { profiled, toolJson };
}

/**
 * One character per tool, '1' where scope ∩ permission reaches it: cheap to build, unique per
 * reachable set. Reachability depends on the caller's membership and token scopes only
 * (canReach). Both are the same objects from call to call while the token's verification and the
 * identity version are cached (auth/verify.ts, auth/caller.ts); any change there makes new
 * objects, so a flag set kept under the old ones is never consulted again.
 */
function createReachFlags(entries: Entries, operations: Pick<OperationService, 'canReach'>): (caller: Caller) => string {
  const computeReach = (caller: Caller): string => entries.map(({ tool }) => (operations.canReach(caller, tool.operation) ? '1' : '0')).join('');
  const reachable = new WeakMap<object, WeakMap<object, string>>();
  return (caller) => {
    if (caller.membership === null) return computeReach(caller);
    let byScopes = reachable.get(caller.membership);
    if (byScopes === undefined) {
      byScopes = new WeakMap();
      reachable.set(caller.membership, byScopes);
    }
    let flags = byScopes.get(caller.scopes);
    if (flags === undefined) {
      flags = computeReach(caller);
      byScopes.set(caller.scopes, flags);
    }
    return flags;
  };
}

/** The reach flags narrowed by the view: a tool is shown when the caller reaches it, the view shows it and its profile serves it. */
function applyView(entries: Entries, reach: string, view: ToolView, served: Served): string {
  if (view === DEFAULT_VIEW) return reach;
  let flags = '';
  entries.forEach(({ tool }, index) => { flags += reach[index] === '1' && viewShows(view, tool) && served(view.schemaProfile, index) ? '1' : '0'; });
  return flags;
}

/** Name order makes the list deterministic whatever order the registry arrives in. */
export function createToolCatalog(
  tools: readonly ToolDefinition[], operations: Pick<OperationService, 'canReach'>, exclusions: ProfileExclusions = NO_PROFILE_EXCLUSIONS,
): ToolCatalog {
  const entries: CatalogEntry[] = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((tool) => ({ tool }));
  // A renamed tool's former names (x-mcp.aliases) find it too; tools/list never shows them.
  const byName = new Map(entries.flatMap((entry) => [entry.tool.name, ...(entry.tool.aliases ?? []).map((alias) => alias.name)].map((name) => [name, entry] as const)));
  const indexOf = new Map(entries.map((entry, index) => [entry, index]));
  const served = createServed(entries, exclusions);
  const forms = createSchemaForms(entries, served);
  const reachFlags = createReachFlags(entries, operations);
  const lists = new Lru<string, PreparedResult>(MAX_CACHED_LISTS);
  return {
    entries,
    toolsets: new Set(entries.flatMap((entry) => entry.tool.toolsets)),
    find(name, view) {
      const entry = byName.get(name);
      return entry !== undefined && viewShows(view, entry.tool) && served(view.schemaProfile, indexOf.get(entry)!) ? entry : undefined;
    },
    decodeArguments(entry, view, args) {
      if (view.schemaProfile === 'canonical') return args;
      const decoder = forms.profiled(view.schemaProfile)[indexOf.get(entry)!]!.decoder;
      return decoder === null ? args : decodeArguments(decoder, args);
    },
    shown(caller, view) {
      const flags = applyView(entries, reachFlags(caller), view, served);
      return entries.filter((_, index) => flags[index] === '1').map(({ tool }) => tool);
    },
    listResult(caller, era, view) {
      const flags = applyView(entries, reachFlags(caller), view, served);
      const key = `${era.version}|${view.schemaProfile}|${flags}`;
      let cached = lists.get(key);
      if (cached !== undefined) return cached;
      const shown = forms.toolJson(era, view.schemaProfile).filter((_, index) => flags[index] === '1');
      const result = shapeResult(era, { callerScoped: true }, { tools: new RawJson(`[${shown.join(',')}]`) });
      cached = new PreparedResult(serializeResult(result));
      lists.set(key, cached);
      return cached;
    },
  };
}
