/**
 * Scale-out bench (issues 25, 38): what a chat turn costs with 1, 2 and 4 server processes at the same offered
 * load. One server process alone (no Redis) and WORKERS=n groups, each group with a redis-server of its own, all
 * started at once and driven in turn (alternated, repeated): at each rate (turns/s over all visitors, well below
 * saturation), every configuration gets the same visitors sending on the same schedule. Per configuration and
 * run: CPU ms per turn of every server process, the supervisor and redis-server together (read from /proc; the
 * load generator and the fake provider are reported apart), its ratio to one process in the same round, the
 * group's Redis round trips per turn (commands the processes sent: servicechat_redis_round_trips_total, a Lua
 * script or a MULTI block counting as its commands), Redis's network reads per turn (INFO stats
 * total_reads_processed: writes of clients, however many commands each carries) and commands per turn (INFO
 * commandstats, Lua scripts' own calls included). Also the CPU each configuration burns idle (ms a second),
 * measured between the runs, which the per-turn figures include at their share.
 *
 *   node --import tsx bench/scale.ts [--procs=1,2,4,4apart] [--rates=60,160] [--rounds=3] [--seconds=10] [--warmup=8]
 *        [--live=1] [--apparatus=lean|test] [--prof=dir] [--monitor]
 *
 * --procs=4apart: four single processes that share nothing (each its own data, bot and panels; no Redis), driven
 *   together at the rate: the same work as a group of four without coordination, to tell what coordinating costs
 *   from what four processes on this machine cost.
 * Each configuration is first warmed up (its JIT) by 40 visitors sending as fast as they are answered for --warmup s.
 * --live=n: n admin panel live sockets of the bot's workspace open on the group's first process (and on the one
 * process), as when someone watches the inbox: stored events then have somewhere to go. --live=0: nobody watches.
 * --rates=max: saturation instead (each visitor sends again as soon as answered; --visitors=240).
 * --monitor: also what each group sent Redis per turn, by command and channel or key kind (Redis MONITOR while
 *   measured: it costs Redis CPU, so the figures of such a run are not the CPU's).
 * --apparatus=test drives with the tests' frame client and fake provider (bench/scale-drive.ts, scale-fake.ts).
 */
import { createHash } from 'node:crypto';
import { CLAIM_SCRIPTS, LEASE_SCRIPTS, LIMIT_SCRIPTS, SEAT_SCRIPTS } from '../src/scale/scripts.js';
import { redisCounters, roundTrips, startApart, startOne, startWorkers, type Config } from './scale-configs.js';
import { startChild } from './child.js';
import { monitorRedis } from '../test/scale/world.js';
import { cpuMeter, drive, type Cpu, type DriveResult } from './scale-drive.js';

