import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { quietFor } from '../helpers/until.js';
import type { FakeRealtime } from '../fakes/openai-realtime.js';
import { RATES, audioBytes, seen, speak, startVoice, startVoiceWorld, until } from './world.js';

const R = RATES.openai;

test('a whole spoken turn: the visitor is heard, the agent answers in audio with captions, both turns are stored as voice', async () => {
  const w = await startVoiceWorld({ config: { identity: { agentName: 'Ava' } } });
  const realtime = (w.fake as unknown as { realtime: FakeRealtime }).realtime;
  try {
    realtime.hear('What are your opening hours?');
    w.fake.script({ text: 'We are open from nine to five, Monday to Friday.' });
    const v = await w.visitor();
    const started = await startVoice(v);
    assert.is(started.state, 'listening');
    assert.is(started.inputRate, R.input);
    assert.is(started.outputRate, R.output);
    assert.is(started.mode, 'hands_free');

    speak(v, R.input);
    // The agent may start answering before the visitor's words are transcribed: both arrive, in either order.
    const item = await v.next('voice_item');
    const user = await until(() => v.frames.some((f) => f.t === 'message' && f.message.role === 'user'), { timeout: 5000, message: 'user turn' })
      .then(() => v.frames.find((f) => f.t === 'message' && f.message.role === 'user'));
    assert.is(user.message.text, 'What are your opening hours?');
    assert.is(user.message.modality, 'voice');
    await until(() => v.frames.some((f) => f.t === 'voice' && f.state === 'speaking'), { timeout: 5000, message: 'speaking' });
    // The engine finishes the reply; every byte of its audio reaches the widget as binary frames (0x01 + PCM16).
    await until(() => w.fake.usages.length === 1, { timeout: 5000, message: 'reply generated' });
    const sentMs = realtime.connections[0].items.find((i) => i.role === 'assistant')!.audioMs;
    assert.ok(sentMs > 1000);
    await until(() => Math.abs((audioBytes(v) / 2 / R.output) * 1000 - sentMs) < 1, { timeout: 5000, message: 'all audio relayed' });
    assert.ok(v.audio.every((b) => b[0] === 0x01), 'audio frames start with 0x01');
    // The server says the item's audio is complete (while still speaking), so the widget can finish and report it.
    const done = await seen(v, 'voice_item_done', (f) => f.itemId === item.itemId);
    assert.ok(!v.frames.slice(v.frames.indexOf(done)).some((f) => f.t === 'message' && f.message.role === 'assistant'), 'not stored before it is played');
    // The widget reports the reply played to its end: the turn is stored, and the session listens again.
    v.send({ t: 'voice_played', itemId: item.itemId, ms: sentMs });
    const reply = await v.reply();
    await seen(v, 'voice', (f) => f.state === 'listening' && v.frames.indexOf(f) > v.frames.indexOf(item));
    assert.is(reply.message.text, 'We are open from nine to five, Monday to Friday.');
    assert.is(reply.message.modality, 'voice');
    assert.is(reply.message.id, item.messageId);
    assert.is(reply.deltas.join(''), 'We are open from nine to five, Monday to Friday.');

    // The transcript through the REST API: the visitor's turn first, then the agent's.
    const conversationId = user.conversationId;
    const list = await w.server.request('GET', `/api/v1/conversations/${conversationId}`, { headers: w.owner.headers });
    assert.is(list.status, 200);
    const voiceTurns = list.body.messages.filter((m: any) => m.modality === 'voice').map((m: any) => [m.role, m.text]);
    assert.equal(voiceTurns, [['user', 'What are your opening hours?'], ['assistant', 'We are open from nine to five, Monday to Friday.']]);

    // The engine was configured from the bot: its prompt, realtime voice defaults, input transcription, the spoken cap.
    const session = realtime.connections[0].session;
    assert.match(session.instructions, /You are Ava/);
    assert.match(session.instructions, /spoken aloud/);
    assert.is(session.max_output_tokens, 2048);
    assert.is(session.audio.input.turn_detection.type, 'semantic_vad');
    assert.ok(session.audio.input.transcription, 'input transcription is on');

    v.send({ t: 'voice_stop' });
    const ended = await v.next('voice', (f) => f.state === 'ended');
    assert.is(ended.reason, 'visitor');
    await until(() => !realtime.connections[0].open, { timeout: 5000, message: 'engine socket closed' });

    // The chat goes on in text with the same history.
    w.fake.script({ text: 'Anything else?' });
    v.say('Thanks');
    const text = await v.reply();
    assert.is(text.message.modality, 'text');
    const body = w.fake.lastBody('/chat/completions');
    assert.ok(JSON.stringify(body.messages).includes('What are your opening hours?'), 'the text reply sees the spoken turns');
    await v.close();
  } finally {
    await w.close();
  }
});

