import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startVoiceWorld, startVoice, until } from '../voice/world.js';
import { startChatWorld } from './helpers.js';

test('bad frames get clear error frames and the conversation goes on', async () => {
  const w = await startChatWorld();
  try {
    const v = await w.visitor();
    v.send('not json');
    assert.match((await v.next('error')).message, /not valid JSON/);
    v.send({ t: 'dance' });
    assert.is((await v.next('error')).code, 'bad_request');
    v.send({ t: 'message', text: 42 });
    assert.match((await v.next('error')).message, /^text:/);
    v.send([1, 2]);
    assert.match((await v.next('error')).message, /JSON object/);
    v.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    assert.match((await v.next('error')).message, /binary/);
    v.send({ t: 'feedback', messageId: 'msg_nope', value: 1 });
    assert.is((await v.next('error')).code, 'not_found');
    v.say('still here?');
    const { message } = await v.reply();
    assert.is(message.text, 'You said: still here?');
    v.send({ t: 'ping' });
    await v.next('pong');
    await v.close();
  } finally {
    await w.close();
  }
});

test('an oversize message is refused with invalid and never stored', async () => {
  const w = await startChatWorld({ config: { security: { maxMessageChars: 100 } } });
  try {
    const v = await w.visitor();
    v.say('x'.repeat(101), { clientId: 'big' });
    const err = await v.next('error');
    assert.is(err.code, 'invalid');
    assert.is(err.clientId, 'big');
    assert.match(err.message, /100 characters/);
    v.say('short');
    await v.reply();
    const msgs = await w.server.app.store.collection<any>('messages').find({ workspaceId: w.workspaceId });
    assert.equal(msgs.map((m) => m.text).sort(), ['You said: short', 'short']);
    await v.close();
  } finally {
    await w.close();
  }
});

test('a frame over 96 KB gets a bad_request error frame and the socket stays open', async () => {
  const w = await startChatWorld();
  try {
    const v = await w.visitor();
    let closed = false;
    v.ws.on('close', () => { closed = true; });
    v.say('y'.repeat(200 * 1024), { clientId: 'huge' });
    const err = await v.next('error');
    assert.is(err.code, 'bad_request');
    assert.match(err.message, /at most 98304/);
    v.say('small');
    assert.is((await v.reply()).message.text, 'You said: small');
    assert.not.ok(closed);
    await v.close();
  } finally {
    await w.close();
  }
});

test('a 1 MB audio frame during voice gets a bad_request error frame before the socket is closed (4413); the session ends', async () => {
  const w = await startVoiceWorld();
  try {
    const v = await w.visitor();
    await startVoice(v);
    const closed = new Promise<{ code: number; reason: string }>((r) => v.ws.once('close', (code, reason) => r({ code, reason: String(reason) })));
    // The audio byte, then 1 MiB of PCM: 1,048,577 bytes.
    v.ws.send(Buffer.concat([Buffer.from([0x01]), Buffer.alloc(1024 * 1024)]), { binary: true });
    const { code, reason } = await closed;
    assert.is(code, 4413);
    assert.is(reason, 'frame too large');
    const err = v.frames.find((f) => f.t === 'error');
    assert.ok(err, 'an error frame came before the close');
    assert.is(err.code, 'bad_request');
    assert.match(err.message, /1048577 bytes.*at most 1048576/);
    // The socket's voice session ended with it.
    await until(() => w.server.services.voice.live === 0, { timeout: 5000, message: 'the session to end' });
    const again = await w.visitor({ visitorToken: v.ready.visitorToken });
    assert.is((await startVoice(again)).state, 'listening');
    await again.close();
  } finally {
    await w.close();
  }
});

test('a text frame over 1 MB is answered the same way; up to 1 MB the socket stays open', async () => {
  const w = await startChatWorld();
  try {
    const v = await w.visitor();
    const closed = new Promise<number>((r) => v.ws.once('close', (code) => r(code)));
    v.send('z'.repeat(1024 * 1024 + 10));
    assert.is(await closed, 4413);
    assert.is(v.frames.find((f) => f.t === 'error')?.code, 'bad_request');
  } finally {
    await w.close();
  }
});

