/**
 * What an HTTP/1.1 front in Node would cost (issue 27, fault 1: pipelined requests). uWebSockets.js answers
 * pipelined requests only when each is answered before the next is parsed (no I/O); the way to answer every route in
 * order would be Node's own HTTP/1.1 parser in front. This measures the ceiling of that option against the bare uWS
 * server: the same small JSON hello from bench/bare-uws.ts and from node:http (bench/node-http-hello.ts), each in its
 * own process with npm start's flags, autocannon -c100 without and with pipelining (-p 10), ROUNDS interleaved rounds.
 *
 *   npx tsx bench/http-front.ts [seconds=5] [rounds=2]
 *
 * Results are kept in docs/performance.md (HTTP pipelining).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPrivately } from './build.js';
import { startChild, type Child } from './child.js';

const args = process.argv.slice(2);
const SECONDS = Math.max(1, Math.min(Number(args[0]) || 5, 60));
const ROUNDS = Math.max(1, Math.min(Number(args[1]) || 2, 10));
const here = dirname(fileURLToPath(import.meta.url));
const autocannonBin = join(here, '../node_modules/autocannon/autocannon.js');

function cannon(url: string, pipelining: number): { rps: number; errors: number } {
  const out = execFileSync(process.execPath, [autocannonBin, '-c', '100', '-p', String(pipelining), '-d', String(SECONDS), '-j', url], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });
  const r = JSON.parse(out) as { requests: { average: number }; errors: number; timeouts: number };
  return { rps: r.requests.average, errors: r.errors + r.timeouts };
}

const built = await buildPrivately(['bench/bare-uws.ts', 'bench/node-http-hello.ts']);
const servers: Child[] = [await startChild('bare-uws.ts', [], [], built), await startChild('node-http-hello.ts', [], [], built)];
const names = ['bare uWS hello', 'node:http hello'];
try {
  const url = (s: Child) => `http://127.0.0.1:${s.ready.port}/hello`;
  for (const s of servers) cannon(url(s), 1);
  const rows: string[][] = servers.map(() => []);
  const rps: number[][] = [[], [], [], []];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, s] of servers.entries()) {
      for (const [k, p] of [1, 10].entries()) {
        const r = cannon(url(s), p);
        rps[i * 2 + k].push(r.rps);
        rows[i].push(`-p ${p}: ${r.rps.toFixed(0)} req/s (${r.errors} errors)`);
      }
    }
  }
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`http front bench: autocannon -c 100 -d ${SECONDS}, ${ROUNDS} rounds interleaved; load average ${load}`);
  for (const [i, n] of names.entries()) console.log(`${n} | ${rows[i].join(' | ')}`);
  const ratio = (a: number[], b: number[]) => a.map((x, k) => (x / b[k]).toFixed(2)).join(' · ');
  console.log(`node:http / bare uWS, not pipelined, per round: ${ratio(rps[2], rps[0])}`);
  console.log(`node:http -p 10 / bare uWS -p 10 (uWS answers a synchronous route pipelined), per round: ${ratio(rps[3], rps[1])}`);
} finally {
  await Promise.all(servers.map((c) => new Promise<void>((r) => { c.proc.once('exit', () => r()); c.proc.send({ cmd: 'quit' }); })));
}
