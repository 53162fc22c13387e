/**
 * Clock skew in a scale-out group: process 2's clock is 30 s ahead of the others' (test/scale/skew-clock.mjs).
 * The group goes by the coordination server's time (src/scale/clock.ts), so its timestamps, presence and handoff
 * deadlines agree with the other processes'.
 */
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis as RedisClient } from 'ioredis';
import { until } from '../helpers/until.js';
import { startGroupWorld, type GroupWorld } from './world.js';

const SKEW_MS = 30_000;
let world: GroupWorld;

test.before(async () => {
  world = await startGroupWorld({
    env: { SKEW_WORKER: '2', SKEW_MS: String(SKEW_MS) },
    nodeArgs: ['--import', fileURLToPath(new URL('./skew-clock.mjs', import.meta.url))],
    botPatch: {
      behavior: { handoff: { enabled: true, acceptTimeoutSec: 15, offlineAction: 'message' } },
      texts: { offline: 'Nobody could take it; we will write back.' },
    },
  });
});
test.after(async () => { await world?.close(); });

test('the process whose clock is ahead says so and stamps its messages with the group\'s time', async () => {
  // The offset is measured to within half a Redis round trip: about 30,000 ms, a little under on a busy machine.
  const warned = () => world.group.logs.some((l) => l.level === 40 && /clock is ahead of the coordination server's \(REDIS_URL\) by (29|30)\d{3} ms/.test(l.msg));
  await until(warned, { interval: 100, message: () => `a warning naming the offset (warnings: ${JSON.stringify(world.group.logs.filter((l) => l.level === 40).map((l) => l.msg))})` });
  const visitor = await world.widget(2);
  await visitor.frame('ready');
  visitor.send({ t: 'message', text: 'What time is it?' });
  const mine = await visitor.frame('message', (f) => f.message.role === 'user');
  assert.ok(Math.abs(mine.message.createdAt - Date.now()) < 5000, `createdAt ${mine.message.createdAt - Date.now()} ms from now`);
});

test('an agent on a process with the right time is available to a visitor on the process whose clock is ahead', async () => {
  const agentLive = await world.live(0, world.agent);
  await agentLive.event('presence.changed', (d) => d.presence === 'online').catch(() => {});
  // The agent's presence reaches Redis (src/scale/presence.ts: a sorted set per workspace, `<prefix>open:<workspace>`).
  const redis = new RedisClient(world.redis.url);
  try {
    await until(async () => { for (const key of await redis.keys('*open:*')) if (await redis.zcard(key) > 0) return true; return false; }, { message: "the agent's presence in Redis" });
  } finally { redis.disconnect(); }
  world.fake.script([{ toolCalls: [{ name: 'handoff_to_human', arguments: { reason: 'wants a person' } }] }, { text: 'Let me get someone.' }]);
  const visitor = await world.widget(2);
  await visitor.frame('ready');
  visitor.send({ t: 'message', text: 'A person please' });
  const handoff = await visitor.frame('handoff');
  assert.is(handoff.available, true, 'the agent online on process 0 counts (presence read with the group\'s time)');
});

test('a handoff wait armed by a process with the right time is not ended early by the process whose clock is ahead', async () => {
  const agentLive = await world.live(1, world.agent);
  await agentLive.event('presence.changed').catch(() => {});
  world.fake.script([{ toolCalls: [{ name: 'handoff_to_human', arguments: { reason: 'wants a person' } }] }, { text: 'Let me get someone.' }]);
  const visitor = await world.widget(0);
  await visitor.frame('ready');
  visitor.send({ t: 'message', text: 'A person please' });
  await visitor.frame('handoff', (f) => f.available === true);
  const askedAt = Date.now();
  // Every process re-arms waiting handoffs every 5 s: the process ahead would find the deadline 30 s past at once.
  const line = await visitor.next((f) => f.t === 'message' && f.message.role === 'system_event' && /Nobody could take it/.test(f.message.text), 40_000);
  const waited = Date.now() - askedAt;
  assert.ok(waited > 13_000, `the visitor was told after ${waited} ms, not before the 15 s wait`);
  assert.ok(line);
});

test.run();
