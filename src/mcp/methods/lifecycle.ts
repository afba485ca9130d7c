/**
 * `initialize` and `ping` (2025 era) and `server/discover` (modern era): versions,
 * capabilities and the instructions, built for the caller from what its `tools/list` shows in
 * the request's view (instructions.ts). No state is kept: `initialize` only negotiates.
 */
import { serverInstructions } from '../instructions.js';
import type { ToolCatalog } from '../tools/catalog.js';
import { SUPPORTED_VERSIONS, describeServer } from '../versions.js';
import type { MethodTable } from './types.js';

/** docs/protocol.md#2025-era: nothing changes during a connection, nothing is pushed. */
const LEGACY_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: false, listChanged: false },
  prompts: { listChanged: false },
  completions: {},
} as const;

/** docs/protocol.md#modern-era-2026-07-28: no `listChanged`/`subscribe` in the stateless era. */
const MODERN_CAPABILITIES = { tools: {}, resources: {}, prompts: {}, completions: {} } as const;

export function createLifecycleMethods(catalog: Pick<ToolCatalog, 'shown'>): MethodTable {
  return {
    initialize: {
      eras: 'legacy',
      callerScoped: true,
      handle: async ({ era, caller, view }) => ({
        protocolVersion: era.version,
        capabilities: LEGACY_CAPABILITIES,
        serverInfo: describeServer(era),
        instructions: serverInstructions(catalog.shown(caller, view)),
      }),
    },
    ping: {
      eras: 'legacy',
      callerScoped: false,
      handle: async () => ({}),
    },
    'server/discover': {
      eras: 'modern',
      callerScoped: true,
      handle: async ({ caller, view }) => ({
        supportedVersions: [...SUPPORTED_VERSIONS],
        capabilities: MODERN_CAPABILITIES,
        instructions: serverInstructions(catalog.shown(caller, view)),
      }),
    },
  };
}
