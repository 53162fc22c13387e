import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VectorMatrix } from '../../src/store/vector-kernel.js';
import { openEmbeddedVectors } from '../../src/store/vectors-embedded.js';

const dir = mkdtempSync(join(tmpdir(), 'sc-vecq-'));
const store = openEmbeddedVectors(dir);

/** Seeded random unit vectors: sums of uniforms, roughly Gaussian in every direction. */
function unitVectors(count: number, dim: number, seed: number): number[][] {
  let s = seed;
  const rnd = () => { s = (s * 1103515245 + 12345) % 2 ** 31; return s / 2 ** 31 - 0.5; };
  return Array.from({ length: count }, () => {
    const v = Array.from({ length: dim }, () => rnd() + rnd() + rnd());
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  });
}

const dot = (a: number[], b: number[]) => a.reduce((acc, x, i) => acc + x * b[i], 0);

function bruteForce(points: Array<{ id: string; vector: number[] }>, q: number[], k: number) {
  return points.map((p) => ({ id: p.id, score: dot(p.vector, q) })).sort((a, b) => b.score - a.score).slice(0, k);
}

test('the int8 kernel scores rows like a float dot product, within quantisation error', () => {
  const dim = 300;
  const rows = unitVectors(40, dim, 3);
  const [q] = unitVectors(1, dim, 4);
  const m = new VectorMatrix(dim, 40);
  rows.forEach((r, i) => m.setRow(i, Float32Array.from(r)));
  m.setQuery(Float32Array.from(q));
  const approx = new Float64Array(40);
  m.approximate(0, 40, approx);
  const qScale = Math.max(...q.map(Math.abs)) / 127;
  rows.forEach((r, i) => {
    assert.ok(Math.abs(approx[i] * qScale - dot(r, q)) < 0.01, `row ${i}: ${approx[i] * qScale} vs ${dot(r, q)}`);
    assert.ok(Math.abs(m.exact(i, Float32Array.from(q)) - dot(r, q)) < 1e-5);
  });
});

test('quantised search returns the exact top-k of a brute-force search over thousands of random unit vectors', async () => {
  for (const dim of [512, 1536]) {
    const name = `q${dim}`;
    const points = unitVectors(3000, dim, dim).map((vector, i) => ({ id: `p${i}`, vector, payload: { workspaceId: 'ws_q' } }));
    await store.ensureCollection(name, dim);
    await store.upsert(name, points);
    for (const [j, q] of unitVectors(20, dim, dim + 1).entries()) {
      const k = j % 2 ? 10 : 50;
      const expected = bruteForce(points, q, k);
      const hits = await store.search(name, q, { filter: { workspaceId: 'ws_q' }, limit: k });
      assert.equal(hits.map((h) => h.id), expected.map((e) => e.id), `query ${j} at ${dim} dimensions`);
      hits.forEach((h, i) => assert.ok(Math.abs(h.score - expected[i].score) < 1e-5, `exact score for ${h.id}`));
    }
  }
});

test('quantised search stays exact with a filter and after deletes move rows', async () => {
  const dim = 256;
  const points = unitVectors(4000, dim, 11).map((vector, i) => ({ id: `p${i}`, vector, payload: { workspaceId: 'ws_q', part: i % 3 } }));
  await store.ensureCollection('qf', dim);
  await store.upsert('qf', points);
  await store.deleteByFilter('qf', { workspaceId: 'ws_q', part: 0 });
  const kept = points.filter((p) => p.payload.part === 2);
  for (const q of unitVectors(10, dim, 12)) {
    const hits = await store.search('qf', q, { filter: { workspaceId: 'ws_q', part: 2 }, limit: 20 });
    assert.equal(hits.map((h) => h.id), bruteForce(kept, q, 20).map((e) => e.id));
  }
});

test.after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test.run();
