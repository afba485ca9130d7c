/**
 * The download links a person opens in a browser (docs/security.md#download-links):
 * `GET $PUBLIC_URL/downloads/attachments/<id>?link=<jwt>`, no token. The link is checked
 * (src/api/download-links.ts: signature, expiry on the services' clock, made for this
 * attachment), then the download runs through `execute` on the `link` channel for the person it
 * names — active membership, `attachments.view`, the workspace grant, the attachment still there —
 * and the operation logs the use in the activity. The file is served from the Account's origin,
 * so it is always an attachment, never rendered (`nosniff`, a sandboxing CSP); every refusal is
 * one plain sentence that tells nothing of why.
 */
import Router from '@koa/router';
import type { Caller, Channel, Identity } from '../identity/caller.js';
import { ApiError, DOWNLOAD_LINK_PARAMETER, DOWNLOAD_LINK_PATH, type DownloadLinks, type FileOutput, type OperationService } from '../api/index.js';
import type { AppContext, AppState } from './app-state.js';
import { throttleFailure, type AuthLimits } from './limits.js';
import { formatContentDisposition, renderRestErrors } from './rest-render.js';

export interface DownloadLinkRouterDeps {
  readonly operations: OperationService;
  readonly links: Pick<DownloadLinks, 'read'>;
  /** src/auth's cached membership loader, passed in: src/http never imports src/auth. */
  readonly loadCaller: (identity: Identity, channel: Channel) => Promise<Caller>;
  readonly limits: AuthLimits;
}

/** The scope a link's use carries: the download's, nothing more. */
const LINK_SCOPES: ReadonlySet<string> = new Set(['finance.attachments']);
/** Links are not on the revocation list; what revokes one is the person's access (see the header). */
const LINK_TOKEN_ID = 'download-link';

/** Every answer of the route, a file or a refusal. */
const LINK_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "sandbox; default-src 'none'",
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
};

const REFUSAL = 'This download link cannot be used: it is not valid, it has expired, or you can no longer see this file. Ask for a new link.';

/** Codes that are not a refusal of the link: the answer's own status (the API budget spent, an outage) says what to do. */
const PASSED_ON = new Set(['RATE_LIMITED', 'SERVICE_UNAVAILABLE']);

function refuse(ctx: AppContext): void {
  ctx.status = 403;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = REFUSAL;
}

async function sendAttachment(ctx: AppContext, file: FileOutput): Promise<void> {
  const bytes = await file.bytes();
  ctx.status = 200;
  ctx.set('Content-Type', file.contentType);
  ctx.set('Content-Disposition', formatContentDisposition('attachment', file.fileName));
  ctx.body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  ctx.length = bytes.byteLength;
}

/** The download for the person the link names; an ApiError other than PASSED_ON is a refusal. */
async function runDownload(deps: DownloadLinkRouterDeps, ctx: AppContext, link: string, attachmentId: string): Promise<FileOutput | undefined> {
  const grant = await deps.links.read(link, attachmentId);
  if (grant === undefined) {
    await throttleFailure(deps.limits, ctx.ip);
    return undefined;
  }
  const identity: Identity = {
    personId: grant.personId, organizationId: grant.organizationId, scopes: LINK_SCOPES, tokenType: grant.tokenType, tokenId: LINK_TOKEN_ID, expiresAt: 0,
  };
  const caller = await deps.loadCaller(identity, 'link');
  try {
    const result = await deps.operations.execute({
      operationId: 'attachments.download', caller, workspace: { connectionDefault: grant.workspaceId }, input: { path: { id: attachmentId }, query: {} },
    });
    return result.kind === 'done' ? result.output.file : undefined;
  } catch (error) {
    if (error instanceof ApiError && !PASSED_ON.has(error.code)) {
      ctx.state.log?.info({ event: 'download_link_refused', code: error.code }, 'download link refused');
      return undefined;
    }
    throw error;
  }
}

export function createDownloadLinkRouter(deps: DownloadLinkRouterDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.get(`${DOWNLOAD_LINK_PATH}/:id`, renderRestErrors, async function serveDownloadLink(ctx) {
    for (const [name, value] of Object.entries(LINK_HEADERS)) ctx.set(name, value);
    const link = ctx.query[DOWNLOAD_LINK_PARAMETER];
    const attachmentId = ctx.params['id'];
    const file = typeof link === 'string' && typeof attachmentId === 'string' ? await runDownload(deps, ctx, link, attachmentId) : undefined;
    if (file === undefined) return refuse(ctx);
    await sendAttachment(ctx, file);
  });
  return router;
}
