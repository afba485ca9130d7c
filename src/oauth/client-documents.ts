/**
 * Client ID Metadata Documents (docs/security.md#client-id-metadata-documents): a client may use
 * the https URL of its metadata document as its `client_id` instead of registering, as the
 * 2025-11-25 MCP authorization spec prefers. oidc-provider's experimental
 * `clientIdMetadataDocument` feature fetches and validates the document (its `client_id` must be
 * that URL, no shared secrets, https URIs); this module bounds it: https only (oidc-provider),
 * never a host that resolves to a private, loopback, link-local or other special-use address
 * (checked here before the fetch, and again by oidc-provider's guard on the connection itself),
 * at most `MAX_CLIENT_DOCUMENT_BYTES`, `CLIENT_DOCUMENT_TIMEOUT_MS`, cached between
 * `CLIENT_DOCUMENT_CACHE_SECONDS` (min, max: the document's own Cache-Control in between), and
 * refused unless it is a public client with redirect URIs our registration policy accepts.
 *
 * The only way around the address rule is `ClientDocumentTestSeam`, an option a test passes into
 * `createServices` (src/bootstrap.ts): no configuration, environment variable or request reaches it.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';

/** The experimental feature's version this code was written against: oidc-provider refuses to start when its draft moves on. */
export const CLIENT_ID_METADATA_DOCUMENT_ACK = 'draft-02';

/** The largest document accepted (real ones are a few hundred bytes). */
export const MAX_CLIENT_DOCUMENT_BYTES = 5 * 1024;

/** How long fetching a document may take, connection included. */
export const CLIENT_DOCUMENT_TIMEOUT_MS = 2500;

/** How long a fetched document is reused: its Cache-Control max-age, within these bounds. */
export const CLIENT_DOCUMENT_CACHE_SECONDS = { min: 300, max: 86_400 } as const;

/**
 * Tests only: the fetch that reaches the test's own https server (its self-signed certificate),
 * which also lifts the address rule (that server is on loopback). Never set by src/main.ts.
 */
export interface ClientDocumentTestSeam {
  readonly fetch: (url: string, init: RequestInit) => Promise<Response>;
}

type Settings<K extends keyof Configuration> = NonNullable<Configuration[K]>;

/** Addresses a document is never fetched from: not globally routable (RFC 6890 and its successors). */
const SPECIAL_USE = (() => {
  const list = new BlockList();
  const v4: Array<[string, number]> = [
    ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
    ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
    ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
  ];
  for (const [net, prefix] of v4) list.addSubnet(net, prefix, 'ipv4');
  const v6: Array<[string, number]> = [['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]];
  for (const [net, prefix] of v6) list.addSubnet(net, prefix, 'ipv6');
  return list;
})();

/** The IPv4 address of an IPv4-mapped IPv6 one (`::ffff:127.0.0.1`, `::ffff:7f00:1`), else null. */
function mappedIPv4(address: string): string | null {
  // The URL parser writes every IPv6 form in one (compressed, hex) way.
  const match = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(URL.parse(`http://[${address}]/`)?.hostname ?? '');
  if (match === null) return null;
  const [high, low] = [parseInt(match[1] as string, 16), parseInt(match[2] as string, 16)];
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

export function isSpecialUseAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return SPECIAL_USE.check(address, 'ipv4');
  const mapped = mappedIPv4(address);
  return mapped !== null ? SPECIAL_USE.check(mapped, 'ipv4') : SPECIAL_USE.check(address, 'ipv6');
}

/** Whether every address the document's host resolves to is public (an unresolvable host is not). */
async function resolvesPublicly(clientId: string): Promise<boolean> {
  const url = URL.parse(clientId);
  if (url === null || url.protocol !== 'https:') return false;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return !isSpecialUseAddress(host);
  try {
    const addresses = await lookup(host, { all: true, verbatim: true });
    return addresses.length > 0 && addresses.every((a) => !isSpecialUseAddress(a.address));
  } catch {
    return false;
  }
}

/** The feature's settings; `allowClient` applies the registration policy (provider.ts) to the document's metadata. */
export function clientDocumentFeature(
  seam: ClientDocumentTestSeam | undefined,
  allowMetadata: (metadata: Record<string, unknown>) => boolean,
): Settings<'features'>['clientIdMetadataDocument'] {
  return {
    enabled: true,
    ack: CLIENT_ID_METADATA_DOCUMENT_ACK,
    allowFetch: async (_ctx: KoaContextWithOIDC, clientId: string) => seam !== undefined || resolvesPublicly(clientId),
    allowClient: async (_ctx, client) => allowMetadata(client.metadata() as Record<string, unknown>),
    cacheDuration: { ...CLIENT_DOCUMENT_CACHE_SECONDS },
  };
}

/**
 * oidc-provider's outgoing fetch (used for these documents only: no other feature that fetches
 * is on): its SSRF-guarded dispatcher and our time cap; the seam's fetch in tests.
 */
export function clientDocumentFetch(seam: ClientDocumentTestSeam | undefined): Pick<Configuration, 'fetch' | 'fetchResponseBodyLimits'> {
  return {
    fetch: async (input, init = {}) => {
      const signal = AbortSignal.any([AbortSignal.timeout(CLIENT_DOCUMENT_TIMEOUT_MS), ...(init.signal ? [init.signal] : [])]);
      const url = input instanceof Request ? input.url : String(input);
      return seam !== undefined ? seam.fetch(url, { ...init, signal }) : globalThis.fetch(url, { ...init, signal });
    },
    fetchResponseBodyLimits: { 'client_id metadata document': MAX_CLIENT_DOCUMENT_BYTES },
  };
}