test('a flood of messages gets rate_limited past messagesPerMinute, and stored messages stay', async () => {
  const w = await startChatWorld({ config: { security: { rateLimits: { messagesPerMinute: 3 } } } });
  try {
    const v = await w.visitor();
    for (let i = 0; i < 6; i++) v.say(`m${i}`, { clientId: `c${i}` });
    const err = await v.next('error', (f) => f.code === 'rate_limited');
    assert.ok(err.retryAfterMs > 0);
    // Replies keep coming for the accepted messages.
    await v.reply();
    const echoed = v.frames.filter((f) => f.t === 'message' && f.message.role === 'user').map((f) => f.message.text);
    assert.equal(echoed, ['m0', 'm1', 'm2']);
    assert.equal(v.frames.filter((f) => f.t === 'error').map((f) => f.clientId), ['c3', 'c4', 'c5']);
    const stored = await w.server.app.store.collection<any>('messages').find({ workspaceId: w.workspaceId, role: 'user' });
    assert.equal(stored.map((m) => m.text).sort(), ['m0', 'm1', 'm2']);
    await v.close();
  } finally {
    await w.close();
  }
});

test('the turn limit gives session_limit at three times maxTurnsPerConversation messages', async () => {
  const w = await startChatWorld({ config: { security: { maxTurnsPerConversation: 1 } } });
  try {
    const v = await w.visitor();
    v.say('one');
    await v.reply();
    v.say('two');
    await v.next('message', (f) => f.message.text === 'two');
    await v.reply();
    v.say('three');
    const err = await v.next('error');
    assert.is(err.code, 'session_limit');
    await v.close();
  } finally {
    await w.close();
  }
});

test('past the daily message cap the visitor gets a clear line and the model is not called', async () => {
  const w = await startChatWorld({ config: { security: { caps: { dailyMessages: 1 } } } });
  try {
    const v = await w.visitor();
    v.say('first');
    await v.reply();
    const calls = w.fake.requests.length;
    v.say('second');
    const line = await v.next('message', (f) => f.message.role === 'system_event');
    assert.match(line.message.text, /can't answer any more messages today/);
    assert.is(w.fake.requests.length, calls);
    await v.close();
  } finally {
    await w.close();
  }
});

test('past the daily spend cap the bot stops answering', async () => {
  const w = await startChatWorld({ config: { security: { caps: { dailyUsd: 0.5 } } } });
  try {
    const v = await w.visitor();
    w.fake.script({ text: 'pricey', usage: { inputTokens: 1_000_000, outputTokens: 1_000_000 } });
    v.say('first');
    await v.reply();
    v.say('second');
    const line = await v.next('message', (f) => f.message.role === 'system_event');
    assert.match(line.message.text, /today/);
    await v.close();
  } finally {
    await w.close();
  }
});

test('a bot paused during a conversation does not answer', async () => {
  const w = await startChatWorld();
  try {
    const v = await w.visitor();
    v.say('hello');
    await v.reply();
    await w.setBot({ status: 'paused' });
    const calls = w.fake.requests.length;
    v.say('anyone?');
    const line = await v.next('message', (f) => f.message.role === 'system_event');
    assert.match(line.message.text, /paused/);
    assert.is(w.fake.requests.length, calls);
    // A new connection is told so in ready and refuses a message in words (test/widget/paused.test.ts).
    const again = await w.visitor();
    assert.is(again.ready.paused, true);
    again.say('still there?', { clientId: 'c2' });
    const refused = await again.next('error');
    assert.is(refused.code, 'forbidden');
    assert.is(refused.clientId, 'c2');
    assert.is(w.fake.requests.length, calls);
    await again.close();
    await v.close();
  } finally {
    await w.close();
  }
});

test('a failing model gives the visitor a line and the conversation keeps working', async () => {
  const w = await startChatWorld();
  try {
    const v = await w.visitor();
    w.fake.script([{ error: { status: 400, message: 'bad' } }]);
    v.say('hello');
    await v.next('delta_reset');
    const line = await v.next('message', (f) => f.message.role === 'system_event');
    assert.match(line.message.text, /went wrong/);
    v.say('again');
    assert.is((await v.reply()).message.text, 'You said: again');
    await v.close();
  } finally {
    await w.close();
  }
});

test.run();
