import { expect } from 'chai';
import { Writable } from 'node:stream';
import pino from 'pino';
import { tools as registryTools } from '../../generated/registry.gen.js';
import { canReach } from '../../src/api/authorize.js';
import { recordToolCall } from '../../src/mcp/tools/call-log.js';
import { serializePrepared } from '../../src/mcp/json-rpc.js';
import { createToolCatalog, describeTool } from '../../src/mcp/tools/catalog.js';
import { DEFAULT_VIEW, viewShows, type ToolView } from '../../src/mcp/view.js';
import { SERVER_INFO, type Era } from '../../src/mcp/versions.js';
import { toSchemaProfile, type SchemaProfile } from '../../src/runtime/schema-profiles.js';
import { buildFakeTools, fakeCallers } from './support/fake-stack.js';

const operations = { canReach, execute: async () => ({ status: 200 }) };
const titled = { modern: false, version: '2025-06-18' } as const;
const untitled = { modern: false, version: '2025-03-26' } as const;
const modern = { modern: true, version: '2026-07-28' } as const;

function listedTools(bytes: Buffer): Record<string, unknown>[] {
  return (JSON.parse(bytes.toString('utf8')) as { result: { tools: Record<string, unknown>[] } }).result.tools;
}

describe('createToolCatalog()', function () {
  it('serves tools/list as ready bytes: no schema is serialized once a list was built', function () {
    const catalog = createToolCatalog(buildFakeTools(), operations);
    const first = catalog.listResult(fakeCallers['admin']!, titled, DEFAULT_VIEW);
    const original = JSON.stringify;
    let calls = 0;
    JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => { calls++; return original(...args); }) as typeof JSON.stringify;
    try {
      const second = catalog.listResult(fakeCallers['admin']!, titled, DEFAULT_VIEW);
      expect(second).to.equal(first);
    } finally {
      JSON.stringify = original;
    }
    expect(calls).to.equal(0);
  });

  it('keeps reachability per (membership, scopes) objects: a new membership or token scope set is read afresh', function () {
    const catalog = createToolCatalog(buildFakeTools(), operations);
    const reader = fakeCallers['reader']!;
    const names = (caller: typeof reader) => listedTools(serializePrepared(1, catalog.listResult(caller, titled, DEFAULT_VIEW))).map((t) => t['name']);
    expect(names(reader)).to.deep.equal(['finance_payables_list']);
    // A token with write scopes (a new verification, a new Set) on the same membership: no delete permission yet.
    const writer = { ...reader, scopes: new Set(['finance.all.write']) };
    expect(names(writer)).to.deep.equal(['finance_payables_list']);
    // The identity version moved: auth/caller.ts hands a new membership object with the grant.
    const granted = { ...writer, membership: { ...reader.membership!, permissions: new Set(['payables.view', 'payables.delete']) } };
    expect(names(granted)).to.deep.equal(['finance_payables_delete', 'finance_payables_list']);
    // Fewer scopes on the same membership object.
    expect(names({ ...granted, scopes: new Set(['finance.payables']) })).to.deep.equal(['finance_payables_list']);
    // Deactivated: a new membership object again; nothing is reachable.
    expect(names({ ...granted, membership: { ...granted.membership, status: 'inactive' } })).to.deep.equal([]);
    expect(names({ ...granted, membership: null })).to.deep.equal([]);
    // The first caller's objects still answer as before.
    expect(names(reader)).to.deep.equal(['finance_payables_list']);
  });

  it('filters per caller and drops the tool title for 2025-03-26', function () {
    const catalog = createToolCatalog(buildFakeTools(), operations);
    const reader = listedTools(serializePrepared(1, catalog.listResult(fakeCallers['reader']!, untitled, DEFAULT_VIEW)));
    expect(reader.map((t) => t['name'])).to.deep.equal(['finance_payables_list']);
    expect(reader[0]).not.to.have.property('title');
    const admin = listedTools(serializePrepared(1, catalog.listResult(fakeCallers['admin']!, titled, DEFAULT_VIEW)));
    expect(admin.map((t) => t['name'])).to.deep.equal(['finance_payables_delete', 'finance_payables_list']);
    expect(admin[0]).to.have.property('title', 'Delete a payable');
  });

  it('narrows by the view after scope and permission, never widening them', function () {
    const catalog = createToolCatalog(buildFakeTools(), operations);
    const readOnly: ToolView = { ...DEFAULT_VIEW, readOnly: true };
    const admin = listedTools(serializePrepared(1, catalog.listResult(fakeCallers['admin']!, titled, readOnly)));
    expect(admin.map((t) => t['name'])).to.deep.equal(['finance_payables_list']);
    const otherToolset: ToolView = { ...DEFAULT_VIEW, toolsets: new Set(['receivables']) };
    expect(listedTools(serializePrepared(1, catalog.listResult(fakeCallers['admin']!, titled, otherToolset)))).to.deep.equal([]);
    // The reader cannot delete: a view naming payables does not give the delete tool back.
    const payables: ToolView = { ...DEFAULT_VIEW, toolsets: new Set(['payables']) };
    const reader = listedTools(serializePrepared(1, catalog.listResult(fakeCallers['reader']!, titled, payables)));
    expect(reader.map((t) => t['name'])).to.deep.equal(['finance_payables_list']);
    expect(catalog.find('finance_payables_delete', readOnly)).to.equal(undefined);
    expect(catalog.find('finance_payables_delete', DEFAULT_VIEW)?.tool.name).to.equal('finance_payables_delete');
  });

  describe('the cached bytes equal a fresh serialization of the response', function () {
    const eras: readonly Era[] = [untitled, titled, modern];
    const profiles: readonly SchemaProfile[] = ['canonical', 'openai', 'gemini'];
    const views: readonly ToolView[] = [DEFAULT_VIEW, { ...DEFAULT_VIEW, readOnly: true }, { ...DEFAULT_VIEW, toolsets: new Set(['payables', 'receivables']) }];
    const catalog = createToolCatalog(registryTools, operations);
    for (const era of eras) {
      for (const schemaProfile of profiles) {
        it(`${era.version}, ${schemaProfile}`, function () {
          for (const callerName of Object.keys(fakeCallers)) {
            const caller = fakeCallers[callerName]!;
            for (const base of views) {
              const view = { ...base, schemaProfile };
              const id = `req-${callerName}`;
              const shown = registryTools.filter((tool) => viewShows(view, tool) && canReach(caller, tool.operation))
                .sort((a, b) => (a.name < b.name ? -1 : 1))
                .map((tool) => describeTool(tool, schemaProfile === 'canonical' ? tool.inputSchema : toSchemaProfile(schemaProfile, tool.inputSchema).schema, era));
              const result = era.modern
                ? { resultType: 'complete', tools: shown, ttlMs: 0, cacheScope: 'private', _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } }
                : { tools: shown };
              const fresh = JSON.stringify({ jsonrpc: '2.0', id, result });
              expect(serializePrepared(id, catalog.listResult(caller, era, view)).toString('utf8')).to.equal(fresh);
            }
          }
        });
      }
    }
  });
});

