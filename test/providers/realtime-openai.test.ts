import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { quietFor } from '../helpers/until.js';
import { ApiError } from '../../src/kernel/errors.js';
import { OpenAiRealtimeEngine, type OpenAiRealtimeOptions } from '../../src/providers/realtime-openai.js';
import type { ProviderConnection } from '../../src/providers/types.js';
import type { VoiceEngineEvent, VoiceSessionSpec } from '../../src/providers/voice-engine.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import { pcmMs, silencePcm, speechPcm } from '../fakes/realtime-audio.js';
import { rejection } from './helpers.js';

let fake: FakeOpenAI;
test.before(async () => { fake = await startFakeOpenAI(); });
test.after(() => fake.close());
test.before.each(() => { fake.realtime.chunkIntervalMs = 5; fake.realtime.answerSessionUpdate = true; });

const ORDER_TOOL = { name: 'lookup_order', description: 'Finds an order by its number.', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } };

const specOf = (over: Partial<VoiceSessionSpec> = {}): VoiceSessionSpec => ({
  model: '', voice: '', instructions: 'You are Ada, the shop\'s guide.', tools: [], language: null,
  turnDetection: { type: 'semantic_vad', eagerness: 'auto' }, bargeIn: true, maxOutputTokens: 2048, history: [], ...over,
});

type Of<T extends VoiceEngineEvent['type']> = Extract<VoiceEngineEvent, { type: T }>;

/** An engine on the fake, every event it emits, and `until` to wait for the nth event of a type. */
function engineOn(spec: Partial<VoiceSessionSpec> = {}, conn: Partial<ProviderConnection> = {}, opts: OpenAiRealtimeOptions = { allowPrivateNetwork: true }) {
  const events: VoiceEngineEvent[] = [];
  let wake = () => {};
  let react: (e: VoiceEngineEvent) => void = () => {};
  const engine = new OpenAiRealtimeEngine(
    { id: 'conn_b', kind: 'openai', apiKey: fake.apiKey, baseUrl: fake.baseUrl, ...conn }, specOf(spec),
    (e) => { events.push(e); react(e); wake(); }, opts,
  );
  const all = <T extends VoiceEngineEvent['type']>(type: T) => events.filter((e): e is Of<T> => e.type === type);
  const until = <T extends VoiceEngineEvent['type']>(type: T, nth = 1): Promise<Of<T>> => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} #${nth} within 5 s; events: ${events.map((e) => e.type).join(', ')}`)), 5_000);
    const check = () => {
      const found = all(type);
      if (found.length < nth) return;
      clearTimeout(timer);
      resolve(found[nth - 1]);
    };
    const prev = wake;
    wake = () => { prev(); check(); };
    check();
  });
  /** Acts inside the listener, as the relay would, before the engine reads the provider's next event. */
  const on = (fn: (e: VoiceEngineEvent) => void) => { react = fn; };
  return { engine, events, all, until, on, connection: () => fake.realtime.connections.length - 1 };
}

/** Visitor audio in 20 ms frames, as the widget sends it. */
function say(engine: OpenAiRealtimeEngine, pcm: Buffer): void {
  for (let off = 0; off < pcm.length; off += 960) engine.appendAudio(pcm.subarray(off, off + 960));
}

const wire = (connection: number) => fake.realtime.types(connection).filter((t) => t !== 'input_audio_buffer.append');
const sentOn = (connection: number, type: string) => fake.realtime.events.filter((e) => e.connection === connection && e.type === type);

test('the session is set up from the spec: voice, semantic turn detection, language, tools, the 2048 cap and the history', async () => {
  const s = engineOn({
    voice: 'cedar', language: 'de-DE', tools: [ORDER_TOOL], turnDetection: { type: 'semantic_vad', eagerness: 'low' },
    history: [{ role: 'user', text: 'Hallo' }, { role: 'assistant', text: 'Hallo! Wie kann ich helfen?' }],
  });
  await s.engine.connect();
  assert.equal(s.events, [{ type: 'ready' }]);
  const rec = fake.realtime.connections[s.connection()];
  assert.is(rec.model, 'gpt-realtime');
  const update = sentOn(s.connection(), 'session.update')[0].event.session;
  assert.equal(update, {
    type: 'realtime',
    output_modalities: ['audio'],
    instructions: 'You are Ada, the shop\'s guide.',
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: 24000 },
        transcription: { model: 'gpt-4o-mini-transcribe', language: 'de' },
        turn_detection: { type: 'semantic_vad', eagerness: 'low', create_response: true, interrupt_response: true },
      },
      output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'cedar' },
    },
    tools: [{ type: 'function', ...ORDER_TOOL }],
    tool_choice: 'auto',
    max_output_tokens: 2048,
  });
  assert.is(rec.session.audio.output.voice, 'cedar');
  assert.equal(wire(s.connection()), ['session.update', 'conversation.item.create', 'conversation.item.create']);
  assert.equal(rec.items.map((i) => [i.role, i.text]), [['user', 'Hallo'], ['assistant', 'Hallo! Wie kann ich helfen?']]);
  s.engine.close();
});

