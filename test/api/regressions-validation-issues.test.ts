/**
 * Regression: with ajv's allErrors, every unknown argument key became an issue, echoed
 * uncapped: 200,000 unknown keys → a 12 MB error response. Issues are now capped at 20 with
 * `details.truncated: true`, and property names from the request longer than 64 characters are
 * cut in issue paths. Short unknown names are still reported by path.
 */
import { expect } from 'chai';
import { ApiError } from '../../src/api/errors.js';
import {
  assertValid, boundedValidationError, compileRouteValidator, compileSchema, findExcessUnknownKeys, MAX_ISSUES, MAX_PATH_SEGMENT, toIssues,
} from '../../src/api/validation.js';
import { compileArgumentValidators } from '../../src/mcp/tools/arguments.js';
import { routes, tools } from '../../generated/registry.gen.js';
import { DEMO, startTestApp, type TestApp } from '../helpers/index.js';
import { startRestApp, type RestApp } from './support/rest-app.js';
import { modernRequest, postMcp } from '../mcp/support/wire.js';

const M = DEMO.workspaces.matriz;
type Issue = { path: string; message: string };

function unknownKeys(count: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const args: Record<string, unknown> = { ...extra };
  for (let i = 0; i < count; i += 1) args[`k${i}`] = 1;
  return args;
}

