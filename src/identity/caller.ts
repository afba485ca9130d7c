/**
 * Who is calling: the authenticated person as every layer sees it (the operations in `src/api`,
 * authentication in `src/auth`, the transports). A neutral module with no imports, so that
 * `src/api` and `src/auth` can both name a `Caller` without importing each other.
 */

/**
 * Where a call came from: the REST API, the MCP server, the web panel, or a download link a person
 * opened (docs/security.md#download-links: it only reads, and its uses are logged with `link`).
 */
export type Channel = 'api' | 'mcp' | 'web' | 'link';
export type TokenType = 'oauth' | 'personal';

/** A verified token, as authentication hands it to the surfaces (before the membership is loaded). */
export interface Identity {
  readonly personId: string;
  readonly organizationId: string;
  readonly scopes: ReadonlySet<string>;
  readonly tokenType: TokenType;
  readonly tokenId: string;
  /** Seconds since epoch. */
  readonly expiresAt: number;
}

/** What authentication (`bearer` in src/auth) leaves in `ctx.state` for the surfaces. */
export interface AuthState {
  identity: Identity;
  caller: Caller;
  /** `X-Workspace-Id` header or `?workspace_id=`: a workspace of the organization; whether granted, resolveWorkspace checks. */
  connectionWorkspaceId: string | undefined;
}

export interface Caller {
  readonly personId: string;
  readonly organizationId: string;
  /** Space-separated `scope` claim, parsed. */
  readonly scopes: ReadonlySet<string>;
  readonly tokenType: TokenType;
  readonly channel: Channel;
  /** Loaded from the membership; null when the person has no membership in the organization. */
  readonly membership: {
    readonly status: 'active' | 'inactive';
    readonly isAdmin: boolean;
    readonly permissions: ReadonlySet<string>;
    /** Existing workspaces of `organizationId` granted to the person (all of them for an admin). */
    readonly workspaceIds: readonly string[];
    /** Each granted workspace's name by id, read with them (results name their workspace: docs/protocol.md#tools). */
    readonly workspaceNames: ReadonlyMap<string, string>;
  } | null;
}