test('empty model and voice take gpt-realtime and marin; server_vad, barge-in off and push-to-talk map to the API', async () => {
  const cases: Array<[Partial<VoiceSessionSpec>, unknown]> = [
    [{ turnDetection: { type: 'server_vad', eagerness: 'auto' } }, { type: 'server_vad', create_response: true, interrupt_response: true }],
    [{ bargeIn: false }, { type: 'semantic_vad', eagerness: 'auto', create_response: true, interrupt_response: false }],
    [{ turnDetection: null }, null],
  ];
  for (const [over, expected] of cases) {
    const s = engineOn(over);
    await s.engine.connect();
    const rec = fake.realtime.connections[s.connection()];
    assert.is(rec.model, 'gpt-realtime');
    assert.is(rec.session.audio.output.voice, 'marin');
    assert.equal(rec.session.audio.input.turn_detection, expected);
    assert.equal(rec.session.audio.input.transcription, { model: 'gpt-4o-mini-transcribe' });
    s.engine.close();
  }
});

test('a spoken turn: speech then silence gives the speech events, the visitor\'s words, and the agent\'s audio, transcript and usage', async () => {
  const s = engineOn();
  await s.engine.connect();
  fake.realtime.hear('When do you open?');
  fake.script({ text: 'We open at nine.' });
  say(s.engine, speechPcm(600));
  say(s.engine, silencePcm(500));
  const done = await s.until('response_done');

  const flow = s.events.map((e) => e.type).filter((t) => t !== 'audio' && t !== 'transcript_delta');
  assert.equal(flow, ['ready', 'speech_started', 'speech_stopped', 'user_turn', 'user_transcript', 'agent_item', 'agent_item_done', 'response_done']);
  const turn = s.all('user_turn')[0];
  assert.equal(s.all('user_transcript')[0], { type: 'user_transcript', itemId: turn.itemId, text: 'When do you open?' });
  const item = s.all('agent_item')[0].itemId;
  const audio = s.all('audio');
  assert.ok(audio.length >= 9 && audio.every((a) => a.itemId === item));
  // ~60 ms a character: 16 characters are 960 ms of 24 kHz PCM16.
  assert.is(pcmMs(audio.reduce((n, a) => n + a.pcm.length, 0)), 960);
  assert.is(s.all('transcript_delta').map((d) => d.delta).join(''), 'We open at nine.');
  assert.equal(s.all('agent_item_done')[0], { type: 'agent_item_done', itemId: item, text: 'We open at nine.' });
  assert.is(done.status, 'completed');
  assert.is(done.usage.outputAudioTokens, 10);
  assert.is(done.usage.inputAudioTokens, 6);
  assert.is(done.usage.outputTextTokens, 4);
  assert.ok(done.usage.inputTextTokens > 0);
  const appended = sentOn(s.connection(), 'input_audio_buffer.append')[0];
  assert.is(appended.appends, 55);
  assert.is(appended.bytes, speechPcm(600).length + silencePcm(500).length);
  s.engine.close();
});

test('a tool call goes out once, and the agent continues with its result after the reply that asked for it', async () => {
  const s = engineOn({ tools: [ORDER_TOOL] });
  await s.engine.connect();
  fake.script([{ toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: { id: 'A17' } }] }, { text: 'Your order ships today.' }]);
  // Answered at once, inside the event: the engine still waits for the asking reply's response.done.
  const onCall = s.until('tool_call').then((call) => s.engine.sendToolResult(call.callId, '{"status":"shipped"}'));
  s.engine.sendText('Where is my order A17?');
  await onCall;
  await s.until('response_done', 2);
  assert.equal(s.all('tool_call'), [{ type: 'tool_call', callId: 'call_1', name: 'lookup_order', arguments: '{"id":"A17"}' }]);
  assert.equal(wire(s.connection()).slice(1), ['conversation.item.create', 'response.create', 'conversation.item.create', 'response.create']);
  const output = sentOn(s.connection(), 'conversation.item.create')[1].event.item;
  assert.equal(output, { type: 'function_call_output', call_id: 'call_1', output: '{"status":"shipped"}' });
  assert.is(s.all('agent_item_done')[0].text, 'Your order ships today.');
  assert.equal(s.all('response_done').map((d) => d.status), ['completed', 'completed']);
  s.engine.close();
});

