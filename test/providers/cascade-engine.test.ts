import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { quietFor, until } from '../helpers/until.js';
import type { ChatRequest } from '../../src/providers/types.js';
import { silentPcm, spokenPcm } from '../helpers/spoken.js';
import { adapter, bytesFor, cascade, feed, gemini, openai, speech, useFakes } from './cascade-harness.js';

useFakes(test);

test('a whole push-to-talk turn with a tool call: heard, answered in two rounds, spoken sentence by sentence, priced', async () => {
  const c = cascade();
  await c.engine.connect();
  assert.is(c.engine.inputRate, 16_000);
  assert.is(c.engine.outputRate, 24_000);
  openai.script([
    { text: 'Let me check that for you.', toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: { id: '42' } }] },
    { text: 'Your order 42 shipped yesterday. It arrives on Monday.' },
  ]);
  c.answerTools((name, args) => JSON.stringify({ name, args: JSON.parse(args), status: 'shipped' }));
  c.say('Where is my order 42?');
  const done = await c.until('response_done');
  const kinds = c.kinds();
  assert.equal(kinds.filter((k) => k !== 'tool_call' && k !== 'transcript_delta'), [
    'ready', 'user_turn', 'user_transcript', 'agent_item', 'agent_item_done', 'agent_item', 'agent_item_done', 'response_done',
  ]);
  // The tool runs while the first sentence is still being spoken; the second round starts once its result is back.
  assert.ok(kinds.indexOf('tool_call') < kinds.lastIndexOf('agent_item'));
  assert.is(c.all('user_transcript')[0].text, 'Where is my order 42?');
  assert.equal(c.all('user_transcript')[0].itemId, c.all('user_turn')[0].itemId);
  const [first, second] = c.all('agent_item_done');
  assert.is(first.text, 'Let me check that for you.');
  assert.is(second.text, 'Your order 42 shipped yesterday. It arrives on Monday.');
  // Captions come word by word as the audio goes out.
  const deltas = c.all('transcript_delta');
  assert.ok(deltas.length > 6, `${deltas.length} deltas`);
  assert.is(deltas.filter((d) => d.itemId === first.itemId).map((d) => d.delta).join(''), 'Let me check that for you.');
  assert.is(deltas.filter((d) => d.itemId === second.itemId).map((d) => d.delta).join(''), 'Your order 42 shipped yesterday. It arrives on Monday.');
  assert.equal(c.all('tool_call').map((t) => [t.callId, t.name, t.arguments]), [['call_1', 'lookup_order', '{"id":"42"}']]);
  // Every sentence was spoken in full, as PCM at 24 kHz, each item's audio after its announcement.
  assert.is(c.audioBytes(first.itemId), bytesFor('Let me check that for you.'));
  assert.is(c.audioBytes(second.itemId), bytesFor('Your order 42 shipped yesterday.') + bytesFor('It arrives on Monday.'));
  // The brain saw the turn, then its own tool call and the result; the spoken cap and the tools went with it.
  const chats = openai.requests.filter((r) => r.path === '/v1/chat/completions').slice(-2);
  assert.is(chats[0].body.messages.at(-1).content, 'Where is my order 42?');
  assert.is(chats[0].body.max_completion_tokens, 2048);
  assert.is(chats[0].body.tools[0].function.name, 'lookup_order');
  assert.equal(chats[1].body.messages.slice(-2).map((m: any) => m.role), ['assistant', 'tool']);
  assert.match(chats[1].body.messages.at(-1).content, /shipped/);
  // Speech to text got the turn as WAV at 16 kHz with the language hint.
  const stt = openai.lastBody('/audio/transcriptions');
  assert.is(stt.file.data.readUInt32LE(24), 16_000);
  assert.is(stt.language, 'en');
  assert.is(done.status, 'completed');
  assert.ok(done.usage.inputTextTokens > 0 && done.usage.outputTextTokens > 0);
  assert.ok((done.usage.costUsd ?? 0) > 0, 'brain, speech to text and speech are priced');
  c.engine.close();
  assert.is(c.events.at(-1)!.type, 'closed');
});

test('sentence streaming: the first sentence is heard while the brain is still writing', async () => {
  const brain = adapter('openai');
  let brainDoneAt = 0;
  const chat = brain.chat!.bind(brain);
  brain.chat = async (req: ChatRequest, onEvent, signal) => { await chat(req, onEvent, signal); brainDoneAt = Date.now(); };
  const c = cascade({ brainAdapter: brain });
  await c.engine.connect();
  openai.script({ text: 'Sure, I can help. We open at nine on weekdays and at ten on Saturdays, and we are closed on Sundays.', chunkIntervalMs: 40 });
  c.say('When are you open?');
  await c.until('response_done');
  const firstAudio = c.all('audio')[0].at;
  assert.ok(brainDoneAt > 0);
  assert.ok(firstAudio < brainDoneAt - 300, `first audio ${brainDoneAt - firstAudio} ms before the brain finished`);
  const ttsInputs = openai.requests.filter((r) => r.path === '/v1/audio/speech').slice(-2).map((r) => r.body.input);
  assert.equal(ttsInputs, ['Sure, I can help.', 'We open at nine on weekdays and at ten on Saturdays, and we are closed on Sundays.']);
  c.engine.close();
});

