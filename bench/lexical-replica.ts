/**
 * What a machine's first start costs with MongoDB: the keyword index replica copies every chunk from the store
 * (src/knowledge/lexical-replica.ts). The embedded store stands in for MongoDB (no network here), so the figures
 * are the copy's local side: reading the records and indexing them. Baseline in the same run: indexing the same
 * entries straight into a fresh lexical.db (what the chunks cost to index at all). Also a later start's
 * reconcile, which only compares stamps. First, with a real redis-server: how long after a writer announces a
 * document another machine holds it (message, store reads, indexing), one document at a time.
 *
 *   node --import tsx bench/lexical-replica.ts [--docs=2000] [--chunks=10]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppContext } from '../src/app/context.js';
import { openRecords } from '../src/records-root.js';
import { systemClock } from '../src/kernel/clock.js';
import { loadConfig } from '../src/config/index.js';
import { EventBus } from '../src/app/event-bus.js';
import { knowledgeCollections } from '../src/knowledge/collections.js';
import { lexicalEntry } from '../src/knowledge/indexer.js';
import { replicateLexical } from '../src/knowledge/lexical-replica.js';
import type { KnowledgeChunk, KnowledgeDocument } from '../src/knowledge/types.js';
import { createLogger } from '../src/kernel/log.js';
import { openEmbeddedStore } from '../src/store/embedded.js';
import { openEmbeddedLexical } from '../src/store/lexical-embedded.js';
import { openEmbeddedVectors } from '../src/store/vectors-embedded.js';
import { ScaleNode } from '../src/scale/node.js';
import { startRedis } from '../test/scale/world.js';

const arg = (name: string, d: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d);
const DOCS = arg('docs', 2000);
const CHUNKS = arg('chunks', 10);
const WS = 'ws_bench';
const WORDS = 'water soil compost mulch prune rose tomato seed frost fleece bean trellis hazel hedge beech worm casting leaf scrap heap pepper light sow indoor summer winter bud cut acid berry blue ph lime clay sand loam drain pot root shoot leafmould'.split(' ');
let seed = 7;
const rnd = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 31; };
const text = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)] + (rnd() < 0.1 ? `${Math.floor(rnd() * 500)}` : '')).join(' ');

const dirs: string[] = [];
const temp = () => { const d = mkdtempSync(join(tmpdir(), 'sc-bench-lexrep-')); dirs.push(d); return d; };
const log = createLogger('silent');
const store = openEmbeddedStore(temp());
const app: AppContext = {
  config: loadConfig({ DATA_DIR: temp(), NODE_ENV: 'test', LOG_LEVEL: 'silent', SECRET_KEY: 'test-secret-key-0123456789abcdef0123456789' }),
  log, clock: systemClock, store, records: openRecords(store, { botsChanged: async () => {} }), vectors: openEmbeddedVectors(temp()), events: new EventBus(store, systemClock, log),
  secretKey: Buffer.alloc(32, 1), scale: null, onClose: () => {},
};

const c = knowledgeCollections(app);
/** Writes one document of CHUNKS chunks into the store, as indexDocument does (chunks, then the record). */
async function writeDocument(d: number, generation = 1): Promise<{ doc: KnowledgeDocument; chunks: KnowledgeChunk[] }> {
  const documentId = `kdoc_bench${String(d).padStart(6, '0')}`;
  const chunks: KnowledgeChunk[] = Array.from({ length: CHUNKS }, (_, index) => ({
    _id: `kch_bench${String(d).padStart(6, '0')}_${String(index).padStart(5, '0')}`, workspaceId: WS, sourceId: 'ks_bench', documentId,
    index, heading: `Part ${index}`, title: `Page ${d}`, url: null, text: text(90),
  }));
  await c.chunks.deleteMany({ workspaceId: WS, documentId });
  await c.chunks.insertMany(chunks);
  const doc: KnowledgeDocument = { _id: documentId, workspaceId: WS, sourceId: 'ks_bench', url: null, title: `Page ${d}`, type: 'markdown', bytes: 5000, chunkCount: CHUNKS, vectorCollection: null, generation, indexedAt: 1 };
  await c.documents.replaceOne(doc);
  return { doc, chunks };
}