test('a reply asking for two tools continues only once both are answered', async () => {
  const s = engineOn({ tools: [ORDER_TOOL] });
  await s.engine.connect();
  fake.script([{ toolCalls: [{ id: 'call_a', name: 'lookup_order', arguments: { id: '1' } }, { id: 'call_b', name: 'lookup_order', arguments: { id: '2' } }] }, { text: 'Both found.' }]);
  s.engine.sendText('Orders 1 and 2?');
  await s.until('response_done');
  s.engine.sendToolResult('call_a', 'found');
  await quietFor(50, 'a response.create before the second tool result'); // must not go out: one result is missing
  assert.is(sentOn(s.connection(), 'response.create').length, 1);
  s.engine.sendToolResult('call_b', 'found');
  await s.until('response_done', 2);
  assert.is(sentOn(s.connection(), 'response.create').length, 2);
  assert.is(s.all('agent_item_done')[0].text, 'Both found.');
  s.engine.close();
});

test('push-to-talk: the audio becomes the visitor\'s turn only on release, and a tap without audio sends nothing', async () => {
  const s = engineOn({ turnDetection: null });
  await s.engine.connect();
  s.engine.startTurn();
  s.engine.commitTurn();
  assert.equal(s.all('error').map((e) => e.fatal), [false]);
  assert.match(s.all('error')[0].message, /less than 100 ms/);

  fake.realtime.hear('Book a table for two');
  fake.script({ text: 'Done.' });
  s.engine.startTurn();
  say(s.engine, speechPcm(500));
  say(s.engine, silencePcm(500));
  await quietFor(50, 'speech detected while the button is held'); // must not happen: push-to-talk commits by hand
  assert.is(s.all('speech_started').length, 0);
  assert.is(s.all('user_turn').length, 0);
  s.engine.commitTurn();
  await s.until('response_done');
  assert.is(s.all('user_transcript')[0].text, 'Book a table for two');
  assert.equal(wire(s.connection()), ['session.update', 'input_audio_buffer.clear', 'input_audio_buffer.clear', 'input_audio_buffer.commit', 'response.create']);
  s.engine.close();
});

test('words the transcriber could not make out arrive as an empty transcript', async () => {
  const s = engineOn({ turnDetection: null });
  await s.engine.connect();
  fake.realtime.hear(null);
  say(s.engine, speechPcm(300));
  s.engine.commitTurn();
  const heard = await s.until('user_transcript');
  assert.equal(heard, { type: 'user_transcript', itemId: s.all('user_turn')[0].itemId, text: '' });
  await s.until('response_done');
  s.engine.close();
});

test('interrupt cancels the reply being spoken and cuts its item at the milliseconds played', async () => {
  const s = engineOn();
  await s.engine.connect();
  fake.realtime.chunkIntervalMs = 40;
  fake.script({ text: 'Welcome to the shop! Let me tell you about everything we have on offer this week, starting with shoes.' });
  s.engine.respond('Greet the visitor.');
  await s.until('audio', 3);
  const item = s.all('agent_item')[0].itemId;
  s.engine.interrupt(item, 150);
  const done = await s.until('response_done');
  assert.is(done.status, 'cancelled');
  assert.equal(wire(s.connection()), ['session.update', 'response.create', 'response.cancel', 'conversation.item.truncate']);
  assert.is(sentOn(s.connection(), 'response.create')[0].event.response.instructions, 'You are Ada, the shop\'s guide.\n\nGreet the visitor.');
  assert.equal(sentOn(s.connection(), 'conversation.item.truncate')[0].event, { type: 'conversation.item.truncate', item_id: item, content_index: 0, audio_end_ms: 150 });
  assert.equal(fake.realtime.connections[s.connection()].truncations, [{ itemId: item, audioEndMs: 150 }]);
  // The item ends with what was generated so far, not the whole scripted reply.
  const said = s.all('agent_item_done')[0].text;
  assert.ok(said.length > 0 && said.length < 40, said);
  assert.is(s.all('error').length, 0);
  s.engine.close();
});

test('the visitor speaking over the agent stops its reply (barge-in), then their turn is answered', async () => {
  const s = engineOn();
  await s.engine.connect();
  fake.realtime.chunkIntervalMs = 40;
  fake.script([{ text: 'Once upon a time there was a very long story that went on and on and on.' }, { text: 'Sure.' }]);
  s.engine.sendText('Tell me a story');
  await s.until('audio', 2);
  const item = s.all('agent_item')[0].itemId;
  // The relay stops playback at once and reports more than it was sent: the cut stays inside the audio received.
  s.on((e) => { if (e.type === 'speech_started') s.engine.interrupt(item, 60_000); });
  say(s.engine, speechPcm(300));
  assert.is((await s.until('response_done')).status, 'cancelled');
  say(s.engine, silencePcm(450));
  assert.is((await s.until('response_done', 2)).status, 'completed');
  assert.is(s.all('agent_item_done')[1].text, 'Sure.');
  const received = pcmMs(s.all('audio').filter((a) => a.itemId === item).reduce((n, a) => n + a.pcm.length, 0));
  assert.equal(fake.realtime.connections[s.connection()].truncations, [{ itemId: item, audioEndMs: received }]);
  // The server had already stopped the reply; its answer to the late cancel is not an error for the relay.
  assert.equal(wire(s.connection()), ['session.update', 'conversation.item.create', 'response.create', 'response.cancel', 'conversation.item.truncate']);
  assert.is(s.all('error').length, 0);
  s.engine.close();
});

