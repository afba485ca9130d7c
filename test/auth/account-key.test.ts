import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { loadAccountKey, buildJwks } from '../../src/auth/account-key.js';

describe('loadAccountKey(dataDir)', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-key-'));
  });
  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('creates an ES256 key on first start and reuses it afterwards', async () => {
    const first = await loadAccountKey(dataDir);
    const second = await loadAccountKey(dataDir);
    expect(second.kid).to.equal(first.kid);
    expect(second.publicJwk).to.deep.equal(first.publicJwk);
    const stat = await fs.stat(path.join(dataDir, 'account-key.json'));
    expect(stat.mode & 0o777).to.equal(0o600);
  });

  it('agrees on one key when several processes start at once, and none reads a half-written file', async () => {
    // Twenty fresh folders, eight loaders racing in each (under CI's load, one of them once read
    // the file between its creation and its last byte; the next test makes that visible always).
    for (let round = 0; round < 20; round += 1) {
      const folder = await fs.mkdtemp(path.join(dataDir, 'race-'));
      const keys = await Promise.all(Array.from({ length: 8 }, () => loadAccountKey(folder)));
      expect(new Set(keys.map((k) => k.kid)).size).to.equal(1);
      expect(await fs.readdir(folder)).to.deep.equal(['account-key.json']);
    }
  });

  it('never shows a half-written key file under its name: a reader polling it all along sees only whole keys', async () => {
    const file = path.join(dataDir, 'account-key.json');
    // Polls in 5 ms slices, so it can still hear "stop" between them; `reads[0]` counts the whole
    // reads it made, so each round below waits (up to 5 s) until the poller has read that round's
    // file before removing it: on a loaded machine the worker may start late or be descheduled,
    // and a round it never saw would prove nothing.
    const reads = new Int32Array(new SharedArrayBuffer(4));
    const poller = new Worker(`
      const { parentPort, workerData } = require('node:worker_threads');
      const fs = require('node:fs');
      const reads = new Int32Array(workerData.counter);
      let seen = 0, partial = 0, stop = false;
      parentPort.on('message', () => { stop = true; });
      (function poll() {
        const until = Date.now() + 5;
        while (Date.now() < until) {
          let text;
          try { text = fs.readFileSync(workerData.file, 'utf8'); } catch { continue; }
          seen += 1;
          Atomics.add(reads, 0, 1);
          try { JSON.parse(text); } catch { partial += 1; }
        }
        if (stop) parentPort.postMessage({ seen, partial }); else setImmediate(poll);
      })();
    `, { eval: true, workerData: { file, counter: reads.buffer } });
    const readSince = async (before: number): Promise<void> => {
      for (let waited = 0; Atomics.load(reads, 0) === before && waited < 5000; waited += 2) await delay(2);
    };
    try {
      let roundsSeen = 0;
      for (let round = 0; round < 40; round += 1) {
        await Promise.all(Array.from({ length: 4 }, () => loadAccountKey(dataDir)));
        const before = Atomics.load(reads, 0);
        await readSince(before);
        if (Atomics.load(reads, 0) > before) roundsSeen += 1;
        await fs.rm(file);
      }
      poller.postMessage('stop');
      const [counts] = (await once(poller, 'message')) as [{ seen: number; partial: number }];
      expect(roundsSeen).to.equal(40);
      expect(counts.seen).to.be.above(0);
      expect(counts.partial).to.equal(0);
    } finally {
      await poller.terminate();
    }
  });

  it('publishes only the public half in the JWKS', async () => {
    const jwks = buildJwks(await loadAccountKey(dataDir));
    expect(jwks.keys[0]).to.not.have.property('d');
    expect(jwks.keys[0]).to.include({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
  });

  it('refuses a key file that is not an ES256 private key', async () => {
    await fs.writeFile(path.join(dataDir, 'account-key.json'), JSON.stringify({ kty: 'oct', k: 'c2VjcmV0' }));
    const caught = await loadAccountKey(dataDir).then(() => undefined, (err: unknown) => err);
    expect(caught).to.be.instanceOf(Error);
    expect((caught as Error).message).to.match(/not an ES256 private key/);
  });

  it('keeps a key in memory only for a :memory: data dir', async () => {
    const key = await loadAccountKey(':memory:');
    expect(key.kid).to.be.a('string');
    await fs.access(path.join(process.cwd(), ':memory:')).then(() => expect.fail('a :memory: directory was created'), () => undefined);
  });
});
