import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocketServer } from 'ws';
import { GeminiLiveEngine, type GeminiLiveOptions } from '../../src/providers/realtime-gemini.js';
import type { VoiceEngineEvent, VoiceSessionSpec } from '../../src/providers/voice-engine.js';
import { frames, silencePcm, speechPcm, type LiveClientEvent } from '../fakes/gemini-live.js';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini.js';
import { rejection } from './helpers.js';
import { until as eventually } from '../helpers/until.js';

let fake: FakeGemini;
const engines: GeminiLiveEngine[] = [];

test.before(async () => { fake = await startFakeGemini(); });
test.after(async () => { for (const e of engines) e.close(); await fake.close(); });

const tools = [{ name: 'get_order', description: 'Order status', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } }];
const baseSpec: VoiceSessionSpec = {
  model: '', voice: '', instructions: 'You are the shop assistant.', tools: [], language: null,
  turnDetection: { type: 'server_vad', eagerness: 'auto' }, bargeIn: true, maxOutputTokens: 2048, history: [],
};

type Kind = VoiceEngineEvent['type'];
type Of<K extends Kind> = Extract<VoiceEngineEvent, { type: K }>;

/** An engine on the fake with every event recorded; `until` waits for the nth event of a type (as it arrives; no polling). */
function open(over: Partial<VoiceSessionSpec> = {}, conn: { apiKey?: string; baseUrl?: string } = {}, opts: Partial<GeminiLiveOptions> = {}) {
  const events: VoiceEngineEvent[] = [];
  const waiters: Array<() => void> = [];
  const engine = new GeminiLiveEngine(
    { id: 'conn_c', kind: 'gemini', apiKey: conn.apiKey ?? fake.apiKey, baseUrl: conn.baseUrl ?? fake.baseUrl },
    { ...baseSpec, ...over },
    (e) => { events.push(e); for (const w of [...waiters]) w(); },
    { allowPrivateNetwork: true, ...opts },
  );
  engines.push(engine);
  const all = <K extends Kind>(type: K) => events.filter((e): e is Of<K> => e.type === type);
  const until = <K extends Kind>(type: K, n = 1): Promise<Of<K>> => new Promise((resolve, reject) => {
    const check = () => {
      const found = all(type);
      if (found.length < n) return false;
      clearTimeout(timer);
      waiters.splice(waiters.indexOf(check), 1);
      resolve(found[n - 1]);
      return true;
    };
    const timer = setTimeout(() => reject(new Error(`no ${type} #${n}; got ${events.map((e) => e.type).join(', ')}`)), 5000);
    waiters.push(check);
    check();
  });
  const say = (pcm: Buffer) => { for (const f of frames(pcm)) engine.appendAudio(f); };
  return { engine, events, all, until, say };
}

/** Resolves once `check` returns something (the fake receives client messages a moment after they are sent). */
const kinds = (session: number) => fake.live.events.filter((e) => e.session === session).map((e) => e.kind);
const lastSession = () => fake.live.setups.length;
const audioMs = (chunks: Array<Of<'audio'>>) => chunks.reduce((n, c) => n + c.pcm.length, 0) / 2 / 24;

test('the setup carries the voice, language, tools, transcription, the 2048 cap and push-to-talk, and history is seeded', async () => {
  const { engine, until } = open({
    voice: 'Kore', language: 'fr-FR', tools, turnDetection: null,
    history: [{ role: 'user', text: 'Bonjour' }, { role: 'assistant', text: 'Bonjour ! Comment puis-je vous aider ?' }],
  });
  await engine.connect();
  await until('ready');
  const setup = fake.live.setups[lastSession() - 1];
  assert.is(setup.model, 'models/gemini-3.8-live');
  assert.equal(setup.generationConfig.responseModalities, ['AUDIO']);
  assert.equal(setup.generationConfig.speechConfig, { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } }, languageCode: 'fr-FR' });
  assert.is(setup.generationConfig.maxOutputTokens, 2048);
  assert.equal(setup.systemInstruction.parts, [{ text: 'You are the shop assistant.' }]);
  assert.equal(setup.tools[0].functionDeclarations[0], { name: 'get_order', description: 'Order status', parametersJsonSchema: tools[0].parameters, behavior: 'BLOCKING' });
  assert.equal(setup.inputAudioTranscription, {});
  assert.equal(setup.outputAudioTranscription, {});
  assert.equal(setup.realtimeInputConfig, { automaticActivityDetection: { disabled: true } });
  const seeded = await eventually(() => fake.live.events.find((e) => e.session === lastSession() && e.kind === 'clientContent') as Extract<LiveClientEvent, { kind: 'clientContent' }> | undefined, { timeout: 2000, message: 'the history' });
  assert.equal(seeded.turns, [{ role: 'user', parts: [{ text: 'Bonjour' }] }, { role: 'model', parts: [{ text: 'Bonjour ! Comment puis-je vous aider ?' }] }]);
  assert.is(seeded.turnComplete, false);
  engine.close();
});

