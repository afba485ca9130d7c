/**
 * Issue 27, Build 8: Client ID Metadata Documents beside dynamic registration
 * (docs/security.md#client-id-metadata-documents). SDK v2, given a `clientMetadataUrl`, logs in
 * without registering: its `client_id` is the https URL of a document the test serves from a real
 * https server on loopback (a self-signed certificate made in the test), reached through the
 * app's test seam only; the consent page names that URL's host; the document is fetched once
 * (cached). Without the seam — the production configuration — a document on a private or
 * loopback address is refused before any connection; an oversize, mismatched, confidential or
 * badly redirecting document is refused.
 */
import { expect } from 'chai';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { connectionRetryingFetch } from '../helpers/connection-retry.js';
import { DEMO_PASSWORD } from '../../src/oauth/index.js';
import { MAX_CLIENT_DOCUMENT_BYTES, isSpecialUseAddress } from '../../src/oauth/client-documents.js';
import { MemoryOAuthProvider, REDIRECT_URI } from './support/client-provider.js';
import { actAsPerson } from './support/user-agent.js';
import { buildAuthorizationUrl } from './support/flow.js';
import { startDocumentServer, type DocumentServer } from './support/local-https.js';

const documentFor = (clientId: string, extra: Record<string, unknown> = {}) => ({
  client_id: clientId, client_name: 'Document Client', redirect_uris: [REDIRECT_URI],
  token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], ...extra,
});

/** The first answer of an authorization request naming this client: the sign-in page's redirect, or the error page. */
async function startAuthorization(app: TestApp, clientId: string): Promise<{ status: number; body: string }> {
  const response = await fetch(buildAuthorizationUrl(app.url, clientId, { challenge: 'c'.repeat(43) }), { redirect: 'manual' });
  return { status: response.status, body: await response.text() };
}

