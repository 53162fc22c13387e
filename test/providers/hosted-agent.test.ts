import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../helpers/until.js';
import { describeImageWith } from '../../src/voice/vision-proxy.js';
import { createProvider } from '../../src/providers/index.js';
import { HostedAgentApi } from '../../src/providers/hosted-agent/api.js';
import { HostedAgentEngine, type HostedAgentOptions } from '../../src/providers/hosted-agent/engine.js';
import { agentBody, type AgentDefinition } from '../../src/providers/hosted-agent/wire.js';
import type { VoiceEngineEvent, VoiceSessionSpec } from '../../src/providers/voice-engine.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import { silencePcm, speechPcm } from '../fakes/realtime-audio.js';
import { startFakeSpeech, type FakeSpeech } from '../fakes/speech.js';
import { rejection } from './helpers.js';

let fake: FakeSpeech;
let api: HostedAgentApi;
test.before(async () => {
  fake = await startFakeSpeech();
  api = new HostedAgentApi({ apiKey: fake.apiKey, baseUrl: fake.baseUrl });
});
test.after(() => fake.close());
test.before.each(() => { fake.agents.chunkIntervalMs = 5; fake.agents.pingIntervalMs = 1000; });

const IN = 16_000;
const ORDER_TOOL = { name: 'lookup_order', description: 'Finds an order by its number.', parameters: { type: 'object', properties: { id: { type: 'string', minLength: 3 } }, required: ['id'] } };

const definition = (over: Partial<AgentDefinition> = {}): AgentDefinition => ({
  name: 'Shop', prompt: 'You are Ada.', firstMessage: '', language: 'en', voice: 'voice_rachel', ttsModel: '', llm: '', temperature: null,
  maxOutputTokens: 2048, tools: [ORDER_TOOL], bargeIn: true, maxDurationSeconds: 900, ...over,
});
const specOf = (over: Partial<VoiceSessionSpec> = {}): VoiceSessionSpec => ({
  model: '', voice: '', instructions: 'You are Ada, the shop\'s guide. The visitor is on /pricing.', tools: [ORDER_TOOL], language: null,
  turnDetection: { type: 'server_vad', eagerness: 'auto' }, bargeIn: true, maxOutputTokens: 2048, history: [], ...over,
});

type Of<T extends VoiceEngineEvent['type']> = Extract<VoiceEngineEvent, { type: T }>;

/**
 * An engine on a new agent of the fake, every event it emits, and `until` to wait for the nth event of a type. A
 * reply ends after 400 ms without audio (700 in the product): the fake sends a chunk every 5 ms, but a loaded machine
 * held this process past 100 ms and the reply ended with a chunk still to come.
 */