test('an empty model and voice mean the current Live model and Puck, with automatic detection on', async () => {
  const { engine } = open({ turnDetection: { type: 'server_vad', eagerness: 'high' }, bargeIn: false });
  await engine.connect();
  const setup = fake.live.setups[lastSession() - 1];
  assert.is(setup.model, 'models/gemini-3.8-live');
  assert.is(setup.generationConfig.speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName, 'Puck');
  assert.is(setup.generationConfig.speechConfig.languageCode, undefined);
  assert.equal(setup.realtimeInputConfig, { automaticActivityDetection: { endOfSpeechSensitivity: 'END_SENSITIVITY_HIGH' }, activityHandling: 'NO_INTERRUPTION' });
  assert.is(setup.tools, undefined);
  engine.close();
});

test('a spoken turn gives the visitor transcript, then the agent speaks, captions and reports usage', async () => {
  const { engine, events, all, until, say } = open();
  await engine.connect();
  fake.live.hear('Where is my order?');
  fake.script({ text: 'It shipped yesterday.' });
  say(Buffer.concat([speechPcm(600), silencePcm(600)]));
  const done = await until('response_done');

  const turn = all('user_turn')[0];
  assert.equal(all('user_transcript'), [{ type: 'user_transcript', itemId: turn.itemId, text: 'Where is my order?' }]);
  const item = all('agent_item')[0].itemId;
  assert.ok(all('audio').every((a) => a.itemId === item));
  assert.is(audioMs(all('audio')), 'It shipped yesterday.'.length * 60);
  assert.is(all('transcript_delta').map((d) => d.delta).join(''), 'It shipped yesterday.');
  assert.equal(all('agent_item_done'), [{ type: 'agent_item_done', itemId: item, text: 'It shipped yesterday.' }]);
  assert.is(done.status, 'completed');
  // 600 ms heard and 1,260 ms spoken, at 25 audio tokens a second.
  assert.is(done.usage.inputAudioTokens, 15);
  assert.is(done.usage.outputAudioTokens, 32);
  assert.ok(done.usage.inputTextTokens > 0);
  const order = events.map((e) => e.type).filter((t) => t !== 'audio' && t !== 'transcript_delta');
  assert.equal(order, ['ready', 'user_turn', 'agent_item', 'user_transcript', 'agent_item_done', 'response_done']);
  const audio = fake.live.events.find((e) => e.session === lastSession() && e.kind === 'audio') as Extract<LiveClientEvent, { kind: 'audio' }>;
  assert.equal({ chunks: audio.chunks, bytes: audio.bytes }, { chunks: 60, bytes: 1200 * 32 });
  engine.close();
});

test('a tool call round trip: the call, its result back with the function name, then the spoken answer', async () => {
  const { engine, all, until } = open({ tools });
  await engine.connect();
  fake.script([{ toolCalls: [{ name: 'get_order', arguments: { id: 'A1' } }] }, { text: 'Order A1 has shipped.' }]);
  engine.sendText('Where is A1?');
  const call = await until('tool_call');
  assert.is(call.name, 'get_order');
  assert.equal(JSON.parse(call.arguments), { id: 'A1' });
  assert.is((await until('response_done')).status, 'completed');
  engine.sendToolResult(call.callId, '{"status":"shipped"}');
  const done = await until('agent_item_done');
  assert.is(done.text, 'Order A1 has shipped.');
  await until('response_done', 2);
  const sent = fake.live.events.find((e) => e.session === lastSession() && e.kind === 'toolResponse') as Extract<LiveClientEvent, { kind: 'toolResponse' }>;
  assert.equal(sent.functionResponses, [{ id: call.callId, name: 'get_order', response: { output: '{"status":"shipped"}' } }]);
  assert.is(all('user_turn').length, 0, 'typed text is not a spoken visitor turn');
  engine.close();
});

