import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RATES, audioBytes, seen, speak, startVoice, startVoiceWorld, until } from './world.js';

const R = RATES.gemini;
const live = (w: { fake: unknown }) => (w.fake as { live: any }).live;

test('Gemini Live: a whole spoken turn at 16 kHz in and 24 kHz out, stored as voice with transcripts both ways', async () => {
  const w = await startVoiceWorld({ kind: 'gemini', config: { identity: { languagePolicy: 'fixed', language: 'de' } } });
  try {
    live(w).hear('Wann habt ihr geöffnet?');
    w.fake.script({ text: 'Wir haben von neun bis fünf geöffnet.' });
    const v = await w.visitor();
    const started = await startVoice(v);
    assert.is(started.inputRate, 16_000);
    assert.is(started.outputRate, 24_000);
    const setup = live(w).setups[0];
    assert.ok(JSON.stringify(setup).includes('inputAudioTranscription'), 'input transcription on');
    assert.ok(JSON.stringify(setup).includes('"de'), 'the fixed language is passed to the engine');
    speak(v, R.input);
    const item = await seen(v, 'voice_item');
    await until(() => audioBytes(v) > 0, { timeout: 5000, message: 'audio' });
    v.send({ t: 'voice_played', itemId: item.itemId, ms: 60_000 });
    const reply = await seen(v, 'message', (f) => f.message.id === item.messageId);
    assert.is(reply.message.text, 'Wir haben von neun bis fünf geöffnet.');
    assert.is(reply.message.modality, 'voice');
    const user = await seen(v, 'message', (f) => f.message.role === 'user');
    assert.is(user.message.text, 'Wann habt ihr geöffnet?');
    assert.ok(user.message.seq < reply.message.seq, 'the visitor turn is stored before the answer');
    await v.close();
  } finally {
    await w.close();
  }
});

test('Gemini Live: barge-in stops playback and the stored answer is cut to what was played', async () => {
  const w = await startVoiceWorld({ kind: 'gemini' });
  try {
    live(w).hear('Tell me everything', 'Stop');
    w.fake.script([{ text: 'We sell garden tools, kitchen gadgets, lamps, chairs, tables and a great many other things for your home.' }, { text: 'Okay.' }]);
    live(w).chunkIntervalMs = 60;
    const v = await w.visitor();
    await startVoice(v);
    speak(v, R.input);
    const item = await seen(v, 'voice_item');
    await until(() => audioBytes(v) >= R.output * 2 * 0.5, { timeout: 5000, message: 'half a second of audio' });
    speak(v, R.input, 400);
    const interrupt = await seen(v, 'voice_interrupt');
    assert.is(interrupt.itemId, item.itemId);
    v.send({ t: 'voice_played', itemId: item.itemId, ms: 300 });
    const cut = await seen(v, 'message', (f) => f.message.id === item.messageId);
    assert.ok(cut.message.text.endsWith('…'), cut.message.text);
    assert.ok(cut.message.text.length < 40, cut.message.text);
    await v.close();
  } finally {
    await w.close();
  }
});

test('Gemini Live: a tool call runs on the server and the answer continues', async () => {
  const w = await startVoiceWorld({ kind: 'gemini' });
  try {
    live(w).hear('Look happy');
    w.fake.script([{ toolCalls: [{ name: 'express', arguments: { mood: 'happy' } }] }, { text: 'Here is my happy face.' }]);
    const v = await w.visitor();
    await startVoice(v);
    speak(v, R.input);
    assert.is((await seen(v, 'face')).mood, 'happy');
    const item = await seen(v, 'voice_item');
    await until(() => audioBytes(v) > 0, { timeout: 5000, message: 'audio' });
    v.send({ t: 'voice_played', itemId: item.itemId, ms: 60_000 });
    const reply = await seen(v, 'message', (f) => f.message.id === item.messageId);
    assert.is(reply.message.text, 'Here is my happy face.');
    await v.close();
  } finally {
    await w.close();
  }
});

test.run();
