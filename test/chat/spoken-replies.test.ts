import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FakeOpenAI } from '../fakes/openai.js';
import { startFakeSpeech } from '../fakes/speech.js';
import { sealSecret } from '../../src/security/secret-box.js';
import { newId } from '../../src/store/ids.js';
import { startChatWorld, type ChatWorld, type Visitor } from './helpers.js';
import { quietFor, until } from '../helpers/until.js';

const SPEAK = { appearance: { face: { textReplies: 'speak' } } } as const;
const REPLY = 'Our shop opens at nine. It closes at six on weekdays. On Sundays we rest.';

const speechRequests = (w: ChatWorld) => w.fake.requests.filter((r) => r.path.endsWith('/audio/speech'));
const audioBytes = (v: Visitor) => v.audio.reduce((n, b) => n + b.length - 1, 0);
test('with sound on, a typed reply is read aloud sentence by sentence as binary audio after speak_item, and its cost is counted', async () => {
  const w = await startChatWorld({ config: SPEAK });
  try {
    const v = await w.visitor();
    v.send({ t: 'speak', on: true });
    w.fake.script({ text: REPLY });
    v.say('when are you open?');
    const { message } = await v.reply();
    // Speech and the stored reply come in either order: the frames are looked up, not waited for in turn.
    await until(() => v.frames.some((f) => f.t === 'speak_end' && f.itemId === message.id));
    const item = v.frames.find((f) => f.t === 'speak_item');
    assert.is(item.messageId, message.id);
    assert.is(item.rate, 24_000);
    assert.ok(v.frames.indexOf(item) < v.frames.findIndex((f) => f.t === 'speak_end'));
    assert.is(message.text, REPLY);
    // One request per sentence, in order, with the words only.
    assert.equal(speechRequests(w).map((r) => (r.body as any).input), ['Our shop opens at nine.', 'It closes at six on weekdays.', 'On Sundays we rest.']);
    assert.ok(v.audio.length > 3);
    assert.ok(v.audio.every((b) => b[0] === 0x01 && (b.length - 1) % 2 === 0), 'audio frames are 0x01 + whole PCM16 samples');
    // 40 ms a character in the fake: about 2.9 s of speech at 24 kHz.
    const seconds = audioBytes(v) / 48_000;
    assert.ok(seconds > 2.5 && seconds < 3.5, `heard ${seconds} s`);
    // Speech is priced per minute of audio for gpt-4o-mini-tts: the day's usage carries more than the reply's own cost.
    const stored = await w.server.app.store.collection<any>('messages').findOne({ _id: message.id }, { crossWorkspace: true });
    const usage = w.server.app.store.collection<any>('usage_daily');
    let day: any = null;
    await until(() => { void usage.find({ workspaceId: w.workspaceId }).then((d) => { day = d[0]; }); return day?.costUsd > stored.costUsd; });
    assert.ok(day.costUsd > stored.costUsd, `usage ${day.costUsd} > reply ${stored.costUsd}`);
    await v.close();
  } finally {
    await w.close();
  }
});

test('without sound on (before the first click) or after it is turned off, nothing is synthesised: the reply is mimed', async () => {
  const w = await startChatWorld({ config: SPEAK });
  try {
    const v = await w.visitor();
    w.fake.script({ text: REPLY });
    v.say('when are you open?');
    await v.reply();
    assert.is(speechRequests(w).length, 0);
    assert.is(v.audio.length, 0);
    assert.not.ok(v.frames.some((f) => f.t === 'speak_item'));

    v.send({ t: 'speak', on: true });
    v.send({ t: 'speak', on: false });
    w.fake.script({ text: REPLY });
    v.say('and on Sundays?');
    await v.reply();
    assert.is(speechRequests(w).length, 0);
    assert.is(v.audio.length, 0);
    await v.close();
  } finally {
    await w.close();
  }
});

test('a bot whose textReplies is mime never speaks, even when the widget asks for sound', async () => {
  const w = await startChatWorld();
  try {
    const v = await w.visitor();
    v.send({ t: 'speak', on: true });
    w.fake.script({ text: REPLY });
    v.say('hello');
    await v.reply();
    assert.is(speechRequests(w).length, 0);
    assert.is(v.audio.length, 0);
    await v.close();
  } finally {
    await w.close();
  }
});

test('turning sound off mid-reply stops the synthesis in flight', async () => {
  const w = await startChatWorld({ config: SPEAK });
  const fake = w.fake as FakeOpenAI;
  fake.speech.chunkIntervalMs = 40;
  try {
    const v = await w.visitor();
    v.send({ t: 'speak', on: true });
    w.fake.script({ text: REPLY });
    v.say('when are you open?');
    await v.reply();
    await until(() => v.audio.length >= 2);
    v.send({ t: 'speak', on: false });
    await until(() => fake.speech.open === 0, { timeout: 3000 });
    const heard = v.audio.length;
    await quietFor(200, 'audio after sound off');
    assert.is(v.audio.length, heard, 'no audio after sound off');
    assert.ok(audioBytes(v) / 48_000 < 2, 'the reply was not read to its end');
    await v.close();
  } finally {
    await w.close();
  }
});

