/**
 * Cascade voice through the real server: the widget's microphone audio (espeak-ng speech at 16 kHz) -> Silero VAD ->
 * speech to text -> the bot's brain with its tools -> text to speech -> audio frames to the widget, all against the
 * fake OpenAI server (kind B plays all three parts here; the engine tests cover kinds C and D).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FakeOpenAI } from '../fakes/openai.js';
import { silentPcm, spokenPcm } from '../helpers/spoken.js';
import { audioBytes, seen, sendAudio, startVoice, startVoiceWorld, until } from './world.js';

const IN = 16_000;
const cascadeWorld = (config: Record<string, unknown> = {}, voice: Record<string, unknown> = {}) => startVoiceWorld({ voice: { mode: 'cascade', ...voice }, config });
const fakeOf = (w: { fake: unknown }) => w.fake as FakeOpenAI;

test('a whole cascade turn: spoken question, a tool call, the answer spoken sentence by sentence, all stored and priced', async () => {
  const w = await cascadeWorld({ behavior: { leadCapture: { enabled: true } } });
  const fake = fakeOf(w);
  try {
    const cfg = await w.server.request('GET', `/widget/v1/bots/${w.botId}/config`);
    assert.equal(cfg.body.voice, { enabled: true, mode: 'cascade', pushToTalk: 'allowed', bargeIn: true });
    // Speech to text hears each part the visitor paused after (the server asks for the words so far at a pause).
    fake.speech.hear('My name is Ada,', 'ada@example.com');
    fake.script([
      { text: 'One moment, I will note that.', toolCalls: [{ id: 'call_lead', name: 'capture_lead', arguments: { name: 'Ada', email: 'ada@example.com' } }] },
      { text: 'Thanks Ada. I saved your details.' },
    ]);
    const v = await w.visitor();
    const started = await startVoice(v);
    assert.equal([started.state, started.inputRate, started.outputRate], ['listening', IN, 24_000]);
    sendAudio(v, Buffer.concat([spokenPcm('My name is Ada, <break time="400ms"/> ada at example dot com.'), silentPcm(1200)]), IN);
    const user = await seen(v, 'message', (f) => f.message.role === 'user', 8000);
    assert.equal([user.message.text, user.message.modality], ['My name is Ada, ada@example.com', 'voice']);
    await seen(v, 'status', (f) => f.state === 'tool', 8000);
    // Two items: the words before the tool call, then the answer; each is played and reported.
    const first = await seen(v, 'voice_item', () => true, 8000);
    const second = await seen(v, 'voice_item', (f) => f.itemId !== first.itemId, 8000);
    for (const item of [first, second]) v.send({ t: 'voice_played', itemId: item.itemId, ms: 60_000 });
    const replies = await Promise.all([first, second].map((item) => seen(v, 'message', (f) => f.message.id === item.messageId, 8000)));
    assert.equal(replies.map((r) => [r.message.text, r.message.modality]), [['One moment, I will note that.', 'voice'], ['Thanks Ada. I saved your details.', 'voice']]);
    const deltas = v.frames.filter((f) => f.t === 'delta' && f.messageId === second.messageId).map((f) => f.delta);
    assert.is(deltas.join(''), 'Thanks Ada. I saved your details.');
    assert.ok(deltas.length >= 4, 'captions come word by word with the voice');
    const sentMs = (audioBytes(v) / 2 / 24_000) * 1000;
    assert.is(Math.round(sentMs), ('One moment, I will note that.'.length + 'Thanks Ada.'.length + 'I saved your details.'.length) * 40);
    // The lead was saved by the same tool as in text; speech to text, brain and speech were asked as configured.
    const leads = await w.server.request('GET', '/api/v1/leads', { headers: w.owner.headers });
    assert.is(leads.body.items[0].fields.email, 'ada@example.com');
    const tts = fake.requests.filter((r) => r.path === '/v1/audio/speech').map((r) => [r.body.input, r.body.response_format, r.body.model]);
    assert.equal(tts.map((t) => t[0]), ['One moment, I will note that.', 'Thanks Ada.', 'I saved your details.']);
    assert.ok(tts.every((t) => t[1] === 'pcm' && t[2] === 'gpt-4o-mini-tts'));
    const chat = fake.lastBody('/chat/completions');
    assert.match(chat.messages[0].content, /spoken aloud/);
    assert.is(chat.max_completion_tokens, 2048);
    const usage = await w.server.request('GET', '/api/v1/analytics/usage', { headers: w.owner.headers });
    const row = usage.body.items.find((m: any) => m.model === 'gpt-4o-mini');
    assert.ok(row && row.costUsd > 0 && row.outputTokens > 0, JSON.stringify(usage.body));
    await v.close();
  } finally {
    await w.close();
  }
});

test('barge-in mid-synthesis: the agent stops, its speech and brain are cancelled, the transcript keeps what was heard', async () => {
  const w = await cascadeWorld();
  const fake = fakeOf(w);
  try {
    fake.speech.chunkIntervalMs = 80;
    fake.speech.hear('Tell me about your shop.', 'Stop,', 'thank you.');
    fake.script([
      { text: 'We are a family bakery. We bake bread every morning. We also make cakes for weddings and birthdays. And we deliver in the whole city.', chunkIntervalMs: 50 },
      { text: 'Of course.' },
    ]);
    const v = await w.visitor();
    await startVoice(v);
    sendAudio(v, Buffer.concat([spokenPcm('Tell me about your shop.'), silentPcm(1200)]), IN);
    const item = await seen(v, 'voice_item', () => true, 8000);
    // A second of the reply has reached the widget when the visitor talks over it.
    await until(() => audioBytes(v) >= 48_000, { timeout: 5000, message: 'audio' });
    const interruption = spokenPcm('Stop, thank you.');
    sendAudio(v, interruption.subarray(0, 12_800), IN);
    const stop = await seen(v, 'voice_interrupt', () => true, 5000);
    assert.is(stop.itemId, item.itemId);
    await until(() => fake.speech.open === 0, { timeout: 3000, message: 'speech stream closed' });
    const sentMs = audioBytes(v) / 48;
    const captions = v.frames.filter((f) => f.t === 'delta' && f.messageId === item.messageId).map((f) => f.delta).join('');
    // The widget had played all but the last 300 ms it had received.
    v.send({ t: 'voice_played', itemId: item.itemId, ms: sentMs - 300 });
    sendAudio(v, Buffer.concat([interruption.subarray(12_800), silentPcm(1200)]), IN);
    const cut = await seen(v, 'message', (f) => f.message.id === item.messageId, 8000);
    // Cut at a word boundary inside what the widget received, marked as cut, never the words not yet spoken.
    assert.match(cut.message.text, /…$/);
    const heard = cut.message.text.slice(0, -1);
    assert.ok(heard.length > 5 && captions.startsWith(heard) && heard.length < captions.length, `${cut.message.text} of ${captions}`);
    assert.ok(!cut.message.text.includes('weddings'));
    await seen(v, 'message', (f) => f.message.role === 'user' && f.message.text === 'Stop, thank you.', 8000);
    // The brain's next request holds the cut reply, not the words never spoken.
    await until(() => fake.requests.filter((r) => r.path === '/v1/chat/completions').length === 2, { timeout: 5000, message: 'second reply' });
    const messages = fake.lastBody('/chat/completions').messages;
    assert.ok(!JSON.stringify(messages).includes('weddings'), 'unheard words are not in the brain\'s memory');
    await v.close();
  } finally {
    await w.close();
  }
});

test('each stage failing mid-turn tells the visitor in the chat, voice goes on, and nothing said is lost', async () => {
  const w = await cascadeWorld();
  const fake = fakeOf(w);
  try {
    const v = await w.visitor();
    await startVoice(v, 'ptt');
    // The session takes audio once it has handled the press; a real widget sends 20 ms frames while the button is held.
    const talk = async (words: string | null) => {
      if (words) fake.speech.hear(words);
      const sessions = fake.realtime.transcriptions.length;
      v.send({ t: 'voice_ptt', down: true });
      // The press opens the turn's transcription session (a socket still connecting at the release is given up).
      const session = await until(() => fake.realtime.transcriptions[sessions], { timeout: 5000, message: 'a transcription session' });
      await until(() => session.session.audio.input.transcription, { message: 'the transcription session set up (its session.update)' });
      sendAudio(v, silentPcm(400), IN);
      // 400 ms at 24 kHz, PCM16: 19,200 bytes (a little less after resampling).
      await until(() => session.bytes >= 18_000, { message: () => `the held button's audio reaching the transcription session (${session.bytes} bytes)` });
      v.send({ t: 'voice_ptt', down: false });
    };
    // Speech to text fails: nothing stored, the visitor is asked to say it again. The default model streams the
    // held button's audio to a Realtime transcription session, which says it could not transcribe it.
    fake.realtime.failTranscriptionNext('Audio could not be transcribed.');
    await talk(null);
    const e1 = await seen(v, 'error', () => true, 5000);
    assert.is(e1.code, 'internal');
    assert.match(e1.message, /could not make out what you said/);
    assert.is(e1.stage, 'stt', 'the widget words the failed stage in the visitor\'s language');
    // The brain fails (and fails again when retried once): the question is stored, the visitor told.
    fake.script([{ error: { status: 503, message: 'model overloaded' } }, { error: { status: 503, message: 'model overloaded' } }]);
    await talk('What do you sell?');
    await seen(v, 'message', (f) => f.message.role === 'user' && f.message.text === 'What do you sell?', 5000);
    await seen(v, 'error', (f) => /could not answer that/.test(f.message) && f.stage === 'brain', 5000);
    // Speech fails: the answer still reaches the chat as text and is stored.
    fake.failNext('/audio/speech', 500, 'voice down');
    fake.script({ text: 'We sell bread. And cakes.' });
    await talk('What do you sell?');
    await seen(v, 'error', (f) => /shown as text/.test(f.message), 5000);
    const item = await seen(v, 'voice_item', () => true, 5000);
    v.send({ t: 'voice_played', itemId: item.itemId, ms: 0 });
    const reply = await seen(v, 'message', (f) => f.message.id === item.messageId, 8000);
    assert.is(reply.message.text, 'We sell bread. And cakes.');
    assert.ok(!v.frames.some((f) => f.t === 'voice' && f.state === 'ended'), 'voice is still on');
    const conv = await w.server.request('GET', `/api/v1/conversations/${reply.conversationId}`, { headers: w.owner.headers });
    assert.equal(conv.body.messages.filter((m: any) => m.modality === 'voice').map((m: any) => [m.role, m.text]), [
      ['user', 'What do you sell?'], ['user', 'What do you sell?'], ['assistant', 'We sell bread. And cakes.'],
    ]);
    await v.close();
  } finally {
    await w.close();
  }
});

test('a provider that is down for good (connection refused) ends cascade voice with a line offering text, instead of failing every turn', async () => {
  const w = await cascadeWorld();
  const fake = fakeOf(w);
  try {
    const v = await w.visitor();
    await startVoice(v);
    // Every part of this bot is on the fake OpenAI: with it gone, each request is refused.
    await fake.close();
    sendAudio(v, Buffer.concat([spokenPcm('What do you sell?'), silentPcm(1200)]), IN);
    const ended = await seen(v, 'voice', (f) => f.state === 'ended', 15_000);
    assert.is(ended.reason, 'unavailable');
    assert.is(ended.message, 'Voice is not available right now. Please continue here in the chat.');
    assert.is(JSON.stringify(v.frames).includes('refused'), false, 'the provider error stays with the operator');
    assert.is(v.frames.filter((f) => f.t === 'error').length, 0, 'one line (the ending), not a failure line per turn');
    const health = await w.server.request('GET', `/api/v1/bots/${w.botId}/health`, { headers: w.owner.headers });
    assert.is(health.body.voice.lastFailure.stage, 'stt');
    assert.match(health.body.voice.lastFailure.message, /connection refused/);
    await until(() => w.server.services.voice.live === 0, { timeout: 5000, message: 'session gone' });
    await v.close();
  } finally {
    await w.close();
  }
});

test('cascade voice is not offered until its parts are set up; the visitor reads a short line, the operator which setting is missing', async () => {
  const w = await cascadeWorld({}, { cascade: { stt: { connectionId: 'prv_missing' } } });
  try {
    const cfg = await w.server.request('GET', `/widget/v1/bots/${w.botId}/config`);
    assert.is(cfg.body.voice.enabled, false, 'no microphone button');
    const v = await w.visitor();
    v.send({ t: 'voice_start' });
    const err = await v.next('error');
    assert.is(err.code, 'unavailable');
    assert.is(err.message, 'Voice is not available for this assistant right now. You can keep chatting by text.');
    const health = await w.server.request('GET', `/api/v1/bots/${w.botId}/health`, { headers: w.owner.headers });
    assert.match(health.body.voice.lastFailure.message, /speech to text \(voice\.cascade\.stt\.connectionId\)/);
    await v.close();
  } finally {
    await w.close();
  }
});

test.run();
