/**
 * The `CompletionProvider` of `/mcp` (src/mcp/methods/prompts.ts): suggestions for prompt
 * arguments (`ref/prompt`) and resource template variables (`ref/resource`). It offers only
 * what the caller could read: prompts and templates the caller reaches, the caller's own
 * workspaces, and records of tables whose read operation the caller may run, in workspaces
 * the caller reaches. Malformed requests and unknown refs or arguments are -32602.
 */
import type { Caller } from '../../../api/index.js';
import { ApiError } from '../../../api/index.js';
import { findReachableWorkspace, listReachableWorkspaces, resolveWorkspace } from '../../../api/index.js';
import { INVALID_PARAMS, JsonRpcError } from '../../json-rpc.js';
import type { CompletionProvider, MethodContext } from '../../methods/index.js';
import type { ArgumentKind } from '../prompts/arguments.js';
import { canRunTool, listReachablePrompts } from '../prompts/provider.js';
import type { FinanceFeatureDeps } from '../resources/deps.js';
import { FIXED_RESOURCES } from '../resources/fixed.js';
import { canSeeFixed, listReachableTemplates } from '../resources/provider.js';
import { readTemplateResource } from '../resources/uri.js';
import { listMonths, listWeeks } from '../prompts/calendar.js';
import { matchAccountNames, matchRecordIds, type Matches } from './records.js';
import { clockDate, systemClock, type Clock } from '../../../runtime/clock.js';
import { isPlainObject } from '../../../runtime/values.js';

/** MCP: at most 100 values per completion result. */
const MAX_VALUES = 100;
const DAY_SUGGESTIONS = ['7', '15', '30', '60', '90'];

export interface Completion {
  values: readonly string[];
  total: number;
  hasMore: boolean;
}

interface CompleteRequest {
  readonly ref: { readonly type: 'ref/prompt'; readonly name: string } | { readonly type: 'ref/resource'; readonly uri: string };
  readonly name: string;
  readonly value: string;
  readonly context: Readonly<Record<string, string>>;
}

function createInvalidParams(message: string): JsonRpcError {
  return new JsonRpcError(INVALID_PARAMS, message);
}

function readCompleteRequest(params: Readonly<Record<string, unknown>>): CompleteRequest {
  const ref = params['ref'];
  const argument = params['argument'];
  if (!isPlainObject(ref) || !isPlainObject(argument)) throw createInvalidParams('completion/complete needs ref and argument.');
  if (typeof argument['name'] !== 'string' || typeof argument['value'] !== 'string') throw createInvalidParams('argument needs a string name and value.');
  let parsedRef: CompleteRequest['ref'];
  if (ref['type'] === 'ref/prompt' && typeof ref['name'] === 'string') parsedRef = { type: 'ref/prompt', name: ref['name'] };
  else if (ref['type'] === 'ref/resource' && typeof ref['uri'] === 'string') parsedRef = { type: 'ref/resource', uri: ref['uri'] };
  else throw createInvalidParams('ref must be a ref/prompt with a name or a ref/resource with a uri.');
  const given = isPlainObject(params['context']) ? params['context']['arguments'] : undefined;
  const context: Record<string, string> = {};
  if (isPlainObject(given)) for (const [key, value] of Object.entries(given)) if (typeof value === 'string') context[key] = value;
  return { ref: parsedRef, name: argument['name'], value: argument['value'], context };
}

function buildCompletion(matches: Matches): Completion {
  const values = matches.values.slice(0, MAX_VALUES);
  return { values, total: matches.total, hasMore: matches.total > values.length };
}

function filterByPrefix(candidates: readonly string[], typed: string): Completion {
  const wanted = typed.toLowerCase();
  const values = candidates.filter((candidate) => candidate.toLowerCase().startsWith(wanted));
  return buildCompletion({ values, total: values.length });
}

async function completeWorkspaces(deps: FinanceFeatureDeps, caller: Caller, typed: string): Promise<Completion> {
  // The caller's own grants only: the same list `workspace_required` hands back in its details.
  if (caller.membership?.status !== 'active') return buildCompletion({ values: [], total: 0 });
  const wanted = typed.trim().toLowerCase();
  const reachable = await listReachableWorkspaces(deps.db, caller);
  const values = reachable.filter((w) => w.id.startsWith(wanted) || w.name.toLowerCase().startsWith(wanted)).map((w) => w.id);
  return buildCompletion({ values, total: values.length });
}