test('push-to-talk marks the turn with activityStart and activityEnd, whatever the audio level', async () => {
  const { engine, all, until, say } = open({ turnDetection: null });
  await engine.connect();
  fake.live.hear('Cancel my order');
  fake.script({ text: 'Done.' });
  engine.startTurn();
  say(silencePcm(300));
  engine.commitTurn();
  const user = await until('user_turn');
  await until('response_done');
  assert.equal(all('user_transcript'), [{ type: 'user_transcript', itemId: user.itemId, text: 'Cancel my order' }]);
  assert.is(all('agent_item_done')[0].text, 'Done.');
  assert.equal(kinds(lastSession()), ['setup', 'activityStart', 'audio', 'activityEnd']);
  engine.close();
});

test("a push-to-talk press during a reply cuts it, and the old reply's end does not close the new turn", async () => {
  const { engine, all, until, say } = open({ turnDetection: null });
  await engine.connect();
  fake.live.hear('Actually, never mind.');
  fake.script([{ text: 'Let me explain our whole return policy in great detail, starting with the first rule. '.repeat(2) }, { text: 'No problem.' }]);
  engine.sendText('What is your return policy?');
  await until('audio');
  // Pressed, spoken and released before Gemini's interrupted for the old reply can arrive.
  engine.startTurn();
  say(speechPcm(300));
  engine.commitTurn();
  const first = await until('response_done');
  assert.is(first.status, 'cancelled');
  await until('interrupted');
  const second = await until('response_done', 2);
  assert.is(second.status, 'completed');
  assert.equal(all('user_transcript').map((t) => t.text), ['Actually, never mind.']);
  assert.is(all('user_transcript')[0].itemId, all('user_turn')[0].itemId);
  assert.is(all('agent_item_done').at(-1)!.text, 'No problem.');
  engine.close();
});

test('speaking over the agent interrupts it and the next turn is answered', async () => {
  const { engine, all, until, say } = open();
  await engine.connect();
  fake.live.hear('Tell me everything.', 'Stop, thanks.');
  fake.script([{ text: 'There is a lot to say about this, so let me start at the very beginning and go on for quite a while. '.repeat(2) }, { text: 'Sure.' }]);
  say(Buffer.concat([speechPcm(400), silencePcm(500)]));
  await until('audio');
  say(speechPcm(200));
  await until('interrupted');
  const first = await until('response_done');
  assert.is(first.status, 'cancelled');
  assert.ok(all('speech_started').length >= 1);
  assert.ok(audioMs(all('audio')) < 12_000, 'the rest of the long reply never came');
  say(silencePcm(500));
  const second = await until('response_done', 2);
  assert.is(second.status, 'completed');
  assert.equal(all('user_transcript').map((t) => t.text), ['Tell me everything.', 'Stop, thanks.']);
  assert.equal(all('agent_item_done').map((d) => d.text).at(-1), 'Sure.');
  engine.close();
});

test('with barge-in off, speech over the agent does not stop it and is answered next', async () => {
  const { engine, all, until, say } = open({ bargeIn: false });
  await engine.connect();
  fake.live.hear('Tell me a story.', 'And then?');
  fake.script([{ text: 'Once upon a time there was a very small shop at the end of a long road.' }, { text: 'Then it grew.' }]);
  say(Buffer.concat([speechPcm(400), silencePcm(500)]));
  await until('audio');
  say(Buffer.concat([speechPcm(300), silencePcm(500)]));
  const second = await until('response_done', 2);
  assert.equal(all('response_done').map((r) => r.status), ['completed', 'completed']);
  assert.is(second.status, 'completed');
  assert.is(all('interrupted').length, 0);
  assert.equal(all('user_transcript').map((t) => t.text), ['Tell me a story.', 'And then?']);
  assert.equal(all('agent_item_done').map((d) => d.text), ['Once upon a time there was a very small shop at the end of a long road.', 'Then it grew.']);
  engine.close();
});

test('typed text and a respond() request both get a spoken answer', async () => {
  const { engine, all, until } = open();
  await engine.connect();
  engine.sendText('Hello there');
  assert.is((await until('agent_item_done')).text, 'You said: Hello there');
  engine.respond('Greet the visitor');
  assert.is((await until('agent_item_done', 2)).text, 'You said: Greet the visitor');
  assert.ok(all('audio').length > 0);
  const typed = fake.live.events.filter((e) => e.session === lastSession() && e.kind === 'clientContent') as Array<Extract<LiveClientEvent, { kind: 'clientContent' }>>;
  assert.equal(typed.map((t) => [t.turns[0].parts, t.turnComplete]), [[[{ text: 'Hello there' }], true], [[{ text: 'Greet the visitor' }], true]]);
  engine.close();
});

