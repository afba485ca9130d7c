/**
 * An in-memory OAuthClientProvider that both SDK generations accept (v2 passes an issuer
 * context the store ignores: one issuer per test). `redirectToAuthorization` only records the
 * URL; the test hands it to the user agent and then calls `finishAuth` with the callback's
 * parameters.
 */
export const REDIRECT_URI = 'http://127.0.0.1:53682/callback';

export class MemoryOAuthProvider {
  clientInfo: Record<string, unknown> | undefined;
  storedTokens: { access_token: string; refresh_token?: string; [k: string]: unknown } | undefined;
  authorizationUrl: URL | undefined;
  private verifier = '';
  private discovery: unknown;
  private readonly stateValue = crypto.randomUUID();

  /** `clientMetadataUrl`: the client is identified by its Client ID Metadata Document's URL (no registration). */
  constructor(private readonly name: string, readonly clientMetadataUrl?: string) {}

  get redirectUrl(): string {
    return REDIRECT_URI;
  }
  get clientMetadata() {
    return { client_name: this.name, redirect_uris: [REDIRECT_URI] };
  }
  state(): string {
    return this.stateValue;
  }
  clientInformation() {
    return this.clientInfo as never;
  }
  saveClientInformation(info: Record<string, unknown>): void {
    this.clientInfo = info;
  }
  tokens() {
    return this.storedTokens as never;
  }
  saveTokens(tokens: { access_token: string; refresh_token?: string }): void {
    this.storedTokens = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
  saveDiscoveryState(state: unknown): void {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery as never;
  }
}
