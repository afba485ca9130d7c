/**
 * The bytes of `tools/list` for `openapi/v1.yaml` (issue 28, "what clients receive does not
 * change"): for the admin (every tool), in every client schema profile (canonical, `?schema=openai`,
 * `?schema=gemini`) and in every protocol revision, the SHA-256 and length of the response's
 * `result.tools`, serialized as the server sent it, equal those recorded in
 * test/fixtures/tools-list-bytes/snapshot.json before the generator's output was restructured.
 * A deliberate change of the surface (a new endpoint, a reworded description) re-records the
 * snapshot with `UPDATE_TOOLS_LIST_SNAPSHOT=1 npm test -- test/mcp/tools-list-bytes.test.ts`, and
 * the change shows in review in generated/tools-list.gen.json and the profile review copies. On a
 * mismatch the bytes received are written to a temporary file named in the failure, to diff.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO } from '../../src/seed/ids.js';
import { REPO_ROOT } from '../codegen/support.js';
import { ALL_WRITE, startTestApp, type TestApp } from './support/app.js';
import { modernRequest, postMcp } from './support/wire.js';

const SNAPSHOT = path.join(REPO_ROOT, 'test/fixtures/tools-list-bytes/snapshot.json');
const PROFILES = ['canonical', 'openai', 'gemini'] as const;
const REVISIONS = ['2026-07-28', '2025-06-18', '2025-03-26'] as const;

interface Recorded { readonly sha256: string; readonly bytes: number; readonly tools: number }

/** The `tools` array exactly as it sits in the response text (the server's own serialization). */
function toolsBytes(text: string): string {
  const parsed = JSON.parse(text) as { result: { tools: unknown[] } };
  const serialized = JSON.stringify(parsed.result.tools);
  // The response is compact JSON: the array re-serialized is a substring of it, byte for byte.
  expect(text.includes(serialized), 'tools/list is compact JSON whose tools array re-serializes to the same bytes').to.equal(true);
  return serialized;
}

describe('tools/list bytes of openapi/v1.yaml, every profile and revision (snapshot)', function () {
  let app: TestApp;
  let token: string;
  before(async () => {
    app = await startTestApp();
    token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
  });
  after(async () => app?.close());

  async function list(revision: string, profile: string): Promise<string> {
    const query = profile === 'canonical' ? '' : `?schema=${profile}`;
    if (revision === '2026-07-28') {
      const { body, headers } = modernRequest(1, 'tools/list');
      const response = await postMcp(`${app.url}/mcp${query}`, body, { authorization: `Bearer ${token}`, ...headers });
      expect(response.status, response.text).to.equal(200);
      return response.text;
    }
    const response = await postMcp(`${app.url}/mcp${query}`, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { authorization: `Bearer ${token}`, 'mcp-protocol-version': revision });
    expect(response.status, response.text).to.equal(200);
    return response.text;
  }

  it('is byte-identical to the recorded snapshot', async () => {
    const seen: Record<string, Recorded> = {};
    for (const revision of REVISIONS) {
      for (const profile of PROFILES) {
        const bytes = toolsBytes(await list(revision, profile));
        const tools = (JSON.parse(bytes) as unknown[]).length;
        expect(tools, `${revision} ${profile}`).to.be.greaterThan(60);
        seen[`${revision} ${profile}`] = { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: Buffer.byteLength(bytes), tools };
        const file = path.join(os.tmpdir(), `tools-list-${revision}-${profile}.json`);
        writeFileSync(file, bytes);
      }
    }
    if (process.env.UPDATE_TOOLS_LIST_SNAPSHOT === '1') writeFileSync(SNAPSHOT, `${JSON.stringify(seen, null, 2)}\n`);
    const recorded = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Record<string, Recorded>;
    expect(Object.keys(recorded)).to.have.length(REVISIONS.length * PROFILES.length);
    for (const [key, value] of Object.entries(recorded)) {
      expect(seen[key], `${key} differs; the bytes received are in ${path.join(os.tmpdir(), `tools-list-${key.replace(' ', '-')}.json`)}`).to.deep.equal(value);
    }
  });
});