test('Gemini closing the socket mid-reply ends the response as failed, then a fatal error and closed', async () => {
  const { engine, events, all, until } = open();
  await engine.connect();
  fake.script({ text: 'This answer breaks off halfway through.', error: { status: 503, message: 'The service is currently unavailable.' } });
  engine.sendText('hi');
  const closed = await until('closed');
  assert.ok(all('audio').length > 0, 'some audio came before the failure');
  assert.is(all('response_done')[0].status, 'failed');
  const err = all('error')[0];
  assert.is(err.fatal, true);
  assert.match(err.message, /Google Gemini ended the voice session \(1011: The service is currently unavailable\.\)/);
  assert.match(closed.reason, /unavailable/);
  assert.is(events.at(-1)!.type, 'closed');
  engine.close();
  assert.is(all('closed').length, 1, 'close() after closed emits nothing more');
});

test('a listener that throws ends the session with an error instead of crashing the process', async () => {
  const events: VoiceEngineEvent[] = [];
  const engine = new GeminiLiveEngine(
    { id: 'conn_c', kind: 'gemini', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, baseSpec,
    (e) => { events.push(e); if (e.type === 'audio') throw new Error('the listener broke'); },
    { allowPrivateNetwork: true },
  );
  await engine.connect();
  engine.sendText('hi');
  await eventually(() => events.at(-1)?.type === 'closed', { message: 'the engine closed after the listener broke' });
  const err = events.find((e) => e.type === 'error') as Of<'error'>;
  assert.match(err.message, /failed while handling a Google Gemini event: the listener broke/);
  assert.equal(events.at(-1), { type: 'closed', reason: 'engine error' });
});

test('close() is idempotent and closed follows once', async () => {
  const { engine, all } = open();
  await engine.connect();
  engine.close();
  engine.close();
  assert.equal(all('closed'), [{ type: 'closed', reason: 'closed' }]);
});

test('goAway ends an idle session with closed', async () => {
  const { engine, until } = open();
  await engine.connect();
  fake.live.goAway('5s');
  assert.match((await until('closed')).reason, /go away, 5s left/);
});

test('a wrong key rejects connect with a message naming the key', async () => {
  const { engine, events } = open({}, { apiKey: 'AIza-wrong' });
  const err = await rejection(engine.connect());
  assert.is(err.code, 'invalid');
  assert.match(err.message, /^apiKey: Google Gemini refused this key \(400: API key not valid/);
  assert.equal(events, []);
});

test('an unknown model rejects connect with the provider message', async () => {
  const err = await rejection(open({ model: 'gemini-9-nonexistent' }).engine.connect());
  assert.is(err.code, 'bad_request');
  assert.match(err.message, /Google Gemini rejected the request \(400\): models\/gemini-9-nonexistent is not found/);
});

test('a private base URL is refused without ALLOW_PRIVATE_NETWORK, by literal address and by name', async () => {
  const before = fake.live.connections;
  const port = new URL(fake.baseUrl).port;
  for (const baseUrl of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
    const err = await rejection(open({}, { baseUrl }, { allowPrivateNetwork: false }).engine.connect());
    assert.is(err.code, 'internal');
    assert.match(err.message, /^Google Gemini at http:\/\/(127\.0\.0\.1|localhost):\d+ cannot be used: .*set ALLOW_PRIVATE_NETWORK=true/);
  }
  assert.is(fake.live.connections, before, 'no socket reached the server');
  const allowed = open({}, { baseUrl: `http://localhost:${port}` }, { allowPrivateNetwork: true });
  await allowed.engine.connect();
  allowed.engine.close();
});

test('a server that never finishes setup makes connect time out with a clear message', async () => {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  wss.on('connection', () => { /* accepts the socket, never answers setup */ });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const err = await rejection(open({}, { baseUrl }, { connectTimeoutMs: 300 }).engine.connect());
  assert.is(err.status, 504);
  assert.match(err.message, /^Google Gemini did not set up the voice session within 300 ms/);
  for (const c of wss.clients) c.terminate();
  await new Promise<void>((r) => wss.close(() => http.close(() => r())));
});

test.run();
