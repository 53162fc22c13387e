/**
 * A reply streaming on a process that dies or freezes, to a widget on another process (two processes, a real
 * redis-server): the widget is told at once that the reply was interrupted (`interrupted`, docs/widget-protocol.md)
 * instead of waiting on it for ever; it is never stored, nor withdrawn by a process that wakes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../helpers/until.js';
import { freezeOutsideWrites, startGroupWorld, type GroupWorld } from './world.js';

let world: GroupWorld;
const widget = (i: number, q: Record<string, string> = {}) => world.widget(i, q);
const transcript = (conversationId: string) => world.transcript(conversationId, 1);

test.before(async () => { world = await startGroupWorld({ n: 2 }); });
test.after(async () => { await world?.close(); });

/** A conversation started on process 0 (which owns it), its visitor back through process 1, a long reply streaming. */
async function streamingElsewhere(): Promise<{ visitor: Awaited<ReturnType<typeof widget>>; conversationId: string; messageId: string }> {
  const first = await widget(0);
  const ready = await first.frame('ready');
  first.send({ t: 'message', text: 'Hello' });
  const { conversationId } = await first.frame('conversation');
  await first.frame('message', (f) => f.message.role === 'assistant');
  await first.close();
  const visitor = await widget(1, { visitorToken: ready.visitorToken });
  assert.is((await visitor.frame('ready')).conversationId, conversationId);
  world.fake.script({ text: Array.from({ length: 100 }, (_, i) => `part ${i} `), chunkIntervalMs: 150 });
  visitor.send({ t: 'message', text: 'Tell me a long story' });
  const { messageId } = await visitor.frame('delta');
  return { visitor, conversationId, messageId };
}

test('a reply streaming on a process that dies: the widget on another process is told it was interrupted', async () => {
  const { visitor, conversationId, messageId } = await streamingElsewhere();
  const victim = world.group.workers[0];
  process.kill(victim.pid, 'SIGKILL');
  // The owner's membership lapses within 3 s; the widget's process looks every second.
  const cut = await visitor.frame('interrupted', (f) => f.messageId === messageId).catch(() => null);
  assert.equal(cut, { t: 'interrupted', conversationId, messageId }, 'told within 5 s');
  visitor.send({ t: 'message', text: 'Tell me a long story' });
  await visitor.next((f) => f.t === 'message' && f.message.role === 'assistant', 15_000);
  const t = await transcript(conversationId);
  assert.not.ok(t.messages.some((m: any) => m.id === messageId), 'the cut-off reply was never stored');
  assert.not.ok(visitor.frames.some((f) => f.t === 'delta_reset'), 'its text is not withdrawn');
  await world.group.waitWorker(0, victim.pid);
});

test('a reply streaming on a process that freezes: interrupted, and the process that wakes neither stores nor withdraws it', async () => {
  const { visitor, conversationId, messageId } = await streamingElsewhere();
  const frozen = world.group.workers[0].pid;
  await freezeOutsideWrites(world.group, frozen);
  try {
    const cut = await visitor.frame('interrupted', (f) => f.messageId === messageId).catch(() => null);
    assert.equal(cut, { t: 'interrupted', conversationId, messageId }, 'told within 5 s');
    visitor.send({ t: 'message', text: 'Are you there?' });
    await visitor.next((f) => f.t === 'message' && f.message.role === 'assistant', 15_000);
  } finally {
    process.kill(frozen, 'SIGCONT');
  }
  // The woken process finds its lease taken and stops the reply: cut off, not withdrawn, never stored.
  await until(() => world.group.logs.some((l) => l.conversationId === conversationId && /lease lost/.test(l.msg ?? '')),
    { timeout: 15_000, interval: 100, message: 'the woken process to notice it lost the conversation' });
  assert.not.ok(visitor.frames.some((f) => f.t === 'delta_reset'), 'its text is not withdrawn');
  const t = await transcript(conversationId);
  assert.not.ok(t.messages.some((m: any) => m.id === messageId), 'the cut-off reply was never stored');
});

test.run();
