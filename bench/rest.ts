/**
 * REST throughput (issue 27): an authenticated `GET /api/v1/bots` (5 bots by default) with an API token and with a session
 * cookie, against a baseline measured in the same run: a bare uWebSockets.js server answering a small JSON hello.
 * autocannon -c100 (its own process) drives each target in turn; the targets are measured ROUNDS times,
 * interleaved, so a change in the machine's load shows in every ratio rather than in one target. Ratios are
 * against the bare hello of the same round.
 *
 * Three processes: the built server as `npm start` runs it (bench/chat-server.ts built into bench/.build/, npm start's Node
 * flags, NODE_ENV=production, a log line per request at LOG_LEVEL=info to a file), the bare uWS server
 * (bench/bare-uws.ts, same flags), and autocannon.
 *
 *   npx tsx bench/rest.ts [seconds=5] [rounds=2] [--bots=5] [--log=silent] [--pipeline=N] [--prof] [--tsx]
 *   --bots        how many bots the workspace has (each record holds its draft config, a few KB)
 *   --pipeline=N  autocannon -p N: N requests in flight per connection, pipelined (every target answers from memory
 *                 once warm: the bots list is kept, src/bots/list-cache.ts; a request waiting on I/O would close it)
 *   --log=silent  runs the server without its request log (to see what the log line costs)
 *   --prof        writes a CPU profile of the server per measured target to bench/.prof/chat-phase-N.cpuprofile
 *                 (summarise with `node bench/prof-top.mjs <file>`); profiling slows the server, so read ratios
 *                 from a run without it
 *   BENCH_SERVER_FLAGS passes Node flags to the server process (e.g. "--cpu-prof --cpu-prof-dir=bench/.prof/all",
 *   which profiles every thread, the store's included, over the whole run)
 *
 * Results are kept in docs/performance.md (REST, idle sockets and webhooks).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPrivately, SERVER_ENTRIES } from './build.js';
import { startChild, type Child } from './child.js';
import { processCpuMs } from './proc-cpu.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const SECONDS = Math.max(1, Math.min(Number(args[0]) || 5, 60));
const ROUNDS = Math.max(1, Math.min(Number(args[1]) || 2, 10));
const CONNECTIONS = 100;
const PIPELINE = Math.max(1, Math.min(Number(process.argv.find((a) => a.startsWith('--pipeline='))?.slice(11)) || 1, 100));
const PROF = process.argv.includes('--prof');
const TSX = process.argv.includes('--tsx');
const LOG = process.argv.find((a) => a.startsWith('--log='))?.slice(6) ?? 'info';
/** Bots in the workspace the list answers (the bench server's published one and BOTS - 1 drafts made through the API). */
const BOTS = Math.max(1, Math.min(Number(process.argv.find((a) => a.startsWith('--bots='))?.slice(7)) || 5, 50));
const here = dirname(fileURLToPath(import.meta.url));
const autocannonBin = join(here, '../node_modules/autocannon/autocannon.js');

interface Result { rps: number; p50: number; p99: number; non2xx: number; errors: number; cpuUsPerReq: number }

/** autocannon in its own process (-j: JSON summary on stdout). */
function cannon(url: string, headers: Record<string, string>, seconds: number, pid: number): Result {
  const h = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]);
  const cpu0 = processCpuMs(pid);
  const out = execFileSync(process.execPath, [autocannonBin, '-c', String(CONNECTIONS), '-p', String(PIPELINE), '-d', String(seconds), '-j', ...h, url], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });
  const cpu = processCpuMs(pid) - cpu0;
  const r = JSON.parse(out) as { requests: { average: number; total: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number };
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, cpuUsPerReq: (cpu * 1000) / r.requests.total };
}

if (PROF) mkdirSync(join(here, '.prof'), { recursive: true });
const built = TSX ? false : await buildPrivately([...SERVER_ENTRIES, 'bench/bare-uws.ts']);
const bare = await startChild('bare-uws.ts', [], [], built);
const server = await startChild('chat-server.ts', ['http://127.0.0.1:9/v1', '--env=production', `--log=${LOG}`, ...(PROF ? [`--prof=${join(here, '.prof')}`] : [])], process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? [], built);
const api = `http://127.0.0.1:${server.ready.port}`;
const session = { cookie: server.ready.cookie as string };

async function call(method: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(api + path, { method, headers: { 'content-type': 'application/json', cookie: session.cookie, 'x-csrf-token': server.ready.csrf as string }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

try {
  const token = (await call('POST', '/api/v1/tokens', { name: 'bench', scopes: ['bots:read'] })).value as string;
  for (let i = 1; i < BOTS; i++) await call('POST', '/api/v1/bots', { name: `bench ${i}` });
  const targets: Array<{ name: string; url: string; headers: Record<string, string>; server: Child }> = [
    { name: 'bare uWS JSON hello', url: `http://127.0.0.1:${bare.ready.port}/hello`, headers: {}, server: bare },
    { name: 'GET /api/v1/bots, API token', url: `${api}/api/v1/bots`, headers: { authorization: `Bearer ${token}` }, server },
    { name: 'GET /api/v1/bots, session cookie', url: `${api}/api/v1/bots`, headers: session, server },
    { name: 'GET /healthz (no auth, no store)', url: `${api}/healthz`, headers: {}, server },
  ];
  // Warm-up (not reported): JIT, prepared statements, connection set-up on both servers.
  for (const t of targets) cannon(t.url, t.headers, 2, t.server.proc.pid!);
  const results = targets.map(() => [] as Result[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, t] of targets.entries()) {
      if (PROF && t.server === server) await t.server.call('phaseStart');
      results[i].push(cannon(t.url, t.headers, SECONDS, t.server.proc.pid!));
      if (PROF && t.server === server) await t.server.call('phaseStop');
    }
  }
  const load = execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ').slice(0, 3).join(' ');
  console.log(`rest bench: autocannon -c ${CONNECTIONS} -p ${PIPELINE} -d ${SECONDS}, ${ROUNDS} rounds interleaved; ${BOTS} bots; server LOG_LEVEL=${LOG}, NODE_ENV=production; load average ${load}`);
  // Throughput depends on what else the 2 cores run; CPU per request (all the server's threads) much less, so
  // both are shown: "CPU ratio" is the bare server's CPU per request over this target's (1 = as cheap as bare).
  console.log('target | req/s per round | ratio to bare per round | server CPU µs per request | CPU ratio | p50 / p99 ms (last round) | non-2xx, errors');
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [i, t] of targets.entries()) {
    const r = results[i];
    const ratios = r.map((x, k) => (x.rps / results[0][k].rps).toFixed(2));
    const cpu = med(r.map((x) => x.cpuUsPerReq));
    const last = r[r.length - 1];
    console.log(`${t.name} | ${r.map((x) => x.rps.toFixed(0)).join(' · ')} | ${ratios.join(' · ')} | ${r.map((x) => x.cpuUsPerReq.toFixed(0)).join(' · ')} | ${(med(results[0].map((x) => x.cpuUsPerReq)) / cpu).toFixed(2)} | ${last.p50} / ${last.p99} | ${r.reduce((a, x) => a + x.non2xx, 0)}, ${r.reduce((a, x) => a + x.errors, 0)}`);
  }
  console.log('target (issue 27): authenticated GET /api/v1/bots >= 0.5x the bare hello');
} finally {
  await Promise.all([server, bare].map((c) => new Promise<void>((r) => { c.proc.once('exit', () => r()); c.proc.send({ cmd: 'quit' }); })));
}
