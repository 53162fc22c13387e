/**
 * Failures in a scale-out group (three processes, a real redis-server, the shared embedded store): an owner
 * killed mid-reply, an owner paused past its lease (fencing), a handoff timer whose process died, and Redis
 * lost and back.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { quietFor, until } from '../helpers/until.js';
import { freezeOutsideWrites, startGroupWorld, type GroupWorld } from './world.js';

let world: GroupWorld;
const widget = (i: number, q: Record<string, string> = {}) => world.widget(i, q);
const live: GroupWorld['live'] = (i, who) => world.live(i, who);
const transcript = (conversationId: string, via?: number) => world.transcript(conversationId, via);

test.before(async () => {
  world = await startGroupWorld({
    botPatch: {
      behavior: { handoff: { enabled: true, acceptTimeoutSec: 15, offlineAction: 'message' } },
      texts: { offline: 'Nobody could take it; we will write back.' },
    },
  });
});

test.after(async () => { await world?.close(); });

test('kill -9 of the owner mid-reply: the visitor reconnects to another process and continues, nothing acknowledged is lost', async () => {
  const visitor = await widget(0);
  const ready = await visitor.frame('ready');
  visitor.send({ t: 'message', text: 'First question' });
  const { conversationId } = await visitor.frame('conversation');
  await visitor.frame('message', (f) => f.message.role === 'assistant');
  world.fake.script({ text: 'a slow answer that never arrives', delayMs: 4000 });
  visitor.send({ t: 'message', text: 'Second question', clientId: 'c2' });
  const acked = await visitor.frame('message', (f) => f.clientId === 'c2');
  const victim = world.group.workers[0];
  process.kill(victim.pid, 'SIGKILL');
  await visitor.next(() => false, 5000).catch(() => {}); // the socket closes with its process

  const again = await widget(1, { visitorToken: ready.visitorToken });
  const resumed = await again.frame('ready');
  assert.is(resumed.conversationId, conversationId, 'the visitor continues the same conversation');
  again.send({ t: 'message', text: 'Are you there?' });
  const reply = await again.next((f) => f.t === 'message' && f.message.role === 'assistant', 15_000);
  // (whichever answer the fake gives next: the scripted slow one, if the killed process never asked for it)

  const t = await world.transcriptInOrder(conversationId);
  const texts = t.messages.map((m: any) => `${m.role}: ${m.text}`);
  assert.ok(t.messages.some((m: any) => m.id === acked.message.id), 'the acknowledged message is stored');
  assert.equal(texts.filter((x: string) => x.startsWith('assistant')), ['assistant: You said: First question', `assistant: ${reply.message.text}`], 'one reply each, none twice');
  await world.group.waitWorker(0, victim.pid); // the supervisor started a new process in its place
});

test('an owner paused past its lease never writes after the new owner took over (fencing)', async () => {
  const visitor = await widget(0);
  const ready = await visitor.frame('ready');
  visitor.send({ t: 'message', text: 'Hello' });
  const { conversationId } = await visitor.frame('conversation');
  await visitor.frame('message', (f) => f.message.role === 'assistant');
  world.fake.script({ text: 'a late answer', delayMs: 2500 });
  visitor.send({ t: 'message', text: 'Second', clientId: 's2' });
  await visitor.frame('message', (f) => f.clientId === 's2');
  const paused = world.group.workers[0].pid;
  await freezeOutsideWrites(world.group, paused);
  try {
    const again = await widget(1, { visitorToken: ready.visitorToken });
    assert.is((await again.frame('ready')).conversationId, conversationId);
    again.send({ t: 'message', text: 'Third' });
    await again.next((f) => f.t === 'message' && f.message.role === 'assistant', 15_000);
  } finally {
    process.kill(paused, 'SIGCONT');
  }
  // Must not happen: the paused process wakes, its reply finishes, and it stores it although it lost the lease.
  await quietFor(4000, 'the woken process storing its late answer');
  const t = await world.transcriptInOrder(conversationId);
  const assistants = t.messages.filter((m: any) => m.role === 'assistant');
  assert.is(assistants.length, 2, `one answer before the pause, one by the new owner: ${JSON.stringify(t.messages.map((m: any) => `${m.seq} ${m.role}: ${m.text}`))}`);
  await until(() => world.group.logs.some((l) => l.msg?.includes('lease lost') || l.err?.code === 'lease_lost' || /owned by another process/.test(l.err?.message ?? '')), { message: 'the woken process noticing it lost the conversation (a log line)' });
});

test('a handoff wait survives the death of the process that armed it', async () => {
  // The agent has the panel open on another process than the visitor's: available all the same.
  const agentLive = await live(1, world.agent);
  await agentLive.event('presence.changed', (d) => d.presence === 'online').catch(() => {});
  world.fake.script([{ toolCalls: [{ name: 'handoff_to_human', arguments: { reason: 'wants a person' } }] }, { text: 'Let me get someone.' }]);
  const visitor = await widget(2);
  const ready = await visitor.frame('ready');
  visitor.send({ t: 'message', text: 'A person please' });
  const { conversationId } = await visitor.frame('conversation');
  const requested = await agentLive.event('handoff.requested', (d) => d.conversationId === conversationId);
  await visitor.frame('handoff', (f) => f.available === true);
  const armedBy = world.group.workers[2].pid;
  process.kill(armedBy, 'SIGKILL');
  const again = await widget(1, { visitorToken: ready.visitorToken });
  await again.frame('ready');
  // Nobody takes it: 15 s after the request the visitor is told, by a process that did not arm the wait.
  const line = await again.next((f) => f.t === 'message' && f.message.role === 'system_event' && /Nobody could take it/.test(f.message.text), 25_000).catch((err: Error) => {
    // What the group logged says why (CI keeps only this message).
    const said = world.group.logs.filter((l) => (l.level ?? 0) >= 40).slice(-15).map((l) => `${l.msg} ${l.err?.message ?? ''}`);
    throw new Error(`${err.message}\nthe group's warnings: ${JSON.stringify(said)}`);
  });
  assert.ok(line);
  const t = await transcript(conversationId, 1); // (process 2 may not have started again yet)
  assert.is(t.messages.filter((m: any) => /Nobody could take it/.test(m.text)).length, 1, 'told once');
  assert.ok(requested.data.handoffId);
  await world.group.waitWorker(2, armedBy);
});

test('Redis lost mid-run: no new conversation, open ones go on, and all recovers when it returns', async () => {
  const keeper = await widget(1);
  await keeper.frame('ready');
  keeper.send({ t: 'message', text: 'before' });
  await keeper.frame('message', (f) => f.message.role === 'assistant'); // (a turn left scripted by a test above, or the echo)
  const from = world.group.logs.length;
  const logged = (pattern: RegExp) => world.group.logs.slice(from).some((l) => l.worker === 1 && pattern.test(l.msg ?? ''));
  await world.redis.stop();
  await until(() => logged(/coordination server \(REDIS_URL\) lost/), { message: 'process 1 noticing Redis lost (a log line)' });
  keeper.send({ t: 'message', text: 'during' });
  await keeper.frame('message', (f) => f.message.role === 'user' && f.message.text === 'during');
  await keeper.frame('message', (f) => f.message.role === 'assistant');
  const newcomer = await world.newcomerRefused(1);
  await world.restartRedis();
  await until(() => logged(/coordination server \(REDIS_URL\) is back/), { timeout: 10_000, message: 'process 1 reconnecting to Redis (a log line)' });
  newcomer.send({ t: 'message', text: 'and now?' });
  await newcomer.next((f) => f.t === 'message' && f.message.role === 'assistant' && f.message.text === 'You said: and now?', 10_000);
  assert.ok(world.group.logs.some((l) => /coordination server \(REDIS_URL\) lost/.test(l.msg ?? '')));
  assert.ok(world.group.logs.some((l) => /coordination server \(REDIS_URL\) is back/.test(l.msg ?? '')));
});

test.run();
