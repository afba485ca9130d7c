/**
 * The authorization code flow by hand (no SDK), for tests that vary one step: register a
 * public client, authorize with PKCE S256 through the real pages, exchange the code.
 */
import { createHash, randomBytes } from 'node:crypto';
import { DEMO_PASSWORD } from '../../../src/oauth/index.js';
import { actAsPerson, type PersonActions, type UserAgentOptions } from './user-agent.js';

export const FLOW_REDIRECT_URI = 'http://127.0.0.1:53682/callback';

export interface Registered { readonly client_id: string }

export async function register(baseUrl: string, metadata: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${baseUrl}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Flow test client', redirect_uris: [FLOW_REDIRECT_URI], token_endpoint_auth_method: 'none', ...metadata }),
  });
}

export async function registerClient(baseUrl: string): Promise<Registered> {
  const response = await register(baseUrl);
  if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Registered;
}

export interface AuthorizeOptions {
  readonly scope?: string;
  readonly resource?: string;
  readonly person?: Partial<PersonActions>;
  readonly userAgent?: UserAgentOptions;
  /** The `prompt` parameter (default `consent`); null sends none, so an existing grant may be reused. */
  readonly prompt?: string | null;
}

export interface AuthorizeOutcome {
  readonly callback: URL;
  readonly verifier: string;
  readonly pages: string[];
}

export function buildAuthorizationUrl(baseUrl: string, clientId: string, options: AuthorizeOptions & { challenge: string }): URL {
  const url = new URL(`${baseUrl}/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: FLOW_REDIRECT_URI,
    code_challenge: options.challenge,
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
    scope: options.scope ?? 'finance.all offline_access',
    resource: options.resource ?? `${baseUrl}/mcp`,
    prompt: 'consent',
  }).toString();
  if (options.prompt === null) url.searchParams.delete('prompt');
  else if (options.prompt !== undefined) url.searchParams.set('prompt', options.prompt);
  return url;
}

export async function authorize(baseUrl: string, clientId: string, options: AuthorizeOptions = {}): Promise<AuthorizeOutcome> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const url = buildAuthorizationUrl(baseUrl, clientId, { ...options, challenge });
  const { callback, pages } = await actAsPerson(url, FLOW_REDIRECT_URI, {
    email: 'ana@demo.test', password: DEMO_PASSWORD, decision: 'approve', ...options.person,
  }, options.userAgent);
  return { callback, verifier, pages };
}

export interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  scope?: string;
  token_type: string;
  error?: string;
}

export async function tokenRequest(baseUrl: string, params: Record<string, string>): Promise<{ status: number; body: TokenResponse }> {
  const response = await fetch(`${baseUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  return { status: response.status, body: (await response.json()) as TokenResponse };
}

export async function exchangeCode(baseUrl: string, clientId: string, outcome: AuthorizeOutcome, resource = `${baseUrl}/mcp`): Promise<TokenResponse> {
  const { status, body } = await tokenRequest(baseUrl, {
    grant_type: 'authorization_code',
    code: outcome.callback.searchParams.get('code') ?? '',
    redirect_uri: FLOW_REDIRECT_URI,
    client_id: clientId,
    code_verifier: outcome.verifier,
    resource,
  });
  if (status !== 200) throw new Error(`token answered ${status}: ${JSON.stringify(body)}`);
  return body;
}