test('a scripted provider error is a non-fatal error, the reply ends failed, and the session goes on', async () => {
  const s = engineOn();
  await s.engine.connect();
  fake.script([{ error: { status: 400, message: 'The reply could not be generated.' } }, { text: 'Fine now.' }]);
  s.engine.sendText('Hello?');
  assert.is((await s.until('response_done')).status, 'failed');
  assert.equal(s.all('error'), [{ type: 'error', message: 'OpenAI Realtime: The reply could not be generated.', fatal: false }]);
  s.engine.sendText('Again?');
  assert.is((await s.until('response_done', 2)).status, 'completed');
  s.engine.close();
});

test('the provider closing mid-reply ends the session with closed and the close code, and nothing after it', async () => {
  const s = engineOn();
  await s.engine.connect();
  fake.script({ text: 'This reply will never finish because the server fails.', error: { status: 500, message: 'server had an error' } });
  s.engine.sendText('Hello?');
  const closed = await s.until('closed');
  assert.match(closed.reason, /OpenAI Realtime closed the connection \(1011: server had an error\)/);
  assert.ok(s.all('audio').length > 0);
  assert.is(s.events.at(-1)!.type, 'closed');
  s.engine.sendText('anyone?');
  s.engine.close();
  await quietFor(20, 'an event after closed'); // must not come: the engine is closed
  assert.is(s.events.at(-1)!.type, 'closed');
  assert.is(s.all('closed').length, 1);
});

test('close is idempotent and gives one closed event; later calls do nothing', async () => {
  const s = engineOn();
  await s.engine.connect();
  s.engine.close();
  s.engine.close();
  assert.equal(await s.until('closed'), { type: 'closed', reason: 'closed' });
  s.engine.appendAudio(speechPcm(20));
  s.engine.sendText('late');
  await quietFor(20, 'a second closed event'); // must not come: closing twice closes once
  assert.is(s.all('closed').length, 1);
  assert.is(fake.realtime.connections[s.connection()].open, false);
  assert.instance(await rejection(s.engine.connect()), ApiError);
});

test('a wrong key is refused at connect with a message naming the key, never showing it', async () => {
  const s = engineOn({}, { apiKey: 'sk-wrong-secret' });
  const err = await rejection(s.engine.connect());
  assert.instance(err, ApiError);
  assert.is(err.code, 'invalid');
  assert.match(err.message, /^apiKey: OpenAI Realtime refused this key \(401: Incorrect API key provided/);
  assert.not.match(err.message, /sk-wrong/);
  assert.equal(s.events, []);
});

test('a model that is not a realtime model is refused with a message naming the setting', async () => {
  const err = await rejection(engineOn({ model: 'gpt-4.1-mini' }).engine.connect());
  assert.is(err.code, 'invalid');
  assert.match(err.message, /^voice\.realtime: OpenAI Realtime refused the voice session \(The model 'gpt-4\.1-mini' does not exist/);
});

test('a private base URL is refused unless private addresses are allowed, naming the setting', async () => {
  const before = fake.realtime.connections.length;
  const port = new URL(fake.url).port;
  for (const baseUrl of [fake.baseUrl, `http://localhost:${port}/v1`]) {
    const err = await rejection(engineOn({}, { baseUrl }, { allowPrivateNetwork: false }).engine.connect());
    assert.instance(err, ApiError);
    assert.match(err.message, /ALLOW_PRIVATE_NETWORK=true/);
    assert.match(err.message, /OpenAI Realtime/);
  }
  assert.is(fake.realtime.connections.length, before);
  const allowed = engineOn({}, { baseUrl: `http://localhost:${port}/v1` }, { allowPrivateNetwork: true });
  await allowed.engine.connect();
  assert.is(fake.realtime.connections.length, before + 1);
  allowed.engine.close();
});

test('connect gives up with a clear error when the session is never set up', async () => {
  fake.realtime.answerSessionUpdate = false;
  const err = await rejection(engineOn({}, {}, { allowPrivateNetwork: true, connectTimeoutMs: 200 }).engine.connect());
  assert.is(err.status, 504);
  assert.match(err.message, /did not set up the voice session within 200 ms/);
});

test.run();
