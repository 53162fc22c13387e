/**
 * What a scale-out group costs when nobody chats (issue 38): the CPU each process, each of its threads, the
 * supervisor and redis-server burn a second with conversations held and a panel open but no turn running, against
 * one process alone (no Redis) in the same run, and what the group sends Redis a second (by command, INFO
 * commandstats, Lua scripts' own calls included; and the round trips the processes count). The per-turn figures
 * of bench/scale.ts include this at its share.
 *
 *   node --import tsx bench/scale-idle.ts [--procs=1,4] [--seconds=20] [--visitors=40] [--live=1] [--prof=dir]
 *        [--lease=10000]
 *
 * Each configuration first gets --visitors visitors chatting as fast as answered for 8 s (its JIT warmed up, and
 * their conversations' actors and leases held afterwards, as after real traffic), then all are measured together
 * for --seconds, idle. Redis's network reads (INFO total_reads_processed; the bench's own INFO between is taken
 * off) count the writes clients made, however many commands each carried. --prof=dir: a --cpu-prof of every
 * process (read them with bench/prof-top.mjs --window). --lease: LEASE_MS of the groups (10 s, the server's default).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { startChild } from './child.js';
import { statCpuMs } from './proc-cpu.js';
import { redisCounters, roundTrips, startOne, startWorkers, type Config } from './scale-configs.js';
import { drive } from './scale-drive.js';

const arg = (name: string, d: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d;
const PROCS = arg('procs', '1,4').split(',').map(Number);
const SECONDS = Number(arg('seconds', '20'));
const VISITORS = Number(arg('visitors', '40'));
const LIVE = Number(arg('live', '1'));
const PROF = arg('prof', '') ? ['--cpu-prof', `--cpu-prof-dir=${arg('prof', '')}`] : [];
const env = { LEASE_MS: arg('lease', '10000') };

/** CPU ms so far of each thread of a process, by thread name (the main thread is "main"). */
function threads(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let name: string;
    let cpu: number;
    try {
      name = Number(tid) === pid ? 'main' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const [u, s] = statCpuMs(`/proc/${pid}/task/${tid}/stat`);
      cpu = u + s;
    } catch { continue; } // the thread ended meanwhile
    out.set(name, (out.get(name) ?? 0) + cpu);
  }
  return out;
}

/** A thread's CPU that ended within the window is lost from /proc: the process's own total is read as well. */
function snapshot(c: Config) {
  const procs = c.pids.map((pid) => { const [u, s] = statCpuMs(`/proc/${pid}/stat`); return { pid, total: u + s, threads: threads(pid) }; });
  const redis = c.redis ? statCpuMs(`/proc/${c.redis.proc.pid}/stat`).reduce((a, b) => a + b, 0) : 0;
  return { procs, redis };
}

const fake = await startChild('scale-fake.ts', ['lean']);
const { baseUrl, apiKey } = fake.ready as { baseUrl: string; apiKey: string };
const configs: Config[] = [];
try {
  for (const n of PROCS) configs.push(n === 1 ? await startOne(baseUrl, apiKey, { nodeArgs: PROF, live: LIVE }) : await startWorkers(n, baseUrl, apiKey, { nodeArgs: PROF, live: LIVE, env }));
  for (const c of configs) await drive({ urls: [c.url], botId: c.botId, visitors: VISITORS, warmup: 0, seconds: 8, client: 'lean' }, { start() {}, stop() {} });
  await new Promise((r) => setTimeout(r, 2000)); // the last turns' follow-ups (stores, webhooks' checks) settle
  console.log(`${configs.map((c) => c.name).join(', ')}; ${VISITORS} visitors' conversations held, ${LIVE} panel(s) open; LEASE_MS ${env.LEASE_MS}; ${SECONDS} s idle; load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const before = await Promise.all(configs.map(async (c) => ({ cpu: snapshot(c), redis: await redisCounters(c), trips: await roundTrips(c) })));
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const after = await Promise.all(configs.map(async (c) => ({ cpu: snapshot(c), redis: await redisCounters(c), trips: await roundTrips(c) })));
  const perSec = (x: number) => (x / SECONDS).toFixed(2);
  for (const [i, c] of configs.entries()) {
    const b = before[i], a = after[i];
    const servers = a.cpu.procs.reduce((s, p, k) => s + p.total - b.cpu.procs[k].total, 0);
    const redis = a.cpu.redis - b.cpu.redis;
    console.log(`\n${c.name}: ${perSec(servers + redis)} CPU ms a second (servers ${perSec(servers)}, redis-server ${perSec(redis)}); round trips ${perSec(a.trips - b.trips)} a second; Redis commands ${perSec(a.redis.commands - b.redis.commands)} and network reads ${perSec(Math.max(0, a.redis.reads - b.redis.reads - 1))} a second`);
    for (const [k, p] of a.cpu.procs.entries()) {
      const was = b.cpu.procs[k];
      const by = [...p.threads].map(([name, ms]) => [name, ms - (was.threads.get(name) ?? 0)] as const).filter(([, ms]) => ms > 0).sort((x, y) => y[1] - x[1]);
      const role = c.procs > 1 && k === c.pids.length - 1 ? 'supervisor' : `process ${k}`;
      console.log(`  ${role} (pid ${p.pid}): ${perSec(p.total - was.total)} ms/s; ${by.map(([name, ms]) => `${name} ${perSec(ms)}`).join(', ')}`);
    }
    const cmds = [...a.redis.byName].map(([name, n]) => [name, n - (b.redis.byName.get(name) ?? 0)] as const).filter(([, n]) => n > 0).sort((x, y) => y[1] - x[1]);
    if (cmds.length) console.log(`  Redis commands a second: ${cmds.map(([name, n]) => `${name} ${perSec(n)}`).join(', ')}`);
  }
} finally {
  for (const c of configs) await c.stop().catch(() => {});
  fake.proc.kill();
}
