/**
 * Documented statuses of payables/receivables not exercised elsewhere over REST: 409 on reopen
 * (an Idempotency-Key reused for another title). Other title statuses live in
 * rules/title-rest-suite.ts and error-codes-all-routes.test.ts.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { DEMO } from '../helpers/index.js';
import { startRestApp, type RestApp } from './support/rest-app.js';
import { createTaker, type Take } from './support/coverage-requests.js';

const M = DEMO.workspaces.matriz;

describe('title error codes not covered elsewhere (REST)', () => {
  let api: RestApp;
  let take: Take;
  before(async () => {
    api = await startRestApp();
    take = await createTaker(api, M);
  });
  after(async () => { await api?.close(); });

  for (const resource of ['payables', 'receivables'] as const) {
    it(`POST /v1/${resource}/{id}/reopen answers 409 CONFLICT for an Idempotency-Key reused on another ${resource.slice(0, -1)}, which stays paid`, async () => {
      const kind = `${resource}+settle`;
      const first = (await take(kind)).id;
      const second = (await take(kind)).id;
      const headers = { 'idempotency-key': `reopen-${randomUUID()}` };
      const ok = await api.call('POST', `/v1/${resource}/${first}/reopen`, { workspace: M, headers });
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      expect(ok.body.status).to.equal('pending');
      const reused = await api.call('POST', `/v1/${resource}/${second}/reopen`, { workspace: M, headers });
      expect(reused.status, JSON.stringify(reused.body)).to.equal(409);
      expect(reused.body.error.code).to.equal('CONFLICT');
      const untouched = await api.call('GET', `/v1/${resource}/${second}`, { workspace: M });
      expect(untouched.body.status).to.equal(resource === 'payables' ? 'paid' : 'received');
      expect(untouched.body.version).to.equal(2);
    });
  }
});