test('hands-free: Silero hears the question, a mid-sentence pause does not end the turn, barge-in cancels the brain and the speech in flight', async () => {
  const brain = adapter('openai');
  let brainAborted = false;
  const chat = brain.chat!.bind(brain);
  brain.chat = (req, onEvent, signal) => chat(req, onEvent, signal).catch((err) => { brainAborted = !!signal?.aborted; throw err; });
  const c = cascade({ handsFree: true, brainAdapter: brain });
  await c.engine.connect();
  openai.speech.chunkIntervalMs = 60;
  // Speech to text hears each part the visitor paused after (the engine asks for the words so far at a pause).
  openai.speech.hear('I would like to know', 'your opening hours.', 'Stop,', 'I have another question.');
  openai.script([
    { text: 'We open at nine. We close at five. On Saturdays we open at ten and close at two. On Sundays we are closed, but you can order online at any time.', chunkIntervalMs: 60 },
    { text: 'Of course, go ahead.' },
  ]);
  feed(c.engine, Buffer.concat([spokenPcm('I would like to know <break time="500ms"/> your opening hours.'), silentPcm(1200)]));
  await c.until('speech_started');
  await c.until('user_turn');
  assert.is(c.all('user_turn').length, 1, 'the pause stayed inside the turn');
  const item = await c.until('agent_item');
  await c.until('audio');
  // The visitor talks over the agent while its reply is still being written and spoken.
  const interruption = spokenPcm('Stop, I have another question.');
  feed(c.engine, interruption.subarray(0, 16_000));
  await c.until('speech_started', 2);
  const cancelled = await c.until('response_done');
  assert.is(cancelled.status, 'cancelled');
  await until(() => openai.speech.open === 0 && brainAborted, { message: 'the speech stream closed and the brain stopped' });
  assert.is(openai.speech.open, 0, 'the speech stream was closed');
  assert.ok(brainAborted, 'the brain was stopped');
  const sentBytes = c.audioBytes(item.itemId);
  const audioEvents = c.all('audio').length;
  await quietFor(150, 'audio after the barge-in'); // must not come: the reply was cut
  assert.is(c.all('audio').length, audioEvents, 'no audio after the barge-in');
  // The widget played 300 ms before it stopped: the brain's memory keeps only what was heard.
  c.engine.interrupt(item.itemId, 300);
  feed(c.engine, Buffer.concat([interruption.subarray(16_000), silentPcm(1200)]));
  await c.until('response_done', 2);
  const last = openai.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!.body.messages;
  assert.equal(last.map((m: any) => m.role), ['system', 'user', 'assistant', 'user']);
  assert.match(last[2].content, /^We( open)?…$/);
  assert.is(last[3].content, 'Stop, I have another question.');
  assert.ok(sentBytes < bytesFor('We open at nine.') * 6);
  c.engine.close();
});

test('typed text is answered aloud, and respond() greets the visitor first', async () => {
  const c = cascade({ tts: 'speech' });
  await c.engine.connect();
  openai.script([{ text: 'Hello! How can I help?' }, { text: 'We deliver on Sundays too.' }]);
  c.engine.respond('Greet the visitor warmly in one short sentence.');
  c.engine.sendText('Do you deliver on Sundays?');
  await c.until('response_done', 2);
  assert.equal(c.all('agent_item_done').map((d) => d.text), ['Hello! How can I help?', 'We deliver on Sundays too.']);
  assert.is(c.all('user_turn').length, 0, 'typed text is stored by the chat, not announced as a spoken turn');
  const chats = openai.requests.filter((r) => r.path === '/v1/chat/completions').slice(-2);
  assert.match(chats[0].body.messages[1].content, /Greet the visitor warmly/);
  assert.equal(chats[1].body.messages.slice(-2).map((m: any) => m.content), ['Hello! How can I help?', 'Do you deliver on Sundays?']);
  // The speech provider's first voice was used, streamed as raw PCM.
  const streams = speech.requests.filter((r) => r.path.endsWith('/stream')).slice(-3);
  assert.is(streams[2].path, '/v1/text-to-speech/voice_rachel/stream');
  // Each sentence after the first of a reply carries the one before, so the intonation runs on.
  assert.equal(streams.map((r) => r.body.previous_text), [undefined, 'Hello!', undefined]);
  assert.is(c.audioBytes(), bytesFor('Hello!') + bytesFor('How can I help?') + bytesFor('We deliver on Sundays too.'));
  c.engine.close();
});

test('Gemini as the brain and as the voice, the speech provider listening', async () => {
  const c = cascade({ stt: 'speech', brain: 'gemini', tts: 'gemini' });
  await c.engine.connect();
  gemini.script({ text: 'Guten Tag! Wie kann ich helfen?' });
  c.say('Hallo');
  const done = await c.until('response_done');
  assert.is(done.status, 'completed');
  assert.is(c.all('user_transcript')[0].text, 'Hallo');
  assert.is(c.all('agent_item_done')[0].text, 'Guten Tag! Wie kann ich helfen?');
  assert.is(c.audioBytes(), bytesFor('Guten Tag!') + bytesFor('Wie kann ich helfen?'));
  assert.is(speech.lastBody('/speech-to-text').language_code, 'en');
  c.engine.close();
});

test('a long conversation gives the brain its latest 60 messages, starting with the visitor', async () => {
  const history = Array.from({ length: 100 }, (_, i) => ({ role: i % 2 ? 'assistant' as const : 'user' as const, text: `message ${i}` }));
  const c = cascade({ spec: { history } });
  await c.engine.connect();
  openai.script({ text: 'Sure.' });
  c.engine.sendText('One more question.');
  await c.until('response_done');
  const messages = openai.lastBody('/chat/completions').messages;
  assert.is(messages[0].role, 'system');
  assert.is(messages[1].role, 'user');
  assert.ok(messages.length <= 61, `${messages.length} messages`);
  assert.is(messages.at(-1).content, 'One more question.');
  c.engine.close();
});

test.run();
