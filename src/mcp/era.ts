/**
 * Decides the era of one request from its body, then verifies the headers (docs/protocol.md#choosing-the-era):
 * the `_meta` envelope selects the modern era; otherwise the 2025 era with the version of the
 * `MCP-Protocol-Version` header (absent → 2025-03-26). Throws `JsonRpcError`s with HTTP 400.
 */
import { assertHeaderEquals, assertNameHeader, decodeHeaderValue, type HeaderReader } from './headers.js';
import { INVALID_PARAMS, JsonRpcError, UNSUPPORTED_PROTOCOL_VERSION } from './json-rpc.js';
import {
  DEFAULT_LEGACY_VERSION,
  LATEST_LEGACY_VERSION,
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
  MODERN_VERSION,
  SUPPORTED_VERSIONS,
  isLegacyVersion,
  isSupportedVersion,
  type Era,
} from './versions.js';
import { isPlainObject } from '../runtime/values.js';

export interface EraRequest {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>> | undefined;
}

function unsupportedVersion(requested: string): JsonRpcError {
  return new JsonRpcError(UNSUPPORTED_PROTOCOL_VERSION, 'Unsupported protocol version', 400, {
    supported: [...SUPPORTED_VERSIONS],
    requested,
  });
}

export function decideEra(request: EraRequest, read: HeaderReader): Era {
  const meta = request.params?.['_meta'];
  if (isPlainObject(meta) && Object.hasOwn(meta, META_PROTOCOL_VERSION)) return decideModernEra(request, meta, read);
  const header = read('mcp-protocol-version');
  const headerVersion = header === undefined ? undefined : decodeHeaderValue(header) ?? header;
  if (headerVersion === MODERN_VERSION) {
    // docs/protocol.md#choosing-the-era rule 2: the client asked for stateless semantics; never fall back silently.
    throw new JsonRpcError(INVALID_PARAMS, `MCP-Protocol-Version ${MODERN_VERSION} requires params._meta["${META_PROTOCOL_VERSION}"]`, 400);
  }
  if (request.method === 'initialize') return { modern: false, version: negotiateLegacyVersion(request.params) };
  const version = headerVersion ?? DEFAULT_LEGACY_VERSION;
  if (!isLegacyVersion(version)) throw unsupportedVersion(version);
  return { modern: false, version };
}

/** `initialize` echoes a 2025 version we speak, else offers our latest (MCP 2025-06-18 §lifecycle). */
function negotiateLegacyVersion(params: Readonly<Record<string, unknown>> | undefined): Era['version'] {
  const asked = params?.['protocolVersion'];
  return typeof asked === 'string' && isLegacyVersion(asked) ? asked : LATEST_LEGACY_VERSION;
}

function decideModernEra(request: EraRequest, meta: Record<string, unknown>, read: HeaderReader): Era {
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== 'string') {
    throw new JsonRpcError(INVALID_PARAMS, `params._meta["${META_PROTOCOL_VERSION}"] must be a string`, 400);
  }
  // Headers are compared with the body before support is checked (docs/protocol.md#choosing-the-era rule 4).
  assertHeaderEquals(read, 'MCP-Protocol-Version', version);
  // The envelope belongs to the stateless revisions; a 2025 version inside it is not one we speak there.
  if (version !== MODERN_VERSION || !isSupportedVersion(version)) throw unsupportedVersion(version);
  assertHeaderEquals(read, 'Mcp-Method', request.method);
  assertNameHeader(read, request.method, request.params);
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isPlainObject(capabilities)) {
    throw new JsonRpcError(INVALID_PARAMS, `params._meta["${META_CLIENT_CAPABILITIES}"] must be an object`, 400);
  }
  return { modern: true, version, clientCapabilities: capabilities };
}