test('a speech provider that answers nothing leaves the text reply intact and tells the widget', async () => {
  const w = await startChatWorld({ config: SPEAK });
  const fake = w.fake as FakeOpenAI;
  try {
    const v = await w.visitor();
    v.send({ t: 'speak', on: true });
    fake.speech.misbehaveNext('/audio/speech', 'empty');
    w.fake.script({ text: REPLY });
    v.say('when are you open?');
    const { message, deltas } = await v.reply();
    assert.is(message.text, REPLY);
    assert.is(deltas.join(''), REPLY);
    // The notice may come before or after the stored reply (the first sentence fails at once).
    await until(() => v.frames.some((f) => f.t === 'speak_error'));
    const notice = v.frames.find((f) => f.t === 'speak_error');
    assert.is(notice.messageId, message.id);
    assert.match(notice.message, /shown as text/);
    // The first sentence failed: nothing to play, so nothing is announced.
    assert.not.ok(v.frames.some((f) => f.t === 'speak_item' && f.itemId === message.id));
    // After the failure the rest of the reply is not sent to the provider.
    assert.is(speechRequests(w).length <= 2, true);
    assert.not.ok(v.frames.some((f) => f.t === 'error'));
    // The conversation goes on, and the next reply is read aloud again.
    w.fake.script({ text: 'Yes. We are.' });
    v.say('open today?');
    await until(() => v.frames.some((f) => f.t === 'speak_end' && f.itemId !== message.id));
    assert.ok(v.audio.length > 0);
    await v.close();
  } finally {
    await w.close();
  }
});

test('closing the chat stops the speech in flight', async () => {
  const w = await startChatWorld({ config: SPEAK });
  const fake = w.fake as FakeOpenAI;
  fake.speech.chunkIntervalMs = 40;
  try {
    const v = await w.visitor();
    v.send({ t: 'speak', on: true });
    w.fake.script({ text: REPLY });
    v.say('when are you open?');
    await v.next('speak_item');
    await v.close();
    await until(() => fake.speech.open === 0, { timeout: 3000 });
    const said = speechRequests(w).length;
    await quietFor(300, 'another sentence synthesised after the visitor left');
    assert.is(speechRequests(w).length, said, 'no more sentences are synthesised');
    assert.ok(said < 3);
  } finally {
    await w.close();
  }
});

test('a reply dropped by a team takeover stops its speech with it', async () => {
  const w = await startChatWorld({ config: SPEAK });
  const fake = w.fake as FakeOpenAI;
  fake.speech.chunkIntervalMs = 40;
  try {
    const v = await w.visitor();
    v.send({ t: 'speak', on: true });
    // The model writes slowly: its first sentence is being spoken while the rest is still coming.
    w.fake.script({ text: ['Our shop opens at nine. ', 'It closes ', 'at six ', 'on weekdays. ', 'On Sundays we rest.'], chunkIntervalMs: 300 });
    v.say('when are you open?');
    await until(() => v.audio.length >= 2);
    const conversationId = v.frames.find((f) => f.t === 'conversation').conversationId;
    await w.server.services.conversations.ask(conversationId, { type: 'takeover', userId: 'usr_1', userName: 'Tom' });
    await v.next('delta_reset');
    await until(() => fake.speech.open === 0, { timeout: 3000 });
    const heard = v.audio.length;
    await quietFor(300, 'audio after the reply was dropped');
    assert.is(v.audio.length, heard, 'no audio after the reply was dropped');
    assert.equal(speechRequests(w).map((r) => (r.body as any).input), ['Our shop opens at nine.']);
    await v.close();
  } finally {
    await w.close();
  }
});

test('with a speech provider that times its characters (kind D), the words of the reply come with their times', async () => {
  const speech = await startFakeSpeech();
  const speechId = newId('prov');
  const w = await startChatWorld({ config: { ...SPEAK, voice: { cascade: { tts: { connectionId: speechId, voice: 'voice_rachel' } } } } });
  try {
    const { app } = w.server;
    await app.store.collection('providers').insertOne({
      _id: speechId, workspaceId: w.workspaceId, kind: 'speech', name: 'fake speech', baseUrl: speech.baseUrl,
      apiKeySealed: sealSecret(speech.apiKey, app.secretKey, speechId), createdAt: 0,
    } as any);
    const v = await w.visitor();
    v.send({ t: 'speak', on: true });
    w.fake.script({ text: REPLY });
    v.say('when are you open?');
    const { message } = await v.reply();
    await until(() => v.frames.some((f) => f.t === 'speak_end' && f.itemId === message.id));
    assert.ok(speech.requests.some((r) => r.path.endsWith('/stream/with-timestamps')));
    const words = v.frames.filter((f) => f.t === 'speak_words').flatMap((f) => f.words);
    assert.equal(words.map((x: any) => x.text).join(' '), REPLY);
    // In order, each within the audio sent (40 ms a character in the fake), the second sentence after the first.
    const audioMs = audioBytes(v) / 48;
    for (let i = 1; i < words.length; i++) assert.ok(words[i].startMs >= words[i - 1].endMs - 1, `${words[i].text} after ${words[i - 1].text}`);
    assert.ok(words.at(-1).endMs <= audioMs + 1, `${words.at(-1).endMs} <= ${audioMs}`);
    const it = words.find((x: any) => x.text === 'It');
    assert.ok(Math.abs(it.startMs - 'Our shop opens at nine.'.length * 40) < 50, `second sentence starts after the first's audio (${it.startMs} ms)`);
    await v.close();
  } finally {
    await w.close();
    await speech.close();
  }
});

test.run();