// Propagation between two machines (each its own file and Redis connection), one document at a time.
const redis = await startRedis();
const machines = await Promise.all([0, 1].map(async () => {
  const scale = await ScaleNode.connect(redis.url, log, 1500);
  const local = openEmbeddedLexical(temp());
  return { scale, local, replica: replicateLexical({ ...app, scale }, local) };
}));
await Promise.all(machines.map((m) => m.replica.started));
const [writer, reader] = machines;
const PROPAGATE = 200;
const lags: number[] = [];
const trips0 = writer.scale.roundTrips;
for (let d = 0; d < PROPAGATE; d++) {
  const { doc, chunks } = await writeDocument(d, 1);
  await writer.local.upsert(chunks.map(lexicalEntry));
  const t0 = performance.now();
  writer.replica.documentsChanged(WS, [doc], []);
  while (reader.local.stampOf(doc._id) === null) await new Promise((r) => setTimeout(r, 1));
  lags.push(performance.now() - t0);
}
const trips = writer.scale.roundTrips - trips0;
for (const m of machines) { await m.replica.close(); await m.scale.close(); }
await redis.stop();
await c.chunks.deleteMany({ workspaceId: WS });
await c.documents.deleteMany({ workspaceId: WS });
lags.sort((x, y) => x - y);
const pct = (p: number) => lags[Math.min(lags.length - 1, Math.floor(lags.length * p))].toFixed(1);
console.log(`propagation (${PROPAGATE} documents of ${CHUNKS} chunks, one at a time): p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${lags[lags.length - 1].toFixed(1)} ms (polled every 1 ms); writer's Redis round trips per document: ${(trips / PROPAGATE).toFixed(2)}; load ${loadavg()[0].toFixed(2)}`);

const allChunks: KnowledgeChunk[] = [];
for (let d = 0; d < DOCS; d++) allChunks.push(...(await writeDocument(d)).chunks);

/** Wall and CPU milliseconds of fn (CPU of the whole process: the store's thread included). */
async function measure(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const t0 = performance.now(); const u0 = process.cpuUsage();
  await fn();
  const u = process.cpuUsage(u0);
  return { wall: Math.round(performance.now() - t0), cpu: Math.round((u.user + u.system) / 1000) };
}

const chunksTotal = DOCS * CHUNKS;
const load = () => loadavg()[0].toFixed(2);

const direct = openEmbeddedLexical(temp());
const baseline = await measure(async () => { for (let i = 0; i < allChunks.length; i += CHUNKS) await direct.upsert(allChunks.slice(i, i + CHUNKS).map(lexicalEntry)); });
await direct.close();

const replicaDir = temp();
let replica = replicateLexical(app, openEmbeddedLexical(replicaDir));
const first = await measure(() => replica.started);
const firstStats = await replica.started;
const count = await replica.count({ workspaceId: WS });
await replica.close();
replica = replicateLexical(app, openEmbeddedLexical(replicaDir));
const later = await measure(() => replica.started);
await replica.close();

const per1000 = (ms: number) => (ms * 1000 / chunksTotal).toFixed(1);
console.log(JSON.stringify({ docs: DOCS, chunks: chunksTotal, copied: firstStats?.copied, indexed: count, load1: load() }));
console.log(`baseline (index the entries directly): ${baseline.wall} ms wall, ${baseline.cpu} ms CPU; ${per1000(baseline.cpu)} ms CPU per 1,000 chunks`);
console.log(`first start (copy everything from the store): ${first.wall} ms wall, ${first.cpu} ms CPU; ${per1000(first.cpu)} ms CPU per 1,000 chunks; ${(first.cpu / baseline.cpu).toFixed(2)}x the baseline's CPU`);
console.log(`later start (stamps only): ${later.wall} ms wall, ${later.cpu} ms CPU for ${DOCS} documents`);

await store.close();
for (const d of dirs) rmSync(d, { recursive: true, force: true });
