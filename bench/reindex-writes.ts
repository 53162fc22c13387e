/**
 * The writes of a reindexed document's passages on the embedded store: one replaceMany (one transaction on the
 * store thread) against its baseline, a replaceOne per passage sent at once (what the indexer did before),
 * measured alternately in the same run.
 *
 *   npx tsx bench/reindex-writes.ts [passages=1000] [rounds=8]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openEmbeddedStore } from '../src/store/embedded.js';

const [passages = 1000, rounds = 8] = process.argv.slice(2).map(Number);
const dir = mkdtempSync(join(tmpdir(), 'reindex-writes-'));
const store = openEmbeddedStore(dir);
const chunks = store.collection<{ _id: string; workspaceId: string; documentId: string; index: number; text: string }>('bench_chunks', {
  indexes: [{ fields: [['workspaceId', 1], ['documentId', 1], ['index', 1]] }],
});
// A passage of the size the chunker makes (about 1,000 characters), changed each round.
const records = (round: number) => Array.from({ length: passages }, (_, index) => ({
  _id: `doc_1:${index}`, workspaceId: 'ws_bench', documentId: 'doc_1', index, text: `round ${round} `.padEnd(1000, 'lorem ipsum '),
}));
await chunks.insertMany(records(0));

const times = { replaceMany: [] as number[], replaceOneEach: [] as number[] };
for (let r = 1; r <= rounds * 2; r++) {
  const docs = records(r);
  const t0 = performance.now();
  if (r % 2) await chunks.replaceMany(docs); else await Promise.all(docs.map((d) => chunks.replaceOne(d)));
  times[r % 2 ? 'replaceMany' : 'replaceOneEach'].push(performance.now() - t0);
}
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
const many = median(times.replaceMany.slice(1));
const each = median(times.replaceOneEach.slice(1));
console.log(`${passages} passages, median of ${rounds - 1} rounds (the first of each is warm-up):`);
console.log(`  replaceMany            ${many.toFixed(1)} ms`);
console.log(`  replaceOne each (base) ${each.toFixed(1)} ms`);
console.log(`  ratio                  ${(many / each).toFixed(2)} (below 1: faster than the baseline)`);
await store.close();
rmSync(dir, { recursive: true, force: true });
