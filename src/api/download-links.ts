/**
 * Download links a person can open (docs/security.md#download-links): an absolute URL
 * `$PUBLIC_URL/downloads/attachments/<id>?link=<jwt>` that opens in a browser with no token. The
 * JWT (HS256) is signed with a key derived by HKDF from the confirmation key
 * (src/api/confirmation/key.ts), lives DOWNLOAD_LINK_TTL_SECONDS on the services' clock and binds
 * the person, organization, workspace and attachment. It carries no authority of its own: each
 * use is authorized again for the person it names (src/http/download-link.ts runs the download
 * through `execute` on the `link` channel), so a deactivated membership, a removed permission or
 * workspace grant, or a deleted attachment refuses it before it expires.
 */
import { hkdfSync } from 'node:crypto';
import type { Kysely } from 'kysely';
import { SignJWT, jwtVerify } from 'jose';
import type { Config } from '../config.js';
import type { Database } from '../store/schema.js';
import type { Clock } from '../runtime/clock.js';
import type { TokenType } from '../identity/caller.js';
import { createConfirmationKeyReader } from './confirmation/key.js';

/** Where the links are served (src/http/download-link.ts). */
export const DOWNLOAD_LINK_PATH = '/downloads/attachments';
/** Five minutes: long enough to click, short enough that a forwarded link soon stops working (the issue caps it at ten). */
export const DOWNLOAD_LINK_TTL_SECONDS = 300;
/** The query parameter holding the signed link. */
export const DOWNLOAD_LINK_PARAMETER = 'link';

const HKDF_INFO = 'kobana-finance download-link v1';
const LINK_TYPE = 'download-link+jwt';

/** What a link is bound to. */
export interface DownloadGrant {
  readonly personId: string;
  readonly organizationId: string;
  readonly workspaceId: string;
  readonly attachmentId: string;
  /** The token type of the call that made the link (its use is logged with it). */
  readonly tokenType: TokenType;
}

export interface IssuedLink {
  readonly url: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

export interface DownloadLinks {
  issue(grant: DownloadGrant): Promise<IssuedLink>;
  /** The grant of a link that is genuine, unexpired and made for `attachmentId`; undefined otherwise (never tells which). */
  read(link: string, attachmentId: string): Promise<DownloadGrant | undefined>;
}

export interface DownloadLinkDeps {
  readonly config: Pick<Config, 'publicUrl' | 'confirmationKey' | 'dataDir'>;
  readonly db: Kysely<Database>;
  readonly clock: Clock;
}

/** A key of its own for links, so a link is never a valid confirmation state or the other way round. */
function deriveLinkKey(confirmationKey: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', confirmationKey, new Uint8Array(0), HKDF_INFO, 32));
}

function readGrant(payload: Record<string, unknown>, attachmentId: string): DownloadGrant | undefined {
  const { sub, org, ws, att, tt } = payload;
  if (typeof sub !== 'string' || typeof org !== 'string' || typeof ws !== 'string' || att !== attachmentId) return undefined;
  if (tt !== 'oauth' && tt !== 'personal') return undefined;
  return { personId: sub, organizationId: org, workspaceId: ws, attachmentId, tokenType: tt };
}

export function createDownloadLinks(deps: DownloadLinkDeps): DownloadLinks {
  const { publicUrl } = deps.config;
  const audience = `${publicUrl}${DOWNLOAD_LINK_PATH}`;
  // A failed load of the confirmation key is tried again on the next use (createConfirmationKeyReader).
  const readKey = createConfirmationKeyReader(deps.config, deps.db, deps.clock);
  let derived: Uint8Array | undefined;
  const linkKey = async (): Promise<Uint8Array> => {
    derived ??= deriveLinkKey(await readKey());
    return derived;
  };
  return {
    async issue(grant) {
      const nowSeconds = Math.floor(deps.clock.now() / 1000);
      const expiresAt = nowSeconds + DOWNLOAD_LINK_TTL_SECONDS;
      const jwt = await new SignJWT({ org: grant.organizationId, ws: grant.workspaceId, att: grant.attachmentId, tt: grant.tokenType })
        .setProtectedHeader({ alg: 'HS256', typ: LINK_TYPE })
        .setIssuer(publicUrl).setAudience(audience).setSubject(grant.personId)
        .setIssuedAt(nowSeconds).setExpirationTime(expiresAt)
        .sign(await linkKey());
      const url = `${publicUrl}${DOWNLOAD_LINK_PATH}/${encodeURIComponent(grant.attachmentId)}?${DOWNLOAD_LINK_PARAMETER}=${jwt}`;
      return { url, expiresAt };
    },
    async read(link, attachmentId) {
      const secret = await linkKey();
      try {
        const { payload } = await jwtVerify(link, secret, {
          algorithms: ['HS256'], typ: LINK_TYPE, issuer: publicUrl, audience, currentDate: new Date(deps.clock.now()), clockTolerance: 0,
          requiredClaims: ['exp', 'iat', 'sub'],
        });
        return readGrant(payload, attachmentId);
      } catch {
        return undefined;
      }
    },
  };
}
