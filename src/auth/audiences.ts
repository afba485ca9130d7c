/**
 * The `aud` value each surface accepts: `${publicUrl}/mcp` at /mcp and `${publicUrl}/v1` at
 * /v1, so a token minted for one is refused at the other (docs/security.md#identity-and-tokens).
 */
import type { Audience } from './types.js';

export function buildAudiences(publicUrl: string): Record<Audience, string> {
  return { mcp: `${publicUrl}/mcp`, api: `${publicUrl}/v1` };
}
