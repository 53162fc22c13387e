/**
 * Search latency through the route, on a knowledge base of real documents (issue 39): p50 / p99 of
 * `POST /api/v1/knowledge/search` as the owner, words only, on the documentation of the five evaluation sets
 * (test/fixtures/knowledge*, 163 Markdown pages) uploaded `--copies` times (default 4, about 13,000 passages: a
 * large product documentation site), asked the sets' questions (visitors' wording, typos, other languages).
 *
 * Baselines, in the same run and process, over the same passages:
 *  - a bare FTS5 BM25 query of every query term OR-ed on a plain table of the passages (no ranking beyond
 *    BM25, no typo correction, no records, no HTTP): what ranking on top of BM25 costs;
 *  - `GET /api/v1/knowledge/settings` as the same owner: what HTTP, authentication and JSON cost on their own.
 *
 *   npx tsx bench/knowledge-search.ts [--copies=4] [--rounds=3] [--against=DIR]
 *
 * --against=DIR: a second server from another checkout of this project (e.g. `git archive <commit> | tar -x -C
 * DIR`, with node_modules linked), given the same documents in the same process; its route is timed interleaved
 * with this one's, so "before and after a ranking change" is one run's ratio, not two runs on a shared machine.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { queryTerms } from '../src/knowledge/search.js';
import { knowledge } from '../src/knowledge/service.js';
import { openSqlite } from '../src/store/sqlite.js';
import { setupOwner } from '../test/helpers/auth.js';
import { startTestServer, type TestServer } from '../test/helpers/server.js';

const arg = (name: string) => process.argv.slice(2).find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const COPIES = Math.max(1, Math.min(Number(arg('copies')) || 4, 20));
const ROUNDS = Math.max(1, Math.min(Number(arg('rounds')) || 3, 20));
const AGAINST = arg('against');
const SETS = ['knowledge', 'knowledge-eval', 'knowledge-eval-2', 'knowledge-eval-3', 'knowledge-eval-4'];
const dir = (set: string) => new URL(`../test/fixtures/${set}/`, import.meta.url).pathname;
const pages = SETS.flatMap((set) => readdirSync(join(dir(set), 'corpus')).filter((f) => f.endsWith('.md') && f !== 'LICENSES.md')
  .map((f) => ({ name: `${set}-${f}`, text: readFileSync(join(dir(set), 'corpus', f), 'utf8') })));
const questions = SETS.flatMap((set) => (JSON.parse(readFileSync(join(dir(set), 'questions.json'), 'utf8')) as Array<{ q: string }>).map((x) => x.q));
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0; };

type Serve = typeof startTestServer;
type Owner = typeof setupOwner;
type Svc = typeof knowledge;
/** A server of the given tree with the knowledge base loaded; its owner's headers. */
async function loaded(tree: { startTestServer: Serve; setupOwner: Owner; knowledge: Svc }, label: string) {
  const server = await tree.startTestServer({ env: { EMBEDDED_EMBEDDINGS: 'false' } });
  const owner = await tree.setupOwner(server);
  const svc = tree.knowledge(server.app);
  await server.request('PUT', '/api/v1/knowledge/settings', { headers: owner.headers, body: { embedding: null } });
  const t0 = performance.now();
  for (let c = 0; c < COPIES; c++) {
    for (const p of pages) await svc.upload(owner.workspaceId, Buffer.from(p.text), 'text/markdown', c ? `copy${c}-${p.name}` : p.name);
    await svc.runner.idle();
  }
  const chunks = await server.app.store.collection<{ _id: string; workspaceId: string; title: string; text: string }>('knowledge_chunks').find({ workspaceId: owner.workspaceId });
  console.log(`${label}: ${pages.length} pages x ${COPIES} = ${pages.length * COPIES} documents, ${chunks.length} passages, indexed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { server, owner, chunks };
}

const servers: TestServer[] = [];
try {
  const here = await loaded({ startTestServer, setupOwner, knowledge }, 'this tree');
  servers.push(here.server);
  const { server, owner, chunks } = here;
  let other: Awaited<ReturnType<typeof loaded>> | null = null;
  if (AGAINST) {
    const root = AGAINST.replace(/\/$/, '');
    const tree = {
      startTestServer: (await import(`${root}/test/helpers/server.ts`)).startTestServer as Serve,
      setupOwner: (await import(`${root}/test/helpers/auth.ts`)).setupOwner as Owner,
      knowledge: (await import(`${root}/src/knowledge/service.ts`)).knowledge as Svc,
    };
    other = await loaded(tree, AGAINST);
    servers.push(other.server);
  }
  const bare = openSqlite(':memory:');
  bare.exec(`CREATE VIRTUAL TABLE t USING fts5(title, body, tokenize = 'porter unicode61 remove_diacritics 2')`);
  const ins = bare.prepare('INSERT INTO t (title, body) VALUES (?, ?)');
  bare.transaction(() => { for (const c of chunks) ins.run(c.title, c.text); })();
  const bareStmt = bare.prepare('SELECT rowid, bm25(t, 2.0, 1.0) AS s FROM t WHERE t MATCH ? ORDER BY s LIMIT 50');
  const orQuery = (q: string) => queryTerms(q).map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');

  const timed = async (fn: (q: string) => Promise<unknown> | unknown) => {
    for (const q of questions.slice(0, 10)) await fn(q); // warm caches
    const times: number[] = [];
    for (let r = 0; r < ROUNDS; r++) for (const q of questions) { const t = performance.now(); await fn(q); times.push(performance.now() - t); }
    return { p50: pct(times, 50), p99: pct(times, 99) };
  };
  const routeOf = (s: TestServer, headers: Record<string, string>) => async (q: string) => {
    const r = await s.request('POST', '/api/v1/knowledge/search', { headers, body: { query: q, topK: 5 } });
    if (r.status !== 200) throw new Error(`search answered ${r.status}: ${JSON.stringify(r.body)}`);
  };
  const route = routeOf(server, owner.headers);
  const otherRoute = other && routeOf(other.server, other.owner.headers);
  const settings = async () => {
    const r = await server.request('GET', '/api/v1/knowledge/settings', { headers: owner.headers });
    if (r.status !== 200) throw new Error(`settings answered ${r.status}`);
  };
  const load = loadavg()[0];
  // Interleaved thirds, so a burst of load from other work falls on every measurement alike.
  const runs = { route: [] as Array<{ p50: number; p99: number }>, other: [] as Array<{ p50: number; p99: number }>, bare: [] as Array<{ p50: number; p99: number }>, http: [] as Array<{ p50: number; p99: number }> };
  for (let i = 0; i < 3; i++) {
    runs.route.push(await timed(route));
    if (otherRoute) runs.other.push(await timed(otherRoute));
    runs.bare.push(await timed((q) => bareStmt.all(orQuery(q))));
    runs.http.push(await timed(settings));
  }
  const med = (xs: Array<{ p50: number; p99: number }>, k: 'p50' | 'p99') => pct(xs.map((x) => x[k]), 50);
  const row = (name: string, xs: Array<{ p50: number; p99: number }>) => `  ${name.padEnd(52)} ${med(xs, 'p50').toFixed(2)} / ${med(xs, 'p99').toFixed(2)} ms`;
  console.log(`\nsearch latency, ${questions.length} questions x ${ROUNDS} rounds, three interleaved runs (median of their p50 / p99); load average ${load.toFixed(1)} -> ${loadavg()[0].toFixed(1)}`);
  console.log(row('POST /api/v1/knowledge/search (words only, topK 5)', runs.route));
  console.log(row('baseline: bare FTS5 BM25, query terms OR-ed', runs.bare));
  console.log(row('baseline: GET /api/v1/knowledge/settings', runs.http));
  const ratio = (k: 'p50' | 'p99') => `${(med(runs.route, k) / med(runs.bare, k)).toFixed(2)}x bare FTS5, ${(med(runs.route, k) / med(runs.http, k)).toFixed(2)}x settings`;
  console.log(`  route p50 ${ratio('p50')}; p99 ${ratio('p99')}`);
  if (otherRoute) {
    console.log(row(`the same route, ${AGAINST}`, runs.other));
    console.log(`  this tree against it: p50 ${(med(runs.route, 'p50') / med(runs.other, 'p50')).toFixed(2)}x, p99 ${(med(runs.route, 'p99') / med(runs.other, 'p99')).toFixed(2)}x`);
  }
  bare.close();
} finally {
  for (const s of servers) await s.stop();
}
