import { expect } from 'chai';
import { Writable } from 'node:stream';
import pino from 'pino';
import { canReach } from '../../src/api/authorize.js';
import { recordToolCall } from '../../src/mcp/call-log.js';
import { createToolCatalog } from '../../src/mcp/tool-catalog.js';
import { buildFakeTools, fakeCallers } from './support/fake-stack.js';

const operations = { canReach, execute: async () => ({ status: 200 }) };
const titled = { modern: false, version: '2025-06-18' } as const;
const untitled = { modern: false, version: '2025-03-26' } as const;

describe('createToolCatalog()', function () {
  it('serves tools/list without serializing any schema per request', function () {
    const catalog = createToolCatalog(buildFakeTools(), operations);
    const original = JSON.stringify;
    let calls = 0;
    JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => { calls++; return original(...args); }) as typeof JSON.stringify;
    try {
      const first = catalog.listTools(fakeCallers['admin']!, titled);
      const second = catalog.listTools(fakeCallers['admin']!, titled);
      expect(second).to.equal(first);
    } finally {
      JSON.stringify = original;
    }
    expect(calls).to.equal(0);
  });

  it('filters per caller and drops the tool title for 2025-03-26', function () {
    const catalog = createToolCatalog(buildFakeTools(), operations);
    const reader = JSON.parse(catalog.listTools(fakeCallers['reader']!, untitled).json) as Record<string, unknown>[];
    expect(reader.map((t) => t['name'])).to.deep.equal(['finance_payables_list']);
    expect(reader[0]).not.to.have.property('title');
    const admin = JSON.parse(catalog.listTools(fakeCallers['admin']!, titled).json) as Record<string, unknown>[];
    expect(admin.map((t) => t['name'])).to.deep.equal(['finance_payables_delete', 'finance_payables_list']);
    expect(admin[0]).to.have.property('title', 'Delete a payable');
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