async function engineOn(spec: Partial<VoiceSessionSpec> = {}, agent: Partial<AgentDefinition> = {}, opts: Partial<HostedAgentOptions> = {}) {
  const agentId = await api.create(agentBody(definition(agent)));
  const events: VoiceEngineEvent[] = [];
  let wake = () => {};
  let react: (e: VoiceEngineEvent) => void = () => {};
  const engine = new HostedAgentEngine({ id: 'conn_d', kind: 'speech', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, specOf(spec),
    (e) => { events.push(e); react(e); wake(); }, { agentId, allowPrivateNetwork: true, replyQuietMs: 400, ...opts });
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
  const on = (fn: (e: VoiceEngineEvent) => void) => { react = fn; };
  const conversation = () => fake.agents.conversations.find((c) => c.agentId === agentId)!;
  return { engine, agentId, events, all, until, on, conversation };
}

/** Visitor audio in 20 ms frames at 16 kHz, as the widget sends it. */
function say(engine: HostedAgentEngine, pcm: Buffer): void {
  for (let off = 0; off < pcm.length; off += 640) engine.appendAudio(pcm.subarray(off, off + 640));
}
const speak = (engine: HostedAgentEngine, ms = 600) => { say(engine, speechPcm(ms, IN)); say(engine, silencePcm(500, IN)); };
const flow = (events: VoiceEngineEvent[]) => events.map((e) => e.type).filter((t) => t !== 'audio' && t !== 'transcript_delta');

test('a conversation sends its own prompt when it starts, and runs at 16 kHz in and 24 kHz out', async () => {
  const s = await engineOn();
  await s.engine.connect();
  assert.equal(s.events, [{ type: 'ready' }]);
  assert.is(s.engine.inputRate, 16_000);
  assert.is(s.engine.outputRate, 24_000);
  const c = s.conversation();
  assert.equal(c.initiation.conversation_config_override, { agent: { prompt: { prompt: specOf().instructions } } });
  assert.is(c.prompt, specOf().instructions);
  s.engine.close();
  assert.is((await s.until('closed')).reason, 'closed');
});

test('a spoken turn: the visitor\'s words, then the agent\'s reply as one item with its audio and text, then response_done', async () => {
  const s = await engineOn();
  await s.engine.connect();
  fake.agents.hear('When do you open?');
  fake.script({ text: 'We open at nine.' });
  speak(s.engine);
  const done = await s.until('response_done');
  assert.equal(flow(s.events), ['ready', 'speech_stopped', 'user_turn', 'user_transcript', 'agent_item', 'agent_item_done', 'response_done']);
  assert.is(s.all('user_transcript')[0].text, 'When do you open?');
  assert.is(s.all('user_transcript')[0].itemId, s.all('user_turn')[0].itemId);
  assert.is(s.all('transcript_delta').map((e) => e.delta).join(''), 'We open at nine.');
  assert.is(s.all('agent_item_done')[0].text, 'We open at nine.');
  assert.is(done.status, 'completed');
  // 16 characters at ~60 ms each: about 960 ms of 24 kHz PCM16.
  const bytes = s.all('audio').reduce((n, e) => n + e.pcm.length, 0);
  assert.is(bytes, 0.96 * 24_000 * 2);
  assert.ok(s.all('audio').every((e) => e.headroom === 1 && e.itemId === s.all('agent_item')[0].itemId));
  const c = s.conversation();
  assert.ok(c.received.some((r) => r.type === 'user_audio_chunk' && r.bytes! > 0));
  assert.equal(c.transcript, [{ role: 'user', text: 'When do you open?' }, { role: 'agent', text: 'We open at nine.' }]);
  s.engine.close();
});

test('pings are answered with pongs carrying their event ids', async () => {
  fake.agents.pingIntervalMs = 20;
  const s = await engineOn();
  await s.engine.connect();
  const c = s.conversation();
  await until(() => c.pongs.length >= 3, { message: 'three pongs' });
  assert.equal(c.pongs.slice(0, 3), [1, 2, 3]);
  s.engine.close();
});

test('a tool call comes back as tool_call; its result goes back as client_tool_result and the agent answers with it', async () => {
  const s = await engineOn();
  await s.engine.connect();
  s.on((e) => { if (e.type === 'tool_call') s.engine.sendToolResult(e.callId, '{"status":"shipped"}'); });
  fake.agents.hear('Where is order 123?');
  fake.script([{ toolCalls: [{ id: 'toolu_1', name: 'lookup_order', arguments: { id: '123' } }] }, { text: 'It has shipped.' }]);
  speak(s.engine);
  await s.until('agent_item_done');
  const call = s.all('tool_call')[0];
  assert.equal(call, { type: 'tool_call', callId: 'toolu_1', name: 'lookup_order', arguments: '{"id":"123"}' });
  assert.equal(s.conversation().toolResults, [{ tool_call_id: 'toolu_1', result: '{"status":"shipped"}', is_error: false }]);
  assert.is(s.all('agent_item_done')[0].text, 'It has shipped.');
  s.engine.close();
});

test('speaking over the reply: interrupted at once, the item keeps the provider\'s corrected words, late audio is dropped', async () => {
  const s = await engineOn();
  await s.engine.connect();
  fake.agents.chunkIntervalMs = 30;
  fake.agents.hear('Tell me everything', 'Stop, thanks');
  fake.script([{ text: 'Here is a very long answer with many words that takes a few seconds to say out loud.' }, { text: 'Sure.' }]);
  speak(s.engine);
  await s.until('audio', 5);
  say(s.engine, speechPcm(300, IN));
  await s.until('interrupted');
  const cut = await s.until('agent_item_done');
  const full = 'Here is a very long answer with many words that takes a few seconds to say out loud.';
  assert.ok(cut.text.length > 0 && cut.text.length < full.length && full.startsWith(cut.text), cut.text);
  const audioAtCut = s.all('audio').length;
  say(s.engine, silencePcm(500, IN));
  const done = await s.until('response_done');
  assert.is(done.status, 'cancelled');
  await s.until('agent_item_done', 2);
  assert.is(s.all('agent_item_done')[1].text, 'Sure.');
  // Every audio chunk after the cut belongs to the next reply.
  const second = s.all('agent_item')[1].itemId;
  assert.ok(s.all('audio').slice(audioAtCut).every((e) => e.itemId === second));
  assert.is(s.conversation().interruptions, 1);
  s.engine.close();
});

test('barge-in off: the agent is made without interruption events, and speech over a reply does not stop it', async () => {
  const s = await engineOn({ bargeIn: false }, { bargeIn: false });
  assert.not.ok(fake.agents.agents.get(s.agentId)!.conversation_config.conversation.client_events.includes('interruption'));
  await s.engine.connect();
  fake.agents.chunkIntervalMs = 20;
  fake.agents.hear('Hello');
  fake.script({ text: 'A reply of some length, spoken to its end.' });
  speak(s.engine);
  await s.until('audio', 3);
  say(s.engine, speechPcm(300, IN));
  const done = await s.until('agent_item_done');
  assert.is(done.text, 'A reply of some length, spoken to its end.');
  assert.is(s.all('interrupted').length, 0);
  s.engine.close();
});

test('a new conversation starts with the agent\'s greeting; with history there is none and the history rides in the prompt', async () => {
  const greet = await engineOn({}, { firstMessage: 'Hi! I\'m Ada. How can I help?' });
  await greet.engine.connect();
  assert.is((await greet.until('agent_item_done')).text, 'Hi! I\'m Ada. How can I help?');
  assert.not.ok('first_message' in greet.conversation().initiation.conversation_config_override.agent);
  greet.engine.close();

  const later = await engineOn({ history: [{ role: 'user', text: 'Do you ship to Norway?' }, { role: 'assistant', text: 'Yes, in three days.' }], language: 'nb-NO' }, { firstMessage: 'Hi!' });
  await later.engine.connect();
  const c = later.conversation();
  assert.is(c.firstMessage, '');
  assert.is(c.language, 'nb');
  assert.match(c.prompt, /The conversation so far[^\n]*\nVisitor: Do you ship to Norway\?\nYou: Yes, in three days\.$/);
  later.engine.close();
});

test('typed text goes to the agent as a user message; push-to-talk released ends the turn with a short silence', async () => {
  const s = await engineOn();
  await s.engine.connect();
  fake.script({ text: 'Typed answer.' });
  s.engine.sendText('I typed this');
  assert.is((await s.until('agent_item_done')).text, 'Typed answer.');
  assert.equal(s.conversation().transcript[0], { role: 'user', text: 'I typed this' });
  fake.agents.hear('Spoken with the button');
  fake.script({ text: 'Heard you.' });
  say(s.engine, speechPcm(400, IN));
  s.engine.commitTurn();
  assert.is((await s.until('user_transcript')).text, 'Spoken with the button');
  s.engine.close();
});

test('vision proxy: a camera frame is described by the text model and reaches the agent as a contextual update', async () => {
  const openai: FakeOpenAI = await startFakeOpenAI();
  try {
    const adapter = createProvider({ id: 'conn_b', kind: 'openai', apiKey: openai.apiKey, baseUrl: openai.baseUrl });
    const s = await engineOn({}, {}, { describeImage: async (image, signal) => (await describeImageWith(adapter, 'gpt-4o-mini', image, signal)).text });
    await s.engine.connect();
    openai.script({ text: 'A red mug with the word "Ada" on a wooden desk.' });
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]);
    await s.engine.sendImage({ mimeType: 'image/jpeg', data: jpeg });
    const asked = openai.lastBody('/chat/completions');
    assert.is(asked.model, 'gpt-4o-mini');
    const parts = asked.messages.at(-1).content;
    assert.ok(parts.some((p: any) => p.type === 'image_url' && p.image_url.url.startsWith('data:image/jpeg;base64,')), JSON.stringify(parts).slice(0, 200));
    const c = s.conversation();
    await until(() => c.contextualUpdates.length, { message: 'the contextual update with what the camera shows' });
    assert.match(c.contextualUpdates[0], /camera now shows[\s\S]*<untrusted_data source="camera">\nA red mug with the word "Ada" on a wooden desk\.\n<\/untrusted_data>/);
    s.engine.close();
  } finally {
    await openai.close();
  }
});

test('connect fails clearly: an agent deleted at the provider, a key refused, a private address not allowed', async () => {
  const gone = await engineOn();
  await api.remove(gone.agentId);
  const missing = await rejection(gone.engine.connect());
  assert.is(missing.status, 422);
  assert.match(missing.message, /no longer exists at the speech provider[^;]*; publish the bot again/);

  const agentId = await api.create(agentBody(definition()));
  const wrongKey = new HostedAgentEngine({ id: 'c', kind: 'speech', apiKey: 'wrong', baseUrl: fake.baseUrl }, specOf(), () => {}, { agentId, allowPrivateNetwork: true });
  const refused = await rejection(wrongKey.connect());
  assert.is(refused.status, 422);
  assert.match(refused.message, /^apiKey: the speech provider refused this key/);

  const blocked = new HostedAgentEngine({ id: 'c', kind: 'speech', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, specOf(), () => {}, { agentId, allowPrivateNetwork: false });
  const err = await rejection(blocked.connect());
  assert.match(err.message, /ALLOW_PRIVATE_NETWORK=true/);
});

test.run();
