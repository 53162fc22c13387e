/**
 * Ingest cost of the embedded embedding model on the worker pool (issue 24): the evaluation corpus's passages
 * (undici docs, chunked as ingestion does, embedded as "title\ntext") go through embed-batch on the ingest
 * lane in batches of 16, as documents are. Reports passages/s (wall, depends on the machine's load), CPU time
 * per passage (the process's user+system time, mostly the one ingest thread: it depends far less on load),
 * the first batch (model load) and the process's RSS before and after the model was loaded; then a query
 * embedding on the search lane (first, with its load, and warm p50).
 *
 *   npx tsx bench/knowledge-embed.ts [--limit=N]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { chunkMarkdown } from '../src/documents/chunk.js';
import { closePool, runTask } from '../workers/pool.js';
import { EVAL_DIR } from './knowledge-eval.js';

const limit = Number(process.argv.find((a) => a.startsWith('--limit='))?.split('=')[1] ?? Infinity);
const dir = join(EVAL_DIR, 'corpus');
const texts: string[] = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith('.md')).sort()) {
  const md = readFileSync(join(dir, file), 'utf8');
  const title = md.match(/^#\s+(.+)$/m)?.[1] ?? file;
  for (const c of chunkMarkdown(md)) texts.push(`${title}\n${c.text}`);
}
const passages = texts.slice(0, limit);
const mb = () => Math.round(process.memoryUsage().rss / 1e6);
const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');

console.log(`${passages.length} passages, ${Math.round(passages.reduce((s, t) => s + t.length, 0) / passages.length)} characters on average; load average ${load()}`);
const rss0 = mb();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
let first = 0;
for (let i = 0; i < passages.length; i += 16) {
  await runTask('embed-batch', { connection: null, texts: passages.slice(i, i + 16), allowPrivateNetwork: false });
  if (!i) first = performance.now() - t0;
}
const wall = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpuMs = (cpu.user + cpu.system) / 1000;
console.log(`ingest lane: ${(passages.length / wall).toFixed(1)} passages/s wall (${wall.toFixed(1)} s), ${(cpuMs / passages.length).toFixed(1)} ms CPU per passage, first batch of 16 ${(first / 1000).toFixed(1)} s incl. loading the model`);
console.log(`RSS ${rss0} MB before, ${mb()} MB after (one ingest thread holding the model); load average ${load()}`);

const times: number[] = [];
const q0 = performance.now();
await runTask('embed-batch', { connection: null, texts: ['how do I retry a request that failed'], allowPrivateNetwork: false }, { lane: 'search' });
const firstQuery = performance.now() - q0;
for (let i = 0; i < 30; i++) {
  const t = performance.now();
  await runTask('embed-batch', { connection: null, texts: [`how do I set a timeout on request number ${i}`], allowPrivateNetwork: false }, { lane: 'search' });
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
console.log(`search lane: first query ${firstQuery.toFixed(0)} ms (loads the model), then p50 ${times[15].toFixed(1)} ms, max ${times[29].toFixed(1)} ms; RSS ${mb()} MB with both threads holding it`);
await closePool();
