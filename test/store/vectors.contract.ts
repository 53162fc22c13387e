import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newId } from '../../src/store/ids.js';
import type { VectorStore } from '../../src/store/types.js';

/**
 * The vector store contract: every adapter must pass the same suite. Each test uses its own collection
 * (named with `prefix`, so a real server can be cleaned up after) and its own workspaces.
 */
export type VectorStoreFactory = { open: () => Promise<VectorStore>; prefix: string; cleanup?: () => Promise<void> } | { skip: string };

export function vectorsContract(adapter: string, factory: VectorStoreFactory): void {
  const title = 'skip' in factory ? `vectors contract: ${adapter} (skipped: ${factory.skip})` : `vectors contract: ${adapter}`;
  const s = suite(title);
  let store: VectorStore;
  let seq = 0;
  const name = () => `${'skip' in factory ? '' : factory.prefix}v${++seq}`;
  const ws = () => newId('ws');

  if ('skip' in factory) console.log(`# ${title}`);
  else {
    s.before(async () => { store = await factory.open(); });
    s.after(async () => { await store?.close(); await factory.cleanup?.(); });
  }
  const test = 'skip' in factory ? s.skip : s;

  const near = (a: number, b: number, msg?: string) => assert.ok(Math.abs(a - b) < 1e-4, msg ?? `${a} is not close to ${b}`);

  test('ensureCollection is idempotent and refuses another dimension', async () => {
    const n = name();
    await store.ensureCollection(n, 3);
    await store.ensureCollection(n, 3);
    try {
      await store.ensureCollection(n, 4);
      assert.unreachable('expected a dimension error');
    } catch (err) {
      assert.match((err as Error).message, /dimension/);
    }
  });

  test('search returns the nearest points by cosine similarity, best first, up to the limit', async () => {
    const n = name();
    const w = ws();
    await store.ensureCollection(n, 3);
    await store.upsert(n, [
      { id: 'opposite', vector: [-2, 0, 0], payload: { workspaceId: w } },
      { id: 'same', vector: [5, 0, 0], payload: { workspaceId: w, title: 'same' } },
      { id: 'orthogonal', vector: [0, 0, 3], payload: { workspaceId: w } },
      { id: 'diagonal', vector: new Float32Array([1, 1, 0]), payload: { workspaceId: w } },
    ]);
    const hits = await store.search(n, [1, 0, 0], { filter: { workspaceId: w }, limit: 10 });
    assert.equal(hits.map((h) => h.id), ['same', 'diagonal', 'orthogonal', 'opposite']);
    near(hits[0].score, 1);
    near(hits[1].score, Math.SQRT1_2);
    near(hits[2].score, 0);
    near(hits[3].score, -1);
    assert.equal(hits[0].payload, { workspaceId: w, title: 'same' });
    assert.equal((await store.search(n, [1, 0, 0], { filter: { workspaceId: w }, limit: 2 })).map((h) => h.id), ['same', 'diagonal']);
  });

  test('search agrees with brute-force cosine over random vectors', async () => {
    const n = name();
    const w = ws();
    const dim = 37;
    let seed = 7;
    const rnd = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 31 - 0.5; };
    const points = Array.from({ length: 300 }, (_, i) => ({ id: `p${i}`, vector: Array.from({ length: dim }, rnd), payload: { workspaceId: w } }));
    await store.ensureCollection(n, dim);
    await store.upsert(n, points);
    const q = Array.from({ length: dim }, rnd);
    const norm = (v: number[]) => Math.sqrt(v.reduce((a, x) => a + x * x, 0));
    const cos = (v: number[]) => v.reduce((a, x, i) => a + x * q[i], 0) / norm(v) / norm(q);
    const expected = points.map((p) => ({ id: p.id, score: cos(p.vector) })).sort((a, b) => b.score - a.score).slice(0, 15);
    const hits = await store.search(n, q, { filter: { workspaceId: w }, limit: 15 });
    assert.equal(hits.map((h) => h.id), expected.map((e) => e.id));
    hits.forEach((h, i) => near(h.score, expected[i].score));
  });

  test('upserting an existing id replaces its vector and payload', async () => {
    const n = name();
    const w = ws();
    await store.ensureCollection(n, 2);
    await store.upsert(n, [{ id: 'chunk_1', vector: [1, 0], payload: { workspaceId: w, v: 1 } }]);
    await store.upsert(n, [{ id: 'chunk_1', vector: [0, 1], payload: { workspaceId: w, v: 2 } }]);
    assert.is(await store.count(n, { workspaceId: w }), 1);
    const [hit] = await store.search(n, [0, 1], { filter: { workspaceId: w }, limit: 5 });
    assert.is(hit.id, 'chunk_1');
    near(hit.score, 1);
    assert.equal(hit.payload, { workspaceId: w, v: 2 });
  });

  test('filters keep workspaces apart and match any of an array of values', async () => {
    const n = name();
    const [w1, w2] = [ws(), ws()];
    await store.ensureCollection(n, 2);
    await store.upsert(n, [
      { id: 'a', vector: [1, 0], payload: { workspaceId: w1, sourceId: 's1', lang: 'en', page: 1, public: true } },
      { id: 'b', vector: [1, 0.1], payload: { workspaceId: w1, sourceId: 's2', lang: 'de', page: 2, public: false } },
      { id: 'c', vector: [1, 0.2], payload: { workspaceId: w1, sourceId: 's3', lang: 'en', page: 3, public: true } },
      { id: 'x', vector: [1, 0], payload: { workspaceId: w2, sourceId: 's1', lang: 'en', page: 1, public: true } },
    ]);
    const ids = async (filter: Parameters<VectorStore['search']>[2]['filter']) =>
      (await store.search(n, [1, 0], { filter, limit: 10 })).map((h) => h.id).sort().join(',');
    assert.is(await ids({ workspaceId: w1 }), 'a,b,c');
    assert.is(await ids({ workspaceId: w2 }), 'x');
    assert.is(await ids({ workspaceId: ws() }), '');
    assert.is(await ids({ workspaceId: w1, sourceId: ['s1', 's3'] }), 'a,c');
    assert.is(await ids({ workspaceId: w1, sourceId: [] }), '');
    assert.is(await ids({ workspaceId: w1, lang: 'en' }), 'a,c');
    assert.is(await ids({ workspaceId: w1, page: [2, 3] }), 'b,c');
    assert.is(await ids({ workspaceId: w1, public: false }), 'b');
    assert.is(await store.count(n, { workspaceId: w1, lang: 'en' }), 2);
    assert.is(await store.count(n, { workspaceId: w1, sourceId: ['s1', 's2'] }), 2);
  });

  test('deleteByFilter removes only the matching points of the workspace', async () => {
    const n = name();
    const [w1, w2] = [ws(), ws()];
    await store.ensureCollection(n, 2);
    await store.upsert(n, [
      { id: 'a', vector: [1, 0], payload: { workspaceId: w1, sourceId: 's1' } },
      { id: 'b', vector: [0, 1], payload: { workspaceId: w1, sourceId: 's2' } },
      { id: 'c', vector: [1, 1], payload: { workspaceId: w1, sourceId: 's1' } },
      { id: 'x', vector: [1, 0], payload: { workspaceId: w2, sourceId: 's1' } },
    ]);
    await store.deleteByFilter(n, { workspaceId: w1, sourceId: 's1' });
    assert.is(await store.count(n, { workspaceId: w1 }), 1);
    assert.is(await store.count(n, { workspaceId: w2 }), 1);
    assert.equal((await store.search(n, [1, 0], { filter: { workspaceId: w1 }, limit: 5 })).map((h) => h.id), ['b']);
    await store.deleteByFilter(n, { workspaceId: w2 });
    assert.is(await store.count(n, { workspaceId: w2 }), 0);
    // A re-insert after a delete is a fresh point again.
    await store.upsert(n, [{ id: 'a', vector: [1, 0], payload: { workspaceId: w1, sourceId: 's1' } }]);
    assert.is(await store.count(n, { workspaceId: w1 }), 2);
  });

  test('a collection that does not exist has no points and refuses upserts', async () => {
    const n = name();
    const w = ws();
    assert.equal(await store.search(n, [1, 0], { filter: { workspaceId: w }, limit: 3 }), []);
    assert.is(await store.count(n, { workspaceId: w }), 0);
    await store.deleteByFilter(n, { workspaceId: w });
    try {
      await store.upsert(n, [{ id: 'a', vector: [1, 0], payload: { workspaceId: w } }]);
      assert.unreachable('expected an error');
    } catch (err) {
      assert.match((err as Error).message, /does not exist/);
    }
  });

  test('a vector of the wrong dimension is refused', async () => {
    const n = name();
    await store.ensureCollection(n, 3);
    try {
      await store.upsert(n, [{ id: 'a', vector: [1, 0], payload: { workspaceId: ws() } }]);
      assert.unreachable('expected an error');
    } catch (err) {
      assert.match((err as Error).message, /dimensions/);
    }
  });

  s.run();
}
