import { expect } from 'chai';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { DEMO } from '../helpers/index.js';

const F = DEMO.workspaces.filial;

describe('GET /v1/<resource> lists', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  async function createCenter(name: string) {
    const res = await api.call('POST', '/v1/cost_centers', { workspace: F, body: { name, type: 'cost' } });
    expect(res.status).to.equal(201);
    return res.body.id as string;
  }

  async function walk(query: string): Promise<{ pages: number; names: string[] }> {
    const names: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await api.call('GET', `/v1/cost_centers?${query}${cursor ? `&cursor=${cursor}` : ''}`, { workspace: F });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      names.push(...res.body.data.map((c: { name: string }) => c.name));
      cursor = res.body.meta.next_cursor;
      pages += 1;
    } while (cursor);
    return { pages, names };
  }

  it('pages through every row exactly once while rows are inserted in between (keyset)', async () => {
    const existing = (await walk('limit=100')).names;
    const ours = Array.from({ length: 12 }, (_, i) => `pg-${String(i).padStart(2, '0')}`);
    for (const name of ours) await createCenter(name);
    const seen: string[] = [];
    let cursor: string | null = null;
    let inserted = 0;
    do {
      const res = await api.call('GET', `/v1/cost_centers?limit=5&sort=name${cursor ? `&cursor=${cursor}` : ''}`, { workspace: F });
      seen.push(...res.body.data.map((c: { name: string }) => c.name));
      cursor = res.body.meta.next_cursor;
      // Rows sorting before the cursor (already passed) and after it (still ahead) appear meanwhile.
      await createCenter(`aa-before-${inserted}`);
      await createCenter(`zz-after-${inserted}`);
      inserted += 1;
    } while (cursor);
    const expected = [...existing, ...ours];
    expect(expected).to.not.be.empty;
    for (const name of expected) expect(seen.filter((n) => n === name), name).to.have.length(1);
    expect(new Set(seen).size).to.equal(seen.length);
    for (let i = 0; i < inserted - 1; i += 1) expect(seen).to.include(`zz-after-${i}`);
  });

  it('sorts descending with an id tiebreak across equal sort values', async () => {
    for (let i = 0; i < 7; i += 1) await createCenter('same-name');
    const { names, pages } = await walk('limit=2&sort=-created_at');
    expect(pages).to.be.greaterThan(3);
    expect(names.filter((n) => n === 'same-name')).to.have.length(7);
    expect((await walk('limit=3&sort=name')).names.filter((n) => n === 'same-name')).to.have.length(7);
  });

  it('returns only the requested fields plus id (naming id is allowed)', async () => {
    for (const fields of ['name,version', 'id,name,version']) {
      const res = await api.call('GET', `/v1/cost_centers?fields=${fields}&limit=3`, { workspace: F });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.not.be.empty;
      for (const row of res.body.data) expect(Object.keys(row).sort()).to.deep.equal(['id', 'name', 'version']);
    }
  });

  it('uses the default limit of 25 and the default sort', async () => {
    for (let i = 0; i < 26; i += 1) await createCenter(`bulk-${String(i).padStart(2, '0')}`);
    const res = await api.call('GET', '/v1/cost_centers', { workspace: F });
    expect(res.body.data).to.have.length(25);
    expect(res.body.meta.next_cursor).to.be.a('string');
  });

  const badRequests: { query: string; code: string }[] = [
    { query: 'colour=red', code: 'BAD_REQUEST' },
    { query: 'type[like]=cost', code: 'BAD_REQUEST' },
    { query: 'active[gte]=true', code: 'BAD_REQUEST' },
    { query: 'fields=name,secret', code: 'BAD_REQUEST' },
    { query: 'sort=budget', code: 'BAD_REQUEST' },
    { query: 'limit=0', code: 'VALIDATION_ERROR' },
    { query: 'limit=101', code: 'VALIDATION_ERROR' },
    { query: 'limit=ten', code: 'VALIDATION_ERROR' },
    { query: 'limit=1.5', code: 'VALIDATION_ERROR' },
    { query: 'cursor=not-a-cursor!', code: 'VALIDATION_ERROR' },
    { query: `cursor=${Buffer.from('{"s":"name","v":{},"i":"x"}').toString('base64url')}`, code: 'VALIDATION_ERROR' },
    { query: 'type=plastic', code: 'VALIDATION_ERROR' },
    { query: 'active=maybe', code: 'VALIDATION_ERROR' },
    { query: 'limit=1&limit=2', code: 'VALIDATION_ERROR' },
  ];
  for (const { query, code } of badRequests) {
    it(`answers 400 ${code} for ?${query.slice(0, 40)}`, async () => {
      const res = await api.call('GET', `/v1/cost_centers?${query}`, { workspace: F });
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal(code);
    });
  }

  it('refuses a cursor issued for another sort', async () => {
    const first = await api.call('GET', '/v1/cost_centers?limit=1&sort=name', { workspace: F });
    const res = await api.call('GET', `/v1/cost_centers?limit=1&sort=-name&cursor=${first.body.meta.next_cursor}`, { workspace: F });
    expect(res.body.error.code).to.equal('VALIDATION_ERROR');
  });
  it('reads the page size from the contract: limit 1–100, in every list, /v1/workspaces included', async () => {
    // openapi/v1.yaml `Limit`: "Page size, 1–100 (default 25). Out of range → `VALIDATION_ERROR`."
    for (const path of ['/v1/cost_centers', '/v1/workspaces']) {
      for (const limit of ['0', '101', '00101', '-1', '1e2', '12345']) {
        const res = await api.call('GET', `${path}?limit=${limit}`, { workspace: F });
        expect(res.status, `${path}?limit=${limit}`).to.equal(400);
        expect(res.body.error.code).to.equal('VALIDATION_ERROR');
        expect(res.body.error.details.issues).to.deep.equal([{ path: 'limit', message: 'must be an integer from 1 to 100' }]);
      }
      for (const limit of ['1', '100', '0025']) {
        const res = await api.call('GET', `${path}?limit=${limit}`, { workspace: F });
        expect(res.status, `${path}?limit=${limit}`).to.equal(200);
      }
    }
  });
});
