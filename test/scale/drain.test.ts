/**
 * A graceful restart in a scale-out group (two processes, a real redis-server): a worker stopped with SIGTERM
 * (SHUTDOWN_DELAY_MS, then its sockets close and its actors drain) hands its conversations over. Visitors whose
 * conversations it owned, chatting through the other process, get every answer during the whole drain and after
 * it (from the new owner), never "Sorry, something went wrong"; a reply streaming when the drain began is
 * finished and stored.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { quietFor } from '../helpers/until.js';
import type { FrameClient } from '../team/helpers.js';
import { startGroupWorld, type GroupWorld } from './world.js';

let world: GroupWorld;
test.before(async () => { world = await startGroupWorld({ n: 2, env: { SHUTDOWN_DELAY_MS: '1500' }, botPatch: { security: { rateLimits: { messagesPerMinute: 200 } } } }); });
test.after(async () => { await world?.close(); });

const assistant = (text: string) => (f: any) => f.t === 'message' && f.message.role === 'assistant' && f.message.text === text;

test('SIGTERM to the owner: every message sent during its drain and after is answered by the new owner', async () => {
  // Four conversations started on process 0 (it owns them), then their visitors come back through process 1.
  const visitors: Array<{ socket: FrameClient; conversationId: string }> = [];
  for (let k = 0; k < 4; k++) {
    const first = await world.widget(0);
    const ready = await first.frame('ready');
    first.send({ t: 'message', text: `hello ${k}` });
    const { conversationId } = await first.frame('conversation');
    await first.next(assistant(`You said: hello ${k}`), 15_000);
    await first.close();
    const socket = await world.widget(1, { visitorToken: ready.visitorToken });
    assert.is((await socket.frame('ready')).conversationId, conversationId);
    visitors.push({ socket, conversationId });
  }
  // A reply streams on the owner when it is told to stop.
  world.fake.script({ text: ['one ', 'two ', 'three ', 'four'], chunkIntervalMs: 300 });
  visitors[0].socket.send({ t: 'message', text: 'stream please' });
  await visitors[0].socket.frame('delta');

  const old = world.group.workers[0];
  process.kill(old.pid, 'SIGTERM');
  const streamed = await visitors[0].socket.next(assistant('one two three four'), 15_000);

  // Rounds of messages from every visitor until a new process 0 has started, and one more after.
  let round = 0;
  let restarted = false;
  const started = Date.now();
  while (!restarted || round < 2) {
    restarted = world.group.workers[0].pid !== old.pid;
    await Promise.all(visitors.map(async ({ socket }, k) => {
      socket.send({ t: 'message', text: `round ${round} from ${k}` });
      await socket.next(assistant(`You said: round ${round} from ${k}`), 15_000);
    }));
    round++;
    await quietFor(300, 'the visitors reading before they write again');
    if (Date.now() - started > 60_000) throw new Error('process 0 was not restarted within 60 s');
  }
  assert.ok(round >= 3, `messages were sent during the drain (${round} rounds)`);
  for (const { socket, conversationId } of visitors) {
    assert.not.ok(socket.frames.some((f) => f.t === 'error'), `no error frame: ${JSON.stringify(socket.frames.filter((f) => f.t === 'error'))}`);
    const t = await world.transcriptInOrder(conversationId);
    const failed = t.messages.filter((m: any) => m.role === 'system_event');
    assert.equal(failed.map((m: any) => m.text), [], 'no "something went wrong"');
    assert.is(t.messages.filter((m: any) => m.role === 'user').length, t.messages.filter((m: any) => m.role === 'assistant').length, 'every question answered once');
  }
  const first = await world.transcript(visitors[0].conversationId);
  assert.ok(first.messages.some((m: any) => m.id === streamed.message.id), 'the reply streaming at the stop is stored');
  assert.ok(world.group.logs.some((l) => l.msg === 'conversation handed over to another process' && l.why === 'this process is stopping'), 'the drain handed conversations over');
});

test.run();
