/**
 * The protocol revisions this server speaks and the identity it reports (docs/protocol.md).
 * Pure data; the per-request era decision lives in `era.ts`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';

export const MODERN_VERSION = '2026-07-28';
const LEGACY_VERSIONS = ['2025-06-18', '2025-03-26'] as const;
export const SUPPORTED_VERSIONS: readonly string[] = [MODERN_VERSION, ...LEGACY_VERSIONS];
/** The 2025-era version when the client sends no `MCP-Protocol-Version` (MCP 2025-06-18 §transports). */
export const DEFAULT_LEGACY_VERSION = '2025-03-26';
/** What `initialize` answers when the client asks for a version we do not speak. */
export const LATEST_LEGACY_VERSION = '2025-06-18';

export type ProtocolVersion = typeof MODERN_VERSION | (typeof LEGACY_VERSIONS)[number];

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** The era of one request: modern (stateless, `_meta` envelope) or 2025 (`initialize` handshake). */
export interface Era {
  readonly modern: boolean;
  readonly version: ProtocolVersion;
  /** Modern era only: `_meta["io.modelcontextprotocol/clientCapabilities"]`. */
  readonly clientCapabilities?: Readonly<Record<string, unknown>>;
}

export function isSupportedVersion(value: string): value is ProtocolVersion {
  return SUPPORTED_VERSIONS.includes(value);
}

export function isLegacyVersion(value: string): value is (typeof LEGACY_VERSIONS)[number] {
  return (LEGACY_VERSIONS as readonly string[]).includes(value);
}

/** 2025-03-26 predates `title` on tools and implementations (MCP 2025-06-18 changelog). */
export function knowsTitles(era: Era): boolean {
  return era.version !== '2025-03-26';
}

/** `outputSchema` and `structuredContent` arrived in 2025-06-18 (docs/protocol.md#tools). */
export function knowsStructuredOutput(era: Era): boolean {
  return era.version !== '2025-03-26';
}

/** `resource_link` content blocks arrived in 2025-06-18 (a download's link to its attachment, docs/protocol.md#tools). */
export function knowsResourceLinks(era: Era): boolean {
  return era.version !== '2025-03-26';
}

function readPackageVersion(): string {
  const raw = readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8');
  const version = (JSON.parse(raw) as { version?: unknown }).version;
  return typeof version === 'string' ? version : '0.0.0';
}

export const SERVER_INFO = {
  name: 'kobana-finance',
  title: 'Kobana Finance',
  version: readPackageVersion(),
} as const;

/** `serverInfo` as the era knows it (no `title` before 2025-06-18). */
export function describeServer(era: Era): Record<string, string> {
  return knowsTitles(era) ? { ...SERVER_INFO } : { name: SERVER_INFO.name, version: SERVER_INFO.version };
}
