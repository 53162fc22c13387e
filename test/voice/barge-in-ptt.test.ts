import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { quietFor } from '../helpers/until.js';
import type { ChatWorld, Visitor } from '../chat/helpers.js';
import type { FakeRealtime } from '../fakes/openai-realtime.js';
import { RATES, audioBytes, seen, sendAudio, silence, speak, startVoice, startVoiceWorld, tone, until } from './world.js';

const R = RATES.openai;
const LONG = 'Our store has many products for every season and every budget, from garden tools to kitchen gadgets, and our team is happy to help you choose.';

test('barge-in: the visitor speaks over the agent, playback stops, and the transcript keeps only what was heard', async () => {
  const w = await startVoiceWorld();
  const realtime = (w.fake as unknown as { realtime: FakeRealtime }).realtime;
  try {
    realtime.hear('Tell me about your store', 'Stop, what about prices?');
    w.fake.script([{ text: LONG }, { text: 'Prices start at five euros.' }]);
    realtime.chunkIntervalMs = 60;
    const v = await w.visitor();
    await startVoice(v);
    speak(v, R.input);
    const item = await v.next('voice_item');
    await until(() => audioBytes(v) >= (R.output * 2 * 500) / 1000, { timeout: 5000, message: 'half a second of audio' });
    // The visitor talks over the agent.
    speak(v, R.input, 400);
    const interrupt = await v.next('voice_interrupt');
    assert.is(interrupt.itemId, item.itemId);
    const relayedAtInterrupt = audioBytes(v);
    // The widget had played 300 ms of what it had received when it stopped.
    v.send({ t: 'voice_played', itemId: item.itemId, ms: 300 });
    // The engine's memory is cut at what was played.
    await until(() => realtime.connections[0].truncations.length > 0, { timeout: 5000, message: 'truncate' });
    assert.equal(realtime.connections[0].truncations[0], { itemId: item.itemId, audioEndMs: 300 });
    const cut = await v.next('message', (f) => f.message.id === item.messageId);
    assert.ok(cut.message.text.endsWith('…'), cut.message.text);
    assert.ok(LONG.startsWith(cut.message.text.slice(0, -1)), 'the stored text is the start of what was said');
    assert.ok(cut.message.text.length < LONG.length / 2, `only what was heard: ${cut.message.text}`);
    // No more of the interrupted item reaches the widget.
    assert.ok(audioBytes(v) - relayedAtInterrupt < (R.output * 2) / 5, 'at most one chunk in flight after the interrupt');
    // The visitor's interruption is answered.
    const next = await seen(v, 'voice_item', (f) => f.itemId !== item.itemId);
    await until(() => audioBytes(v) > relayedAtInterrupt, { timeout: 5000, message: 'second reply' });
    v.send({ t: 'voice_played', itemId: next.itemId, ms: 60_000 });
    const second = await seen(v, 'message', (f) => f.message.id === next.messageId);
    assert.is(second.message.text, 'Prices start at five euros.');
    await v.close();
  } finally {
    await w.close();
  }
});

const ASKED = 'Tell me about your store';

/**
 * The visitor asks by voice and the agent's long answer begins (its audio in 60 ms chunks); `body` gets the world,
 * the socket, the answer's voice_item and the conversation. The world closes after.
 */
async function whileAnswering(body: (s: { w: ChatWorld; v: Visitor; item: any; conversationId: string }) => Promise<void>) {
  const w = await startVoiceWorld();
  const realtime = (w.fake as unknown as { realtime: FakeRealtime }).realtime;
  try {
    realtime.hear(ASKED);
    w.fake.script({ text: LONG });
    realtime.chunkIntervalMs = 60;
    const v = await w.visitor();
    await startVoice(v);
    speak(v, R.input);
    const item = await v.next('voice_item');
    await body({ w, v, item, conversationId: v.frames.find((f) => f.t === 'conversation').conversationId });
    await v.close();
  } finally {
    await w.close();
  }
}

const halfSecondRelayed = (v: Visitor) => until(() => audioBytes(v) >= (R.output * 2 * 500) / 1000, { timeout: 5000, message: 'half a second of audio' });

/** The stored answer: the start of what the agent said, cut where it was heard, so under half of it. */
function assertHeardPart(text: string) {
  assert.ok(text.endsWith('…') && LONG.startsWith(text.slice(0, -1)), text);
  assert.ok(text.length < LONG.length / 2, `only what was heard: ${text}`);
}

/** The visitor's voice turns and the agent's, as stored: [role, text]. */
async function storedVoiceTurns(w: ChatWorld, conversationId: string): Promise<Array<[string, string]>> {
  const r = await w.server.request('GET', `/api/v1/conversations/${conversationId}`, { headers: w.owner.headers });
  return r.body.messages.filter((m: any) => m.modality === 'voice').map((m: any) => [m.role, m.text]);
}

test('ending voice in the middle of a reply stores only what the widget played before voice_stop', () => whileAnswering(async ({ w, v, item, conversationId }) => {
  await halfSecondRelayed(v);
  // The visitor presses end: the widget stops playback, reports what it played, then ends voice.
  v.send({ t: 'voice_played', itemId: item.itemId, ms: 300 });
  v.send({ t: 'voice_stop' });
  const cut = await seen(v, 'message', (f) => f.message.id === item.messageId);
  assertHeardPart(cut.message.text);
  assert.is((await seen(v, 'voice', (f) => f.state === 'ended')).reason, 'visitor');
  assert.equal(await storedVoiceTurns(w, conversationId), [['user', ASKED], ['assistant', cut.message.text]]);
}));