const arg = (name: string, d: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d;
/** Configurations: n (1: one process alone, more: a WORKERS=n group), or `<n>apart` (n single processes sharing nothing). */
const PROCS = arg('procs', '1,2,4').split(',');
const RATES = arg('rates', '60,160').split(',').map((r) => (r === 'max' ? 0 : Number(r)));
const ROUNDS = Number(arg('rounds', '3'));
const SECONDS = Number(arg('seconds', '10'));
const WARMUP = Number(arg('warmup', '8'));
const LIVE = Number(arg('live', '1'));
const APPARATUS = arg('apparatus', 'lean') === 'test' ? 'test' : 'lean';
const MONITOR = process.argv.includes('--monitor');
const PROF = arg('prof', '') ? ['--cpu-prof', `--cpu-prof-dir=${arg('prof', '')}`] : [];
const client = APPARATUS === 'test' ? 'frames' as const : 'lean' as const;
/** Visitors at a rate: one turn a second each (a socket may send 240 frames a minute), at least 20. At saturation --visitors (240). */
const visitorsAt = (rate: number) => (rate ? Math.max(20, rate) : Number(arg('visitors', '240')));
/** SHA1 of each Lua script the processes define (ioredis EVALSHA), to name them in the monitor's counts. */
const scriptNames = new Map(Object.entries({ ...LEASE_SCRIPTS, ...CLAIM_SCRIPTS, ...LIMIT_SCRIPTS, ...SEAT_SCRIPTS }).map(([name, d]) => [createHash('sha1').update(d.lua).digest('hex'), name]));

/** A key or channel without the installation prefix and ids: `ev:<workspace>` -> `ev:*`. */
const kind = (k: string) => k.replace(/^sc:[0-9a-f]{12}:/, '').replace(/^(n|node):.*$/, '$1:*').replace(/:[^:]+$/, ':*');

/** Starts counting what the group sends Redis (MONITOR, read through a plain socket): call the result to stop and get the counts by kind. */
async function countRedisCommands(c: Config): Promise<() => Map<string, number>> {
  const counts = new Map<string, number>();
  const mon = await monitorRedis(c.redis!.url, (args, source) => {
    const cmd = args[0];
    if (cmd === 'info' || cmd === 'monitor') return;
    const what = cmd === 'evalsha' ? `evalsha ${scriptNames.get(args[1]) ?? args[1].slice(0, 8)} ${kind(args[3] ?? '')}` : `${cmd} ${kind(args[1] ?? '')}`;
    const k = (source === 'lua' ? '  (in lua) ' : '') + what;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  });
  return () => { mon.close(); return counts; };
}

interface Run { config: string; procs: number; rate: number; round: number; r: DriveResult; servers: Cpu; redis: Cpu; apparatus: Cpu; trips: number; reads: number; commands: number; byKind: Map<string, number> | null }

const ms = (c: Cpu) => c.user + c.sys;
/** Where a configuration's visitors go: its one address, or each of its apart processes with that one's bot. */
const target = (c: Config) => (c.apart ? { urls: c.apart.urls, botId: c.apart.botIds } : { urls: [c.url], botId: c.botId });

/** Warms a configuration's JIT up: 40 visitors as fast as they are answered, for WARMUP seconds, not measured. */
async function warm(c: Config): Promise<void> {
  await drive({ ...target(c), visitors: 40, warmup: 0, seconds: WARMUP, client }, { start() {}, stop() {} });
}

async function measure(c: Config, rate: number, round: number, fakePid: number): Promise<Run> {
  const roles: Record<string, number[]> = { servers: c.pids, apparatus: [process.pid, fakePid] };
  if (c.redis) roles.redis = [c.redis.proc.pid!];
  let stop: () => Record<string, Cpu> = () => ({});
  let before = { reads: 0, commands: 0, trips: 0 };
  const counters = async () => ({ ...(await redisCounters(c)), trips: await roundTrips(c) });
  let after = before;
  let cpu: Record<string, Cpu> = {};
  let monitored: (() => Map<string, number>) | null = null;
  let byKind: Map<string, number> | null = null;
  const r = await drive({ ...target(c), visitors: visitorsAt(rate), warmup: 0, seconds: SECONDS, client, rate: rate || undefined }, {
    start: async () => { if (MONITOR && c.redis) monitored = await countRedisCommands(c); before = await counters(); stop = cpuMeter(roles); },
    stop: async () => { cpu = stop(); after = await counters(); byKind = monitored?.() ?? null; },
  });
  const zero = { user: 0, sys: 0, main: 0 };
  // The bench's own reads of Redis's counters (two INFO calls, each a read) are not the group's.
  return {
    config: c.name, procs: c.procs, rate, round, r, servers: cpu.servers, redis: cpu.redis ?? zero, apparatus: cpu.apparatus,
    trips: after.trips - before.trips, reads: Math.max(0, after.reads - before.reads - 2), commands: after.commands - before.commands, byKind,
  };
}

/** CPU ms a second each configuration burns with no visitors (timers: leases, membership, presence, sweeps). */
async function idle(configs: Config[], seconds: number): Promise<Map<string, number>> {
  const roles = Object.fromEntries(configs.map((c) => [c.name, [...c.pids, ...(c.redis ? [c.redis.proc.pid!] : [])]]));
  const stop = cpuMeter(roles);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cpu = stop();
  return new Map(configs.map((c) => [c.name, ms(cpu[c.name]) / seconds]));
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

const fake = await startChild('scale-fake.ts', [APPARATUS]);
const { baseUrl, apiKey } = fake.ready as { baseUrl: string; apiKey: string };
const configs: Config[] = [];
try {
  for (const p of PROCS) {
    const n = Number.parseInt(p, 10);
    const o = { nodeArgs: PROF, live: LIVE };
    configs.push(p.endsWith('apart') ? await startApart(n, baseUrl, apiKey, o) : n === 1 ? await startOne(baseUrl, apiKey, o) : await startWorkers(n, baseUrl, apiKey, o));
  }
  console.log(`apparatus ${APPARATUS}; ${configs.map((c) => c.name).join(', ')}; rates ${RATES.map((r) => r || 'max').join(', ')} turns/s; ${ROUNDS} rounds of ${SECONDS} s; ${LIVE} live socket(s); load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (const c of configs) await warm(c);
  const idleBefore = await idle(configs, 5);
  console.log(`idle CPU (ms a second, servers + redis): ${configs.map((c) => `${c.name} ${idleBefore.get(c.name)!.toFixed(1)}`).join(', ')}`);
  const runs: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const rate of RATES) {
      // Alternated: each round starts with the next configuration, so none always runs first (or after the same one).
      for (let k = 0; k < configs.length; k++) {
        const c = configs[(k + round) % configs.length];
        const run = await measure(c, rate, round, fake.proc.pid!);
        runs.push(run);
        const t = run.r.turns;
        console.log(`round ${round + 1}, ${rate || 'max'} turns/s, ${c.name}: ${run.r.turnsPerSec.toFixed(1)} turns/s, p50 ${run.r.p50.toFixed(1)} ms, p99 ${run.r.p99.toFixed(1)} ms; ` +
          `servers ${(ms(run.servers) / t).toFixed(3)} ms/turn (main threads ${(run.servers.main / t).toFixed(3)}, kernel ${(run.servers.sys / t).toFixed(3)}), redis ${(ms(run.redis) / t).toFixed(3)}, apparatus ${(ms(run.apparatus) / t).toFixed(3)}; ` +
          `round trips ${(run.trips / t).toFixed(2)}, redis reads ${(run.reads / t).toFixed(2)}, commands ${(run.commands / t).toFixed(2)} per turn` +
          (run.r.errors.length ? `; ${run.r.errors.length} visitors stopped early: ${run.r.errors[0]}` : '') + (run.r.abnormal.length ? `; ${run.r.abnormal.length} abnormal closes` : ''));
        if (run.byKind) for (const [k, n] of [...run.byKind].sort((a, b) => b[1] - a[1])) console.log(`    ${(n / t).toFixed(3)} per turn  ${k}`);
      }
    }
  }
  const idleAfter = await idle(configs, 5);
  console.log(`idle CPU after (ms a second): ${configs.map((c) => `${c.name} ${idleAfter.get(c.name)!.toFixed(1)}`).join(', ')}`);
  console.log('\nCPU ms per turn of the servers + redis, median over rounds (ratio to 1 process: median of the rounds\' ratios), per turn:');
  console.log('| rate | processes | turns/s | p50 / p99 ms | CPU ms/turn (servers + redis) | vs 1 process | redis ms/turn | round trips | redis reads | commands |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const rate of RATES) {
    for (const c of configs) {
      const mine = runs.filter((x) => x.rate === rate && x.config === c.name);
      const cost = (x: Run) => (ms(x.servers) + ms(x.redis)) / x.r.turns;
      const ratios = mine.map((x) => { const one = runs.find((y) => y.rate === rate && y.round === x.round && y.config === '1 process'); return one ? cost(x) / cost(one) : NaN; });
      const per = (f: (x: Run) => number) => median(mine.map((x) => f(x) / x.r.turns));
      console.log(`| ${rate || 'max'} | ${c.name.replace(/ process(es)?$/, '')} | ${median(mine.map((x) => x.r.turnsPerSec)).toFixed(1)} | ${median(mine.map((x) => x.r.p50)).toFixed(1)} / ${median(mine.map((x) => x.r.p99)).toFixed(1)} | ${median(mine.map(cost)).toFixed(3)} (${mine.map((x) => cost(x).toFixed(3)).join(', ')}) | ${median(ratios).toFixed(2)}x (${ratios.map((x) => x.toFixed(2)).join(', ')}) | ${per((x) => ms(x.redis)).toFixed(3)} | ${per((x) => x.trips).toFixed(2)} | ${per((x) => x.reads).toFixed(2)} | ${per((x) => x.commands).toFixed(2)} |`);
    }
  }
} finally {
  for (const c of configs) await c.stop().catch(() => {});
  fake.proc.kill();
}
