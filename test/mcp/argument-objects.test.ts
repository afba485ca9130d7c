/**
 * Every argument of every tool, sent as an object whose own `toString` and `valueOf` are not
 * functions (`{"toString": false, "valueOf": false}` — what a JSON client can send, and what the
 * property suite once drew): the tool answers VALIDATION_ERROR naming the argument, never a
 * JSON-RPC internal error. The tool path builds the operation input before the arguments are
 * validated (src/mcp/tools/input.ts), and `String(value)` on such an object throws.
 */
import { expect } from 'chai';
import { DEMO } from '../../src/seed/ids.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { callTool } from '../confirmation/support.js';
import { tools } from '../../generated/registry.gen.js';

const HOSTILE = { toString: false, valueOf: false };

describe('tools/call: an argument whose toString is not a function', function () {
  this.timeout(120_000);
  let app: TestApp;
  let token: string;
  before(async () => {
    app = await startTestApp();
    token = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write' });
  });
  after(async () => { await app?.close(); });

  it('answers VALIDATION_ERROR naming the argument, for every argument of every tool', async () => {
    const cases = tools.flatMap((tool) => Object.keys(tool.args).filter((name) => name !== 'workspace_id').map((name) => ({ tool: tool.name, name })));
    expect(cases.length).to.be.greaterThan(100);
    const wrong: string[] = [];
    for (const { tool, name } of cases) {
      const answer = await callTool(app.url, token, tool, { workspace_id: DEMO.workspaces.matriz, [name]: HOSTILE });
      const body = answer.body as { error?: unknown; result?: { isError?: boolean; content?: { text: string }[] } };
      const text = body.result?.content?.[0]?.text ?? '';
      const code = (JSON.parse(text || '{}') as { error?: { code?: string } }).error?.code;
      if (body.error !== undefined || body.result?.isError !== true || code !== 'VALIDATION_ERROR' || !text.includes(name)) wrong.push(`${tool}.${name}: ${JSON.stringify(body).slice(0, 200)}`);
    }
    expect(wrong).to.deep.equal([]);
  });
});