describe('recordToolCall()', function () {
  it('writes one line with tool, workspace, person, token type, status, duration, request id and era — no arguments', function () {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    const log = pino({ level: 'info' }, sink);
    recordToolCall(log, undefined, {
      tool: 'finance_payables_list', workspaceId: 'w1', caller: fakeCallers['reader']!, status: 'ok',
      startedAt: performance.now(), requestId: 'r1', era: { modern: true, version: '2026-07-28' },
    });
    expect(lines).to.have.length(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).to.include({ event: 'tools/call', tool: 'finance_payables_list', workspace: 'w1', person: 'p-reader', token_type: 'oauth', status: 'ok', request_id: 'r1', era: '2026-07-28' });
    expect(line['duration_ms']).to.be.a('number');
    expect(line).not.to.have.property('arguments');
  });
});

describe('recordToolCall() with a request logger', function () {
  it('does not repeat request_id when the child logger carries it', function () {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    const log = pino({ level: 'info' }, sink).child({ request_id: 'r9' });
    recordToolCall(log, undefined, {
      tool: 't', workspaceId: null, caller: fakeCallers['admin']!, status: 'NOT_FOUND',
      startedAt: performance.now(), requestId: 'r9', era: { modern: false, version: '2025-03-26' },
    });
    expect(lines[0]!.match(/"request_id"/g)).to.have.length(1);
    expect(JSON.parse(lines[0]!)).to.include({ request_id: 'r9', status: 'NOT_FOUND', workspace: null, era: '2025-03-26' });
  });
});