describe('Client ID Metadata Documents (issue 27 item 8)', function () {
  let documents: DocumentServer;
  before(async () => {
    documents = await startDocumentServer();
  });
  after(async () => {
    await documents?.close();
  });

  describe('through the test seam (the test https server on loopback)', function () {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ clientDocumentTestSeam: documents.seam });
    });
    after(async () => {
      await app?.close();
    });

    it('SDK v2 logs in with its document URL as client_id, without registering; the consent page names its host; fetched once', async () => {
      const metadata = (await (await fetch(`${app.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(metadata.client_id_metadata_document_supported).to.equal(true);
      const clientId = `${documents.origin}/clients/sdk.json`;
      documents.documents.set('/clients/sdk.json', documentFor(clientId));
      const provider = new MemoryOAuthProvider('Document Client', clientId);
      const transport = () => new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { authProvider: provider as never, fetch: connectionRetryingFetch() });
      const client = new Client({ name: 'kobana-cimd', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      let refused: unknown;
      try {
        await client.connect(transport());
      } catch (err) {
        refused = err;
      }
      expect(refused, String(refused)).to.be.instanceOf(UnauthorizedError);
      expect(provider.authorizationUrl?.searchParams.get('client_id')).to.equal(clientId);
      const registered = await app.services.db.selectFrom('oauth_records').select('id').where('model', '=', 'Client').execute();
      expect(registered, 'no dynamic registration').to.deep.equal([]);

      const { callback, pages } = await actAsPerson(provider.authorizationUrl as URL, REDIRECT_URI, { email: 'ana@demo.test', password: DEMO_PASSWORD, decision: 'approve' });
      const host = new URL(documents.origin).host;
      expect(pages[1]).to.include(`<strong>${host}</strong>`).and.include('calls itself “Document Client”');
      await transport().finishAuth(callback.searchParams as never);
      const claims = decodeJwt(provider.storedTokens?.access_token as string);
      expect(claims).to.include({ client_id: clientId, aud: `${app.url}/mcp` });

      const connected = new Client({ name: 'kobana-cimd', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await connected.connect(transport());
      try {
        expect((await connected.listTools()).tools.map((t) => t.name)).to.include('finance_payables_list');
      } finally {
        await connected.close();
      }
      expect(documents.requests.filter((path) => path === '/clients/sdk.json'), 'cached after the first fetch').to.have.length(1);
    });

    it('refuses an oversize, mismatched, confidential or badly redirecting document, and a missing one', async () => {
      const fetchFailed = 'client_id metadata document fetch failed';
      const cases: Array<[string, unknown, string]> = [
        ['/bad/oversize.json', documentFor(`${documents.origin}/bad/oversize.json`, { client_name: 'x'.repeat(MAX_CLIENT_DOCUMENT_BYTES) }), fetchFailed],
        ['/bad/mismatch.json', documentFor(`${documents.origin}/bad/other.json`), 'client_id does not match'],
        ['/bad/secret.json', documentFor(`${documents.origin}/bad/secret.json`, { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [] } }), 'token_endpoint_auth_method must be'],
        ['/bad/redirect.json', documentFor(`${documents.origin}/bad/redirect.json`, { redirect_uris: ['http://evil.example/cb'] }), 'client is not allowed'],
        ['/bad/not-json.json', 'not json', fetchFailed],
      ];
      expect(cases).to.not.be.empty;
      for (const [path, document] of cases) documents.documents.set(path, document);
      for (const [path, , reason] of [...cases, ['/bad/missing.json', null, fetchFailed] as const]) {
        const answer = await startAuthorization(app, `${documents.origin}${path}`);
        expect(answer.status, path).to.equal(400);
        expect(answer.body, path).to.include('Sign-in failed').and.include(reason);
        expect(documents.requests, `${path} was fetched`).to.include(path);
      }
      // The same document within the size cap is accepted: the cap, not the content, refused it.
      documents.documents.set('/bad/just-fits.json', documentFor(`${documents.origin}/bad/just-fits.json`, { client_name: 'x'.repeat(MAX_CLIENT_DOCUMENT_BYTES - 400) }));
      expect((await startAuthorization(app, `${documents.origin}/bad/just-fits.json`)).status).to.equal(303);
    });
  });

  describe('without the seam (the production configuration)', function () {
    let app: TestApp;
    before(async () => {
      app = await startTestApp();
    });
    after(async () => {
      await app?.close();
    });

    it('refuses documents on private and loopback addresses before connecting, and plain http ones', async () => {
      const port = new URL(documents.origin).port;
      documents.documents.set('/private.json', documentFor(`${documents.origin}/private.json`));
      const before = documents.requests.length;
      const ids = [
        `${documents.origin}/private.json`, `https://127.0.0.1:${port}/private.json`, `https://[::1]:${port}/private.json`,
        'https://10.1.2.3/client.json', 'https://192.168.0.10/client.json', 'https://169.254.169.254/latest/meta-data',
      ];
      for (const clientId of ids) {
        const answer = await startAuthorization(app, clientId);
        expect(answer.status, clientId).to.equal(400);
        expect(answer.body, clientId).to.include('Sign-in failed');
      }
      expect(documents.requests.length, 'no request reached the server').to.equal(before);
      expect((await startAuthorization(app, `http://localhost:${port}/private.json`)).status).to.equal(400);
      const addresses: Array<[string, boolean]> = [
        ['127.0.0.1', true], ['10.0.0.1', true], ['172.16.5.4', true], ['192.168.1.1', true], ['169.254.0.1', true], ['100.64.0.1', true],
        ['::1', true], ['fe80::1', true], ['fd00::1', true], ['::ffff:127.0.0.1', true], ['::ffff:7f00:1', true], ['::ffff:8.8.8.8', false], ['8.8.8.8', false], ['2606:4700::1111', false],
      ];
      expect(addresses).to.not.be.empty;
      for (const [address, special] of addresses) expect(isSpecialUseAddress(address), address).to.equal(special);
    });
  });
});
