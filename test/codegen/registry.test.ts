/**
 * Invariants over every tool of generated/registry.gen.ts at once, plus a snapshot of each tool as
 * served (test/snapshots/tools/<name>.json; UPDATE_SNAPSHOTS=1 rewrites; a missing one fails in CI).
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { resourceTemplates, routes, specSha256, tools } from '../../generated/registry.gen.js';
import { routes as routeTable } from '../../generated/routes.gen.js';
import { REPO_ROOT, sortKeys, walkSchema } from './support.js';

type Schema = Record<string, unknown>;
const SNAPSHOT_DIR = path.join(REPO_ROOT, 'test/snapshots/tools');
const routeOf = (operationId: string) => routes.find((r) => r.operation.operationId === operationId);

describe('generated/registry.gen.ts', () => {
  it('holds about 60 tools, one per non-excluded operation, sorted by name', () => {
    expect(tools.length).to.be.within(55, 70);
    expect(tools.length).to.equal(routes.filter((r) => !r.mcpExcluded).length);
    expect(tools.map((t) => t.name)).to.deep.equal([...tools.map((t) => t.name)].sort());
    expect(specSha256).to.match(/^[0-9a-f]{64}$/);
    expect(routeTable).to.equal(routes);
  });

  it('names every tool validly and uniquely', () => {
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

  it('sets readOnlyHint exactly on GET and openWorldHint false everywhere', () => {
    for (const tool of tools) {
      expect(tool.annotations.readOnlyHint, tool.name).to.equal(tool.operation.method === 'GET');
      expect(tool.annotations.openWorldHint, tool.name).to.equal(false);
    }
  });

  it('marks every DELETE, cancel and money-moving tool destructive', () => {
    for (const tool of tools) {
      const { method, operationId, movesMoney } = tool.operation;
      if (method === 'DELETE' || operationId.endsWith('.cancel') || movesMoney) {
        expect(tool.annotations.destructiveHint, tool.name).to.equal(true);
      }
    }
    const moving = tools.filter((t) => t.operation.movesMoney).map((t) => t.name).sort();
    expect(moving).to.include.members(['finance_payables_settle', 'finance_receivables_settle', 'finance_transfers_create']);
  });

  it('gives every input schema an object type without top-level combinators', () => {
    for (const tool of tools) {
      const schema = tool.inputSchema as Schema;
      expect(schema.type, tool.name).to.equal('object');
      expect(schema.additionalProperties, tool.name).to.equal(false);
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
      expect(filters.additionalProperties, tool.name).to.equal(false);
      for (const named of ['limit', 'cursor', 'sort_by', 'fields']) expect(filters.properties as Schema, tool.name).to.not.have.property(named);
      const spec = routeOf(tool.operation.operationId)?.list;
      expect(Object.keys(filters.properties as Schema).sort(), tool.name).to.deep.equal(Object.keys(spec?.filters ?? {}).sort());
    }
  });

  it('keeps security settings REST-only: a route but no tool', () => {
    const excluded = routes.filter((r) => r.mcpExcluded);
    expect(excluded.map((r) => r.operation.operationId).sort()).to.deep.equal(['security_settings.get', 'security_settings.update']);
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

describe('tool snapshots (test/snapshots/tools)', () => {
  const update = process.env.UPDATE_SNAPSHOTS === '1';
  const strict = !!process.env.CI && !update;
  mkdirSync(SNAPSHOT_DIR, { recursive: true });

  for (const tool of tools) {
    it(`matches the snapshot of ${tool.name}`, () => {
      const served = sortKeys({ name: tool.name, title: tool.title, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations });
      const text = JSON.stringify(served, null, 2) + '\n';
      const file = path.join(SNAPSHOT_DIR, `${tool.name}.json`);
      if (update || (!existsSync(file) && !strict)) {
        writeFileSync(file, text);
        return;
      }
      expect(existsSync(file), `missing snapshot ${path.relative(REPO_ROOT, file)} (run with UPDATE_SNAPSHOTS=1)`).to.equal(true);
      expect(text, `${tool.name} differs from its snapshot (UPDATE_SNAPSHOTS=1 rewrites)`).to.equal(readFileSync(file, 'utf8'));
    });
  }

  it('has no snapshot for a tool that no longer exists', () => {
    const names = new Set(tools.map((t) => `${t.name}.json`));
    const stale = readdirSync(SNAPSHOT_DIR).filter((file) => file.endsWith('.json') && !names.has(file));
    if (update) for (const file of stale) rmSync(path.join(SNAPSHOT_DIR, file));
    else expect(stale, 'stale snapshots (UPDATE_SNAPSHOTS=1 removes them)').to.deep.equal([]);
  });
});
