import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AppContext } from '../../src/app/context.js';
import { calibrationOf, learnSimilarities, MIN_PAIRS, type CalibrationRecord } from '../../src/knowledge/calibration.js';
import { COLLECTIONS } from '../../src/knowledge/collections.js';
import { systemClock } from '../../src/kernel/clock.js';
import { openEmbeddedStore } from '../../src/store/embedded.js';
type Store = ReturnType<typeof openEmbeddedStore>;

/** A document's vectors as indexing makes them: `n` neighbouring passages, each a unit vector of its own. */
function vectors(seed: number, n: number): Map<number, Float32Array> {
  const out = new Map<number, Float32Array>();
  for (let i = 0; i < n; i++) {
    const v = Float32Array.from({ length: 16 }, (_, k) => Math.sin(seed * 7.1 + i * 1.3 + k * 0.7));
    const norm = Math.hypot(...v);
    out.set(i, v.map((x) => x / norm));
  }
  return out;
}

async function withStore(run: (app: AppContext, store: Store) => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), 'sc-calibration-'));
  const store = openEmbeddedStore(dir);
  try {
    await run({ store, clock: systemClock } as unknown as AppContext, store);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const record = async (store: Store) => (await store.collection<CalibrationRecord>(COLLECTIONS.calibration).find({ workspaceId: 'ws_1' }))[0];

test('documents indexed side by side each add their pairs: none is lost to another\'s write', () => withStore(async (app, store) => {
  // Twelve documents of four passages: three neighbouring pairs each; every document after the first compares its
  // probes with the samples of those before it.
  await Promise.all(Array.from({ length: 12 }, (_, d) => learnSimilarities(app, 'ws_1', 'prov_1:model', `doc_${d}`, vectors(d, 4))));
  const rec = await record(store);
  assert.is(rec.related.n, 36, 'three neighbouring pairs from each of twelve documents');
  // Document d (in whatever order they ran) meets the two samples of each earlier one with its four probes.
  assert.is(rec.unrelated.n, 4 * 2 * (11 * 12) / 2);
  assert.is(rec.samples.length, 24);
  assert.ok(calibrationOf(rec) !== null && rec.related.n >= MIN_PAIRS);
}));

test('a record another process changed between the read and the write is read again, and both changes stay', () => withStore(async (app, store) => {
  await learnSimilarities(app, 'ws_1', 'prov_1:model', 'doc_a', vectors(1, 3));
  const col = store.collection<CalibrationRecord>(COLLECTIONS.calibration);
  // The other process's update lands right after this process has read the record.
  let interfered = false;
  const racing = {
    ...app,
    store: {
      collection: (name: string) => {
        const real = store.collection<CalibrationRecord>(name);
        return Object.assign(Object.create(real), {
          findById: async (ws: string, id: string) => {
            const found = await real.findById(ws, id);
            if (!interfered) {
              interfered = true;
              await col.updateOne({ workspaceId: ws, _id: id }, { $inc: { 'related.n': 100, version: 1 } });
            }
            return found;
          },
        });
      },
    },
  } as unknown as AppContext;
  await learnSimilarities(racing, 'ws_1', 'prov_1:model', 'doc_b', vectors(2, 3));
  const rec = await record(store);
  assert.ok(interfered);
  assert.is(rec.related.n, 2 + 100 + 2, "both documents' pairs and the other process's change");
  assert.is(rec.version, 3);
}));

test.run();