test('ending voice before any of the reply was played stores none of it, and its captions are withdrawn', () => whileAnswering(async ({ w, v, item, conversationId }) => {
  // The reply's first words and audio reach the widget after the visitor pressed end: it played none of them.
  await seen(v, 'delta', (f) => f.messageId === item.messageId);
  v.send({ t: 'voice_stop' });
  await seen(v, 'delta_reset', (f) => f.messageId === item.messageId);
  await seen(v, 'voice', (f) => f.state === 'ended');
  await quietFor(300, 'the unheard reply stored');
  assert.not.ok(v.frames.some((f) => f.t === 'message' && f.message.role === 'assistant'), 'no agent turn');
  assert.equal(await storedVoiceTurns(w, conversationId), [['user', ASKED]]);
}));

test('voice ended by the server in the middle of a reply (a team member takes over) stores what had been playing until then', () => whileAnswering(async ({ w, v, item, conversationId }) => {
  await halfSecondRelayed(v);
  assert.is((await w.server.request('POST', `/api/v1/conversations/${conversationId}/takeover`, { headers: w.owner.headers })).status, 200);
  await seen(v, 'voice', (f) => f.state === 'ended');
  // The widget stops playing when it hears the session ended: what was heard is what had played since the audio began.
  assertHeardPart((await seen(v, 'message', (f) => f.message.id === item.messageId)).message.text);
}));

test('with voice.bargeIn off the agent finishes its reply while the visitor speaks', async () => {
  const w = await startVoiceWorld({ voice: { bargeIn: false } });
  const realtime = (w.fake as unknown as { realtime: FakeRealtime }).realtime;
  try {
    w.fake.script([{ text: 'A short answer that is not interrupted.' }]);
    realtime.chunkIntervalMs = 40;
    const v = await w.visitor();
    await startVoice(v);
    assert.is(realtime.connections[0].session.audio.input.turn_detection.interrupt_response, false);
    speak(v, R.input);
    const item = await v.next('voice_item');
    await until(() => audioBytes(v) > 0, { timeout: 5000, message: 'audio' });
    speak(v, R.input, 300);
    await quietFor(300, 'an interrupt frame'); // must not come: this bot's replies are not interrupted by speech
    assert.not.ok(v.frames.some((f) => f.t === 'voice_interrupt'), 'no interrupt frame');
    v.send({ t: 'voice_played', itemId: item.itemId, ms: 60_000 });
    const reply = await v.next('message', (f) => f.message.id === item.messageId);
    assert.is(reply.message.text, 'A short answer that is not interrupted.');
    await v.close();
  } finally {
    await w.close();
  }
});

test('push-to-talk: only audio while the button is held is heard, release commits the turn, press interrupts the agent', async () => {
  const w = await startVoiceWorld();
  const realtime = (w.fake as unknown as { realtime: FakeRealtime }).realtime;
  try {
    realtime.hear('Hello there', 'Wait');
    w.fake.script([{ text: LONG }, { text: 'Yes?' }]);
    const v = await w.visitor();
    const started = await startVoice(v, 'ptt');
    assert.is(started.mode, 'ptt');
    assert.is(realtime.connections[0].session.audio.input.turn_detection, null, 'no turn detection in push-to-talk');
    // Audio before the press is dropped.
    sendAudio(v, tone(200, R.input), R.input);
    await quietFor(100, 'audio sent before the press reaching the engine');
    assert.is(realtime.sent('input_audio_buffer.append').length, 0);
    v.send({ t: 'voice_ptt', down: true });
    sendAudio(v, Buffer.concat([tone(400, R.input), silence(100, R.input)]), R.input);
    await until(() => realtime.sent('input_audio_buffer.append').length > 0, { timeout: 5000, message: 'appends' });
    v.send({ t: 'voice_ptt', down: false });
    await until(() => realtime.sent('input_audio_buffer.commit').length === 1, { timeout: 5000, message: 'commit' });
    realtime.chunkIntervalMs = 60;
    const item = await v.next('voice_item');
    await until(() => v.frames.some((f) => f.t === 'message' && f.message.role === 'user'), { timeout: 5000, message: 'user turn' });
    assert.is(v.frames.find((f) => f.t === 'message' && f.message.role === 'user').message.text, 'Hello there');
    await until(() => audioBytes(v) > 0, { timeout: 5000, message: 'audio' });
    // Pressing again interrupts the agent at once.
    v.send({ t: 'voice_ptt', down: true });
    const interrupt = await v.next('voice_interrupt');
    assert.is(interrupt.itemId, item.itemId);
    v.send({ t: 'voice_played', itemId: item.itemId, ms: 200 });
    assert.ok(realtime.sent('input_audio_buffer.clear').length >= 1, 'the buffer is cleared on press');
    await v.close();
  } finally {
    await w.close();
  }
});

test('push-to-talk is refused when voice.pushToTalk is off, and forced when it is only', async () => {
  const off = await startVoiceWorld({ voice: { pushToTalk: 'off' } });
  try {
    const v = await off.visitor();
    v.send({ t: 'voice_start', mode: 'ptt' });
    const err = await v.next('error');
    assert.is(err.code, 'invalid');
    assert.match(err.message, /voice.pushToTalk/);
    await v.close();
  } finally { await off.close(); }
  const only = await startVoiceWorld({ voice: { pushToTalk: 'only' } });
  try {
    const v = await only.visitor();
    const started = await startVoice(v);
    assert.is(started.mode, 'ptt');
    await v.close();
  } finally { await only.close(); }
});

test.run();