function thrown(work: () => void): ApiError {
  try {
    work();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a throw');
}

describe('regression: validation errors are bounded (unknown keys no longer amplify the response)', function () {
  this.timeout(120_000);

  describe('src/api/validation.ts', () => {
    const schema = { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false };

    it('assertValid with 200,000 unknown keys reports 20 issues and details.truncated: true', () => {
      const error = thrown(() => assertValid(compileSchema(schema), unknownKeys(200_000)));
      expect(error.code).to.equal('VALIDATION_ERROR');
      const details = error.details as { issues: Issue[]; truncated?: boolean };
      expect(details.issues).to.have.length(MAX_ISSUES);
      expect(MAX_ISSUES).to.equal(20);
      expect(details.truncated).to.equal(true);
      expect(JSON.stringify(error.toEnvelope()).length).to.be.below(4_000);
    });

    it('toIssues stops after 21 distinct issues however many ajv errors there are', () => {
      const validate = compileSchema(schema);
      expect(validate(unknownKeys(5_000))).to.equal(false);
      expect(validate.errors!.length).to.equal(5_000);
      expect(toIssues(validate.errors)).to.have.length(MAX_ISSUES + 1);
    });

    it('20 issues or fewer are reported whole, without a truncated flag', () => {
      const twenty = thrown(() => assertValid(compileSchema(schema), unknownKeys(20)));
      expect(twenty.details).to.deep.equal({ issues: Array.from({ length: 20 }, (_, i) => ({ path: `k${i}`, message: 'is not a known field' })) });
      expect(boundedValidationError([{ path: 'a', message: 'b' }]).details).to.deep.equal({ issues: [{ path: 'a', message: 'b' }] });
    });

    it('a short unknown field keeps its path (unknown_field), a 10,000-character one is cut to 64 characters', () => {
      const short = thrown(() => assertValid(compileSchema(schema), { unknown_field: 1 }));
      expect(short.details).to.deep.equal({ issues: [{ path: 'unknown_field', message: 'is not a known field' }] });
      const longKey = 'x'.repeat(10_000);
      const long = thrown(() => assertValid(compileSchema(schema), { [longKey]: 1 }, 'body'));
      const [issue] = (long.details as { issues: Issue[] }).issues;
      expect(issue!.path.startsWith('body.xxx')).to.equal(true);
      expect(issue!.path.length).to.equal('body.'.length + MAX_PATH_SEGMENT);
      expect(issue!.path.endsWith('\u2026')).to.equal(true);
      expect(JSON.stringify(long.toEnvelope())).not.to.include('x'.repeat(MAX_PATH_SEGMENT + 1));
    });

    it('a long key inside the instance path (nested object value) is cut too', () => {
      const nested = { type: 'object', additionalProperties: { type: 'integer' } };
      const longKey = 'y'.repeat(500);
      const error = thrown(() => assertValid(compileSchema(nested), { [longKey]: 'not an integer' }));
      const [issue] = (error.details as { issues: Issue[] }).issues;
      expect(issue!.path).to.have.length(MAX_PATH_SEGMENT);
      expect(issue!.message).to.equal('must be integer');
    });

    it('findExcessUnknownKeys answers from a key scan only when a closed object (or its closed child) has over 20 unknown keys', () => {
      const closed = { type: 'object', additionalProperties: false, properties: { name: {}, filters: { type: 'object', additionalProperties: false, properties: { status: {} } } } };
      expect(findExcessUnknownKeys(closed, unknownKeys(20, { name: 'a' }))).to.equal(null);
      const top = findExcessUnknownKeys(closed, unknownKeys(200_000, { name: 'a' }))!;
      expect(top).to.have.length(MAX_ISSUES + 1);
      expect(top[0]).to.deep.equal({ path: 'k0', message: 'is not a known field' });
      const nested = findExcessUnknownKeys(closed, { filters: unknownKeys(30, { status: 'x' }) })!;
      expect(nested.map((i) => i.path).slice(0, 2)).to.deep.equal(['filters.k0', 'filters.k1']);
      const long = findExcessUnknownKeys(closed, unknownKeys(25, { ['z'.repeat(5_000)]: 1 }))!;
      expect(long.every((i) => i.path.length <= MAX_PATH_SEGMENT)).to.equal(true);
      // Open objects are ajv's business.
      expect(findExcessUnknownKeys({ type: 'object' }, unknownKeys(100))).to.equal(null);
    });

    it('compileRouteValidator (REST) caps body issues at 20 with truncated', () => {
      const route = routes.find((r) => r.operation.operationId === 'cost_centers.create')!;
      const error = thrown(() => compileRouteValidator(route)({ path: {}, query: {}, body: unknownKeys(50_000, { name: 'A', type: 'cost' }) }));
      expect(error.code).to.equal('VALIDATION_ERROR');
      expect((error.details as { issues: Issue[] }).issues).to.have.length(20);
      expect((error.details as { truncated?: boolean }).truncated).to.equal(true);
    });
  });

  describe('src/mcp/tools/arguments.ts', () => {
    const validators = compileArgumentValidators(tools);

    it('a tool call with 200,000 unknown arguments gets 20 issues and details.truncated: true', () => {
      const error = validators.get('finance_cost_centers_create')!(unknownKeys(200_000, { name: 'A', type: 'cost' }));
      expect(error?.code).to.equal('VALIDATION_ERROR');
      expect((error!.details as { issues: Issue[] }).issues).to.have.length(20);
      expect((error!.details as { truncated?: boolean }).truncated).to.equal(true);
      expect(JSON.stringify(error!.toEnvelope()).length).to.be.below(4_000);
    });

    it('200,000 unknown keys inside filters are capped the same way', () => {
      const error = validators.get('finance_payables_list')!({ filters: unknownKeys(200_000) });
      const issues = (error!.details as { issues: Issue[] }).issues;
      expect(issues).to.have.length(20);
      expect(issues[0]).to.deep.equal({ path: 'filters.k0', message: 'is not a known field' });
      expect((error!.details as { truncated?: boolean }).truncated).to.equal(true);
    });

    it('misplaced list arguments inside filters are still named when the issues are capped', () => {
      const error = validators.get('finance_payables_list')!(unknownKeys(1_000, { filters: { limit: 5 } }));
      const issues = (error!.details as { issues: Issue[] }).issues;
      expect(issues).to.have.length(20);
      expect(issues[0]).to.deep.include({ path: 'filters.limit' });
      expect((error!.details as { truncated?: boolean }).truncated).to.equal(true);
    });
  });

  describe('over the transports', () => {
    let api: RestApp;
    let app: TestApp;
    let mcpToken: string;
    before(async () => {
      api = await startRestApp();
      app = await startTestApp();
      mcpToken = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write', type: 'personal', aud: 'mcp' });
    });
    after(async () => {
      await api?.close();
      await app?.close();
    });

    it('MCP tools/call with 200,000 unknown argument keys answers a small VALIDATION_ERROR (was 12 MB)', async () => {
      const { body, headers } = modernRequest(1, 'tools/call', {
        name: 'finance_cost_centers_create', arguments: unknownKeys(200_000, { workspace_id: M, name: 'A', type: 'cost' }),
      });
      const reply = await postMcp(`${app.url}/mcp`, body, { ...headers, authorization: `Bearer ${mcpToken}` });
      expect(reply.text.length, reply.text.slice(0, 300)).to.be.below(8_000);
      const result = (reply.json as { result: { isError: boolean; content: { text: string }[] } }).result;
      expect(result.isError).to.equal(true);
      const payload = JSON.parse(result.content[0]!.text) as { error: { code: string; details: { issues: Issue[]; truncated?: boolean } } };
      expect(payload.error.code).to.equal('VALIDATION_ERROR');
      expect(payload.error.details.issues).to.have.length(20);
      expect(payload.error.details.truncated).to.equal(true);
    });

    it('REST POST /v1/cost_centers with 50,000 unknown body keys answers 20 issues and truncated', async () => {
      const res = await api.call('POST', '/v1/cost_centers', { workspace: M, body: unknownKeys(50_000, { name: 'A', type: 'cost' }) });
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
      expect(res.body.error.details.issues).to.have.length(20);
      expect(res.body.error.details.truncated).to.equal(true);
    });

    it('REST POST /v1/cost_centers with one unknown_field still names it, without truncated', async () => {
      const res = await api.call('POST', '/v1/cost_centers', { workspace: M, body: { name: 'A', type: 'cost', unknown_field: 1 } });
      expect(res.status).to.equal(400);
      expect(res.body.error.details).to.deep.equal({ issues: [{ path: 'unknown_field', message: 'is not a known field' }] });
    });
  });
});
