/**
 * `tools/list` (ready bytes per caller, era and view: src/mcp/tools/catalog.ts) and `tools/call`
 * (src/mcp/tools/call.ts: lookup in the view → arguments → `execute` with the confirmation of
 * destructive tools → result mapping → log line).
 */
import { callTool, type ToolCallDeps } from '../tools/call.js';
import type { MethodTable } from './types.js';

export type ToolMethodDeps = ToolCallDeps;

export function createToolMethods(deps: ToolMethodDeps): MethodTable {
  return {
    'tools/list': {
      eras: 'both',
      callerScoped: true,
      handle: async ({ caller, era, view }) => deps.catalog.listResult(caller, era, view),
    },
    'tools/call': {
      eras: 'both',
      callerScoped: false,
      handle: (ctx) => callTool(deps, ctx),
    },
  };
}