/**
 * The workspaces a lookup may search: the one the request names (by id, or by name for prompt
 * arguments) or the connection default; with neither, or when the caller reaches several and
 * none is chosen, all of the caller's workspaces. A workspace the caller does not reach → none.
 */
async function pickWorkspaces(deps: FinanceFeatureDeps, ctx: MethodContext, named: string | undefined): Promise<string[]> {
  if (ctx.caller.membership?.status !== 'active') return [];
  const reachable = await listReachableWorkspaces(deps.db, ctx.caller);
  if (named !== undefined && named !== '') {
    const found = findReachableWorkspace(reachable, named);
    return found ? [found.id] : [];
  }
  try {
    return [await resolveWorkspace(deps.db, ctx.caller, { connectionDefault: ctx.connectionWorkspaceId })];
  } catch (error) {
    if (error instanceof ApiError && error.code === 'workspace_required') return reachable.map((w) => w.id);
    if (error instanceof ApiError) return [];
    throw error;
  }
}

async function completePromptArgument(deps: FinanceFeatureDeps, ctx: MethodContext, kind: ArgumentKind, request: CompleteRequest, today: Date): Promise<Completion> {
  switch (kind) {
    case 'workspace':
      return completeWorkspaces(deps, ctx.caller, request.value);
    case 'account': {
      if (!canRunTool(deps, ctx.caller, 'finance_accounts_list')) return buildCompletion({ values: [], total: 0 });
      const workspaceIds = await pickWorkspaces(deps, ctx, request.context['workspace']);
      return buildCompletion(await matchAccountNames(deps.db, workspaceIds, request.value, MAX_VALUES));
    }
    case 'month':
    case 'period':
      // The recent twelve months (this one included) and the next three, newest first.
      return filterByPrefix(listMonths(today, 11, 3).reverse(), request.value);
    case 'week':
      return filterByPrefix(listWeeks(today, 8, 8).reverse(), request.value);
    case 'days':
      return filterByPrefix(DAY_SUGGESTIONS, request.value);
  }
}

async function completeResourceArgument(deps: FinanceFeatureDeps, ctx: MethodContext, uri: string, request: CompleteRequest): Promise<Completion> {
  const template = listReachableTemplates(deps, ctx.caller).find((candidate) => candidate.uriTemplate === uri);
  const fixed = FIXED_RESOURCES.find((candidate) => candidate.uri === uri && canSeeFixed(deps, ctx.caller, candidate));
  if (template === undefined && fixed === undefined) throw createInvalidParams('Unknown resource template.');
  if (request.name === 'workspace_id' && (template !== undefined || fixed?.workspaceScoped === true)) {
    return completeWorkspaces(deps, ctx.caller, request.value);
  }
  if (request.name !== 'id' || template === undefined) throw createInvalidParams('Unknown argument.');
  const resource = readTemplateResource(template);
  if (resource === null) return buildCompletion({ values: [], total: 0 });
  const workspaceIds = await pickWorkspaces(deps, ctx, request.context['workspace_id']);
  return buildCompletion(await matchRecordIds(deps.db, resource, workspaceIds, request.value, MAX_VALUES));
}

/** `options.clock`: the services' clock (src/runtime/clock.ts), the "today" of suggested dates; default the system clock. */
export function createCompletionProvider(deps: FinanceFeatureDeps, options: { clock?: Clock } = {}): CompletionProvider {
  const clock = options.clock ?? systemClock;
  return {
    async complete(ctx) {
      const request = readCompleteRequest(ctx.params);
      if (request.ref.type === 'ref/resource') return completeResourceArgument(deps, ctx, request.ref.uri, request);
      const promptName = request.ref.name;
      const prompt = listReachablePrompts(deps, ctx.caller).find((candidate) => candidate.name === promptName);
      if (prompt === undefined) throw createInvalidParams('Unknown prompt');
      const spec = prompt.arguments.find((argument) => argument.name === request.name);
      if (spec === undefined) throw createInvalidParams('Unknown argument.');
      return completePromptArgument(deps, ctx, spec.kind, request, clockDate(clock));
    },
  };
}
