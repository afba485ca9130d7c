/**
 * Invariants over every tool of generated/registry.gen.ts at once. There are no per-tool
 * snapshots: the operation modules in generated/operations are committed, `npm run generate --
 * --check` fails when they drift from openapi/v1.yaml, and a change to them shows in review as
 * their diff; the tools and routes are views of them (src/runtime/views.ts), built the same way
 * for every operation. generated/tools-list.gen.json is the review copy of what clients see.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { operations, resourceTemplates, routes, specSha256, tools } from '../../generated/registry.gen.js';
import { walkSchema } from './support.js';

type Schema = Record<string, unknown>;
const routeOf = (operationId: string) => routes.find((r) => r.operation.operationId === operationId);

describe('generated/registry.gen.ts', () => {
  // No upper bound: the API grows by endpoints (issue 25, Build 6); the floor catches a generator that lost operations.
  it('holds at least 55 tools, one per non-excluded operation, sorted by name', () => {
    expect(tools.length).to.be.at.least(55);
    expect(tools.length).to.equal(operations.filter((d) => d.toolName !== null).length);
    expect(tools.map((t) => t.name)).to.deep.equal([...tools.map((t) => t.name)].sort());
    expect(specSha256).to.match(/^[0-9a-f]{64}$/);
  });

  it('builds every route, tool and resource template from the one generated definition of its operation', () => {
    expect(routes.length).to.equal(operations.length);
    const definitionOf = (operationId: string) => operations.find((d) => d.operation.operationId === operationId);
    for (const route of routes) {
      const definition = definitionOf(route.operation.operationId);
      expect(route.operation, route.operation.operationId).to.equal(definition?.operation);
      expect(route.requestBody, route.operation.operationId).to.equal(definition?.requestBody);
      expect(route.successStatus).to.equal(definition?.successStatus);
    }
    for (const tool of tools) {
      expect(tool.operation, tool.name).to.equal(definitionOf(tool.operation.operationId)?.operation);
      expect(tool.name).to.equal(definitionOf(tool.operation.operationId)?.toolName);
    }
    expect(resourceTemplates).to.not.be.empty;
    for (const template of resourceTemplates) expect(template.operation).to.equal(definitionOf(template.operation.operationId)?.operation);
  });

  it('serves exactly the tools of generated/tools-list.gen.json (a change of the views shows as a diff under generated/)', () => {
    const reviewed = JSON.parse(readFileSync(new URL('../../generated/tools-list.gen.json', import.meta.url), 'utf8')) as unknown[];
    const served = tools.map(({ name, title, description, inputSchema, output, annotations }) =>
      ({ name, title, description, inputSchema, ...(output ? { outputSchema: output.schema } : {}), annotations }));
    expect(JSON.parse(JSON.stringify(served))).to.deep.equal(reviewed);
  });

  it('names every tool validly and uniquely', () => {
    expect(tools).to.not.be.empty;
    for (const tool of tools) expect(tool.name, tool.name).to.match(/^[a-z][a-z0-9_]{0,63}$/);
    expect(new Set(tools.map((t) => t.name)).size).to.equal(tools.length);
    for (const tool of tools) expect(tool.name).to.equal(`finance_${tool.operation.operationId.replace(/\./g, '_')}`);
  });

  it('gives every tool a title, a description and annotations', () => {
    for (const tool of tools) {
      expect(tool.title, tool.name).to.be.a('string').that.is.not.empty;
      expect(tool.description, tool.name).to.be.a('string').that.is.not.empty;
      expect(tool.annotations.title, tool.name).to.equal(tool.title);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        expect(tool.annotations[hint], `${tool.name}.${hint}`).to.be.a('boolean');
      }
    }
  });

  it('renders the hints from the operation\'s one classification, and openWorldHint false everywhere', () => {
    // The rule itself (GET, DELETE, cancel, money, x-mcp overrides) is codegen/classify.ts's, tested in generate.test.ts.
    for (const tool of tools) {
      const { readOnly, destructive, idempotent } = tool.operation;
      const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tool.annotations;
      expect({ readOnlyHint, destructiveHint, idempotentHint }, tool.name).to.deep.equal({ readOnlyHint: readOnly, destructiveHint: destructive, idempotentHint: idempotent });
      expect(openWorldHint, tool.name).to.equal(false);
    }
  });

  it('makes every money-moving tool destructive, no tool both read-only and destructive, and gives exactly the destructive ones a confirmation', () => {
    expect(tools.some((t) => t.operation.movesMoney), 'some tool moves money').to.equal(true);
    for (const tool of tools) {
      const { readOnly, destructive, movesMoney, confirmation } = tool.operation;
      if (movesMoney) expect(destructive, tool.name).to.equal(true);
      expect(readOnly && destructive, tool.name).to.equal(false);
      expect(confirmation !== null, tool.name).to.equal(destructive);
    }
  });

  it('gives every input schema an object type without top-level combinators', () => {
    for (const tool of tools) {
      const schema = tool.inputSchema as Schema;
      expect(schema.type, tool.name).to.equal('object');
      expect((tool.argumentSchema as Schema).additionalProperties, tool.name).to.equal(false);
      for (const key of ['anyOf', 'oneOf', 'allOf', '$ref']) expect(schema, tool.name).to.not.have.property(key);
    }
  });

  it('types every property schema and gives every array items (recursively)', () => {
    for (const tool of tools) {
      walkSchema(tool.inputSchema as Schema, (node, at) => {
        expect(node.type, `${tool.name} ${at}`).to.not.equal(undefined);
        expect(node, `${tool.name} ${at}`).to.not.have.property('$ref');
        const types = Array.isArray(node.type) ? node.type : [node.type];
        if (types.includes('array')) expect(node.items, `${tool.name} ${at}`).to.be.an('object');
      });
    }
  });

  it('maps every argument to a target and offers workspace_id on workspace-scoped tools', () => {
    for (const tool of tools) {
      const properties = Object.keys((tool.inputSchema as Schema).properties as Schema);
      expect(Object.keys(tool.args).sort(), tool.name).to.deep.equal([...properties].sort());
      expect(properties.includes('workspace_id'), tool.name).to.equal(tool.operation.workspaceScoped);
      for (const [name, target] of Object.entries(tool.args)) {
        if (target.in === 'path') expect(((tool.inputSchema as Schema).required as string[]) ?? [], `${tool.name}.${name}`).to.include(name);
      }
    }
  });

  it('flattens every write tool\'s request body: same fields and the same required list', () => {
    for (const tool of tools) {
      const body = routeOf(tool.operation.operationId)?.requestBody?.content['application/json'] as Schema | undefined;
      const bodyArgs = Object.entries(tool.args).filter(([, t]) => t.in === 'body').map(([name]) => name).sort();
      if (!body) {
        expect(bodyArgs, tool.name).to.deep.equal([]);
        continue;
      }
      const fields = Object.entries(body.properties as Record<string, Schema>).filter(([, s]) => s.readOnly !== true).map(([name]) => name);
      expect(bodyArgs, tool.name).to.deep.equal([...fields].sort());
      const required = ((tool.inputSchema as Schema).required as string[] | undefined ?? []).filter((name) => bodyArgs.includes(name)).sort();
      expect(required, tool.name).to.deep.equal(((body.required as string[] | undefined) ?? []).filter((n) => fields.includes(n)).sort());
      for (const field of fields) {
        const arg = ((tool.inputSchema as Schema).properties as Schema)[field] as Schema;
        const source = (body.properties as Record<string, Schema>)[field] as Schema;
        expect(arg.enum, `${tool.name}.${field} enum`).to.deep.equal(source.enum);
        expect(arg.format, `${tool.name}.${field} format`).to.deep.equal(source.format);
      }
    }
  });

  it('gives list tools the named list arguments and filters that reject them', () => {
    const lists = tools.filter((t) => routeOf(t.operation.operationId)?.list);
    expect(lists.length).to.be.at.least(10);
    for (const tool of lists) {
      const properties = (tool.inputSchema as Schema).properties as Record<string, Schema>;
      expect(properties, tool.name).to.include.keys('limit', 'cursor');
      expect(tool.args.limit).to.deep.equal({ in: 'list', name: 'limit' });
      const filters = properties.filters;
      if (!filters) continue;
      // The shown schema lists the filters; the argument schema (what the server checks) refuses any other.
      expect(((tool.argumentSchema as Schema).properties as Record<string, Schema>).filters!.additionalProperties, tool.name).to.equal(false);
      for (const named of ['limit', 'cursor', 'sort_by', 'fields']) expect(filters.properties as Schema, tool.name).to.not.have.property(named);
      const spec = routeOf(tool.operation.operationId)?.list;
      expect(Object.keys(filters.properties as Schema).sort(), tool.name).to.deep.equal(Object.keys(spec?.filters ?? {}).sort());
    }
  });

  it('keeps Seguridad and the approval decisions REST-only: a route but no tool, for exactly the operations of the finance.security and finance.approvals.write scopes', () => {
    const excludedIds = new Set(operations.filter((d) => d.toolName === null).map((d) => d.operation.operationId));
    const excluded = routes.filter((r) => excludedIds.has(r.operation.operationId));
    // An agent must not unblock itself, nor be the second approver.
    const personOnly = routes.filter((r) => r.operation.scopes.some((scope) => scope.startsWith('finance.security') || scope === 'finance.approvals.write'));
    expect(excluded.map((r) => r.operation.operationId).sort()).to.deep.equal(personOnly.map((r) => r.operation.operationId).sort());
    // hand-kept-ok: the four that must stay REST-only whatever the scopes say
    expect(excluded.map((r) => r.operation.operationId)).to.include.members(['security_settings.get', 'security_settings.update', 'approvals.approve', 'approvals.reject']);
    for (const route of excluded) expect(tools.some((t) => t.operation.operationId === route.operation.operationId)).to.equal(false);
  });

  it('derives one resource template per GET /v1/<resource>/{id}', () => {
    const gets = tools.filter((t) => t.operation.method === 'GET' && /^\/v1\/[^/{}]+\/\{id\}$/.test(t.operation.path));
    expect(resourceTemplates.map((r) => r.operation.operationId).sort()).to.deep.equal(gets.map((t) => t.operation.operationId).sort());
    for (const template of resourceTemplates) {
      expect(template.uriTemplate).to.match(/^kobana:\/\/finance\/[a-z_]+\/\{id\}$/);
      expect(template.mimeType).to.equal('application/json');
    }
  });
});
