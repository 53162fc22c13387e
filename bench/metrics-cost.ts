/**
 * What recording metrics costs per event (issue 26), in the server's own process without the noise of a whole
 * chat run: a store call through the instrumented store with metrics off and on, an HTTP request's record,
 * and one scrape of the registry. With the chat bench's count of store calls per turn this gives the CPU the
 * metrics add per turn (docs/performance.md, ## Metrics).
 *
 * Times are CPU time of this process (process.cpuUsage), so other work on a busy machine does not count.
 *
 *   npx tsx bench/metrics-cost.ts
 */
/** CPU milliseconds used by this process so far. */
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const performance = { now: cpuMs };
import { disableMetrics, enableMetrics, scrape } from '../src/metrics/registry.js';
import { recordHttp } from '../src/metrics/record.js';
import { instrumentStore } from '../src/metrics/store.js';
import type { DocumentStore } from '../src/store/types.js';

const N = 2_000_000;
const doc = { _id: 'x', workspaceId: 'w' };
const collection = { name: 'c', findById: () => Promise.resolve(doc) } as never;
const bare = { kind: 'embedded', collection: () => collection, close: async () => {} } as unknown as DocumentStore;
const store = instrumentStore(bare);

async function storeCalls(label: string): Promise<number> {
  const c = store.collection<typeof doc>('c');
  for (let i = 0; i < 100_000; i++) await c.findById('w', 'x'); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await c.findById('w', 'x');
  const ns = ((performance.now() - t0) * 1e6) / N;
  console.log(`${label.padEnd(34)} ${ns.toFixed(0)} ns per call`);
  return ns;
}

const rawC = bare.collection<typeof doc>('c');
const t0 = performance.now();
for (let i = 0; i < N; i++) await rawC.findById('w', 'x');
const raw = ((performance.now() - t0) * 1e6) / N;
console.log(`${'store call, not instrumented'.padEnd(34)} ${raw.toFixed(0)} ns per call`);
disableMetrics();
const off = await storeCalls('store call, metrics off');
enableMetrics();
const on = await storeCalls('store call, metrics on');
const t1 = performance.now();
for (let i = 0; i < N; i++) recordHttp('GET /api/v1/bots/{id}', 200, 1.5);
console.log(`${'HTTP request record'.padEnd(34)} ${(((performance.now() - t1) * 1e6) / N).toFixed(0)} ns`);
await scrape();
const t2 = performance.now();
for (let i = 0; i < 200; i++) await scrape();
console.log(`${'one scrape (this process)'.padEnd(34)} ${((performance.now() - t2) / 200).toFixed(2)} ms`);
console.log(`added by metrics per store call: ${(on - off).toFixed(0)} ns (off vs bare: ${(off - raw).toFixed(0)} ns)`);
