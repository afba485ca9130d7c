/**
 * `?schema=openai` / `?schema=gemini` on the /mcp URL (docs/protocol.md#client-schema-profiles)
 * through the real @modelcontextprotocol/client v2: tools/list serves the profile's form (the
 * reviewed copy, passing the provider's rules), and calls written in that form — every optional
 * argument present as null for OpenAI, `set_null` to clear a field — run the same operation input
 * as the canonical call.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { tools } from '../../generated/registry.gen.js';
import { toSchemaProfile, type ClientSchemaProfile } from '../../src/runtime/schema-profiles.js';
import { DEMO } from '../../src/seed/ids.js';
import { checkGeminiSafe, checkOpenAiStrict } from '../../codegen/profile-checkers.js';
import { encodeArguments } from '../helpers/schema-profile-samples.js';
import { ALL_WRITE, startTestApp, type TestApp } from './support/app.js';
import { connectionRetryingFetch } from '../helpers/connection-retry.js';

type Obj = Record<string, unknown>;
interface CallResult { isError?: boolean; content: { type: string; text?: string }[] }

const CHECKERS = { openai: checkOpenAiStrict, gemini: checkGeminiSafe };

function toolNamed(name: string) {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

describe('client schema profiles through the real SDK client v2', function () {
  let app: TestApp;
  let token: string;
  const clients: Client[] = [];

  async function connect(query: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp${query}`), { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: connectionRetryingFetch() });
    const client = new Client({ name: 'kobana-test-profiles', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Obj): Promise<unknown> {
    const result = (await client.callTool({ name, arguments: args })) as CallResult;
    expect(result.isError, result.content[0]?.text).to.not.equal(true);
    return JSON.parse(result.content[0]?.text ?? 'null') as unknown;
  }

  before(async function () {
    app = await startTestApp();
    token = await app.mintToken({ person: 'ana@demo.test', scope: ALL_WRITE });
  });
  after(async () => {
    for (const client of clients) await client.close();
    await app?.close();
  });

  for (const profile of ['openai', 'gemini'] as const satisfies readonly ClientSchemaProfile[]) {
    it(`?schema=${profile}: tools/list serves the reviewed ${profile} form, and every listed tool passes its rules`, async () => {
      const client = await connect(`?schema=${profile}`);
      const listed = (await client.listTools()).tools;
      const reviewed = new Map((JSON.parse(readFileSync(new URL(`../../generated/tools-input.${profile}.gen.json`, import.meta.url), 'utf8')) as { name: string; inputSchema: unknown }[])
        .map((entry) => [entry.name, entry.inputSchema]));
      expect(listed.length).to.be.greaterThan(40);
      for (const tool of listed) {
        expect(tool.inputSchema, tool.name).to.deep.equal(reviewed.get(tool.name));
        expect(CHECKERS[profile](tool.name, tool.inputSchema), tool.name).to.deep.equal([]);
      }
    });

    it(`?schema=${profile}: a list call written in the ${profile} form answers what the canonical call answers`, async () => {
      const canonical = await connect('');
      const profiled = await connect(`?schema=${profile}`);
      const tool = toolNamed('finance_payables_list');
      const args: Obj = {
        workspace_id: DEMO.workspaces.matriz,
        filters: { status: { eq: 'pending' }, due_date: { gte: '2026-01-01' } },
        fields: ['description', 'amount', 'due_date'],
        sort_by: '-amount',
        limit: 5,
      };
      const { encoded } = encodeArguments(toSchemaProfile(profile, tool.inputSchema), args);
      if (profile === 'openai') expect(Object.values(encoded)).to.include(null); // cursor and the rest: present, null
      const expected = await call(canonical, tool.name, args);
      expect((expected as { data: unknown[] }).data).to.have.length(5);
      expect(await call(profiled, tool.name, encoded)).to.deep.equal(expected);
    });
  }

  it('?schema=openai: null leaves an optional field unchanged, and set_null clears it', async () => {
    const client = await connect('?schema=openai');
    const update = toSchemaProfile('openai', toolNamed('finance_payables_update').inputSchema);
    const page = await call(client, 'finance_payables_list', encodeArguments(toSchemaProfile('openai', toolNamed('finance_payables_list').inputSchema),
      { workspace_id: DEMO.workspaces.matriz, filters: { status: { eq: 'pending' } }, limit: 1 }).encoded) as { data: Obj[] };
    const id = page.data[0]!['id'] as string;
    const noted = await call(client, 'finance_payables_update', encodeArguments(update, { workspace_id: DEMO.workspaces.matriz, id, notes: 'Checked by the profile test.' }).encoded) as Obj;
    expect(noted['notes']).to.equal('Checked by the profile test.');
    // Everything null but the description: the notes (and every other field) stay as they are.
    const untouched = await call(client, 'finance_payables_update', encodeArguments(update, { workspace_id: DEMO.workspaces.matriz, id, description: noted['description'] }).encoded) as Obj;
    expect(untouched['notes']).to.equal('Checked by the profile test.');
    expect(untouched['category_id']).to.equal(noted['category_id']);
    const { encoded } = encodeArguments(update, { workspace_id: DEMO.workspaces.matriz, id, notes: null });
    expect(encoded['set_null']).to.deep.equal(['notes']);
    const cleared = await call(client, 'finance_payables_update', encoded) as Obj;
    expect(cleared['notes']).to.equal(null);
    expect(cleared['category_id']).to.equal(noted['category_id']);
  });
});