test('the agent speaks until the widget has played its reply; the reply is stored then', async () => {
  const w = await startVoiceWorld();
  try {
    w.fake.script({ text: 'A reply played to its end.' });
    const v = await w.visitor();
    await startVoice(v);
    speak(v, R.input);
    const item = await v.next('voice_item');
    await until(() => w.fake.usages.length === 1, { timeout: 5000, message: 'reply generated' });
    await quietFor(100, 'the reply marked heard or stored before the widget played it');
    assert.is([...v.frames].reverse().find((f) => f.t === 'voice').state, 'speaking', 'still speaking while the widget plays');
    assert.not.ok(v.frames.some((f) => f.t === 'message' && f.message.role === 'assistant'), 'not stored before it is heard');
    v.send({ t: 'voice_played', itemId: item.itemId, ms: 1600 });
    const reply = await v.reply();
    assert.is(reply.message.text, 'A reply played to its end.');
    await seen(v, 'voice', (f) => f.state === 'listening' && v.frames.indexOf(f) > v.frames.indexOf(item));
    // A report for an item this session does not know is an error.
    v.send({ t: 'voice_played', itemId: 'item_unknown', ms: 10 });
    const err = await v.next('error');
    assert.is(err.code, 'not_found');
    assert.match(err.message, /no item item_unknown/);
    await v.close();
  } finally {
    await w.close();
  }
});

test('typed text during a voice session is answered by the engine, in voice', async () => {
  const w = await startVoiceWorld();
  const realtime = (w.fake as unknown as { realtime: FakeRealtime }).realtime;
  try {
    w.fake.script({ text: 'Sure, I can help with that.' });
    const v = await w.visitor();
    await startVoice(v);
    v.say('Can you help me?');
    const item = await v.next('voice_item');
    await until(() => realtime.sent('conversation.item.create').some((e) => JSON.stringify(e.event).includes('Can you help me?')), { timeout: 5000, message: 'text to engine' });
    await until(() => audioBytes(v) > 0, { timeout: 5000, message: 'audio' });
    v.send({ t: 'voice_played', itemId: item.itemId, ms: 60_000 });
    const reply = await v.reply();
    assert.is(reply.message.modality, 'voice');
    assert.is(reply.message.text, 'Sure, I can help with that.');
    assert.equal(w.fake.requests.filter((r) => r.path.includes('/chat/completions')).length, 0, 'no text reply was asked for');
    await v.close();
  } finally {
    await w.close();
  }
});

test('speakGreeting: a conversation that starts with voice begins with the agent saying hello', async () => {
  const w = await startVoiceWorld({ config: { welcome: { speakGreeting: true } } });
  const realtime = (w.fake as unknown as { realtime: FakeRealtime }).realtime;
  try {
    w.fake.script({ text: 'Hello! How can I help you today?' });
    const v = await w.visitor();
    await startVoice(v);
    const item = await v.next('voice_item');
    assert.ok(realtime.sent('response.create').length >= 1);
    await until(() => audioBytes(v) > 0, { timeout: 5000, message: 'audio' });
    v.send({ t: 'voice_played', itemId: item.itemId, ms: 60_000 });
    const reply = await v.reply();
    assert.is(reply.message.text, 'Hello! How can I help you today?');
    await v.close();
  } finally {
    await w.close();
  }
});

test.run();
