/**
 * A process's periodic coordination (issue 38's idle cost): one heartbeat whose parts go to Redis in one write, and
 * the notices kept for conversations not owned here do not pile up.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis as Client } from 'ioredis';
import { createLogger } from '../../src/kernel/log.js';
import { ScaleNode } from '../../src/scale/node.js';
import { until } from '../helpers/until.js';
import { startRedis, type Redis } from './world.js';

let redis: Redis;
let raw: Client;
const log = createLogger((process.env.TEST_LOG_LEVEL ?? 'silent') as 'silent');
const nodes: ScaleNode[] = [];
/** A process of the group; LEASE_MS 300 makes a beat every 100 ms. */
const node = async () => { const n = await ScaleNode.connect(redis.url, log, 300); nodes.push(n); return n; };
const reads = async () => Number(/total_reads_processed:(\d+)/.exec(await raw.info('stats'))?.[1]);

test.before(async () => { redis = await startRedis(); raw = new Client(redis.url); });
test.after(async () => { for (const n of nodes) await n.close(); raw?.disconnect(); await redis?.stop(); });

test('the heartbeat sends its parts with the membership in one write a beat', async () => {
  const n = await node();
  let beats = 0;
  // Three parts due on every beat, as the lease renewal, presence and the clock's sample are on some (each, as
  // theirs, takes care of its own failure: a command in flight when the node closes is refused).
  const ignore = () => {};
  n.heartbeat.every(0, () => { beats++; n.cmd.exists('a').catch(ignore); });
  n.heartbeat.every(0, () => { n.cmd.exists('b').catch(ignore); });
  n.heartbeat.every(0, () => { n.cmd.exists('c').catch(ignore); });
  await until(() => beats >= 2, { message: 'two beats' });
  const r0 = await reads();
  const b0 = beats;
  const trips0 = n.roundTrips;
  await until(() => beats >= b0 + 20, { message: '20 more beats' });
  const r1 = await reads();
  const b1 = beats;
  const trips = n.roundTrips - trips0;
  // The two INFO calls are reads too; a write Redis happens to read in two pieces is allowed for now and then.
  const perBeat = (r1 - r0 - 1) / (b1 - b0);
  assert.ok(trips >= 4 * (b1 - b0) - 4, `${trips} commands in ${b1 - b0} beats: the membership and three parts each`);
  assert.ok(perBeat < 1.5, `${(r1 - r0 - 1)} reads by Redis in ${b1 - b0} beats (4 commands each): ${perBeat.toFixed(2)} a beat`);
});

test('a notice for a conversation this process does not own is dropped after some seconds', async () => {
  const a = await node();
  const b = await node();
  await b.watchers.listen(() => {});
  // The lease names b (its grant on its way, or b let the conversation go since): a's widget opening is told to b.
  await raw.set(`sc:lease:conv-early`, `${b.id}|1`);
  a.watchers.watch('conv-early', true);
  await until(() => b.watchers.earlyCount === 1, { message: 'the notice kept by b' });
  // No grant follows: before, it was kept for the life of the process (one per such conversation).
  await until(() => b.watchers.earlyCount === 0, { timeout: 15_000, message: 'the notice dropped' });
});

test.run();
