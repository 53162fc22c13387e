/**
 * Streaming speech to text for kind B in cascade voice: with an OpenAI transcription model, the turn's audio goes to
 * a Realtime transcription session (the SDK's socket, ?intent=transcription) while the visitor speaks, and only the
 * final words are awaited when Silero ends the turn; a failed transcription names the stage, a dropped or refused
 * session falls back to uploading the turn.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { streamsSpeech } from '../../src/providers/stt-stream.js';
import { silentPcm, speakInRealTime as speak, spokenBytes, spokenPcm } from '../helpers/spoken.js';
import { until } from '../helpers/until.js';
import { adapter, cascade, openai, useFakes } from './cascade-harness.js';

useFakes(test);
const OPTS = { timeouts: { sttMs: 2000, brainMs: 2000, ttsMs: 2000 }, allowPrivateNetwork: true };
const QUESTION = 'What time do you open on Saturday?';

/** A hands-free engine with this transcription model, the visitor's question and the brain's answer scripted. */
async function asked(sttModel: string, handsFree = true) {
  const c = cascade({ stt: 'openai', sttModel, handsFree, opts: OPTS });
  await c.engine.connect();
  openai.speech.hear(QUESTION);
  openai.script({ text: 'We open at ten on Saturday.' });
  return c;
}

const uploads = () => openai.requests.filter((r) => r.path === '/v1/audio/transcriptions').length;
const chats = () => openai.requests.filter((r) => r.path === '/v1/chat/completions').length;

test('the gpt-4o transcribe models stream; whisper-1 and names the Realtime API does not know are uploaded whole', () => {
  const b = adapter('openai');
  for (const m of ['gpt-4o-mini-transcribe', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe-2025-12-15', 'gpt-realtime-whisper']) assert.ok(streamsSpeech(b, m), m);
  for (const m of ['whisper-1', 'my-gateway-transcriber', 'gpt-4o-mini', 'gpt-realtime']) assert.not.ok(streamsSpeech(b, m), m);
});

test('hands-free with gpt-4o-mini-transcribe: the audio reaches OpenAI as it is spoken and only the final words are awaited', async () => {
  const c = await asked('gpt-4o-mini-transcribe');
  const before = { uploads: uploads(), sessions: openai.realtime.transcriptions.length };
  const words = spokenPcm(QUESTION);
  await speak(c.engine, Buffer.concat([words, silentPcm(1200)]));
  const turn = await c.until('user_turn');
  const heard = await c.until('user_transcript');
  assert.is(heard.text, QUESTION);
  await c.until('response_done');
  assert.ok(c.audioBytes() > 0, 'the reply was spoken');
  assert.is(openai.realtime.transcriptions.length, before.sessions + 1, 'one transcription session for the turn');
  const session = openai.realtime.transcriptions.at(-1)!;
  const input = session.session.audio.input;
  assert.equal([session.session.type, input.format, input.transcription, input.turn_detection],
    ['transcription', { type: 'audio/pcm', rate: 24000 }, { model: 'gpt-4o-mini-transcribe', language: 'en' }, null]);
  // Most of the speech reached OpenAI half a second or more before the turn ended, at 24 kHz (1.5 times the bytes).
  const early = session.appendTimes.filter((t) => t <= turn.at - 500).length;
  assert.ok(early >= 20, `${early} appends arrived half a second or more before the end of the turn`);
  assert.ok(session.bytes >= spokenBytes(words) * 1.5, `${session.bytes} bytes at 24 kHz for ${spokenBytes(words)} bytes of speech at 16 kHz`);
  // The words were asked for at the pause after the question, before the turn ended (adaptive end of turn).
  assert.ok(session.committedAt! <= turn.at, 'the commit came at the pause');
  assert.ok(heard.at - turn.at < 500, `the words came ${heard.at - turn.at} ms after the end of the turn`);
  assert.is(uploads(), before.uploads, 'nothing was uploaded in one piece');
  assert.is(openai.lastBody('/chat/completions').messages.at(-1).content, QUESTION);
  await until(() => !session.open, { message: 'the transcription session closed once the words are back' });
  c.engine.close();
});

test('push-to-talk streams too: the audio under the held button goes out as it comes and the release commits it', async () => {
  const c = await asked('gpt-4o-mini-transcribe', false);
  const before = { uploads: uploads(), sessions: openai.realtime.transcriptions.length };
  c.engine.startTurn();
  // The visitor starts speaking once the transcription session is set up (a moment after the press, as people do).
  await until(() => openai.realtime.transcriptions[before.sessions]?.session.audio.input.transcription, { message: 'the transcription session set up (its session.update)' });
  const words = spokenPcm(QUESTION);
  await speak(c.engine, words);
  const session = openai.realtime.transcriptions[before.sessions];
  assert.ok(session.bytes >= words.length * 1.4, `${session.bytes} bytes had arrived before the release`);
  c.engine.commitTurn();
  assert.is((await c.until('user_transcript')).text, QUESTION);
  await c.until('response_done');
  assert.ok(session.committedAt !== null);
  assert.is(uploads(), before.uploads, 'nothing was uploaded');
  c.engine.close();
});

test('a transcription OpenAI fails names the speech-to-text stage, tells the visitor, and asks the brain nothing', async () => {
  const c = cascade({ stt: 'openai', sttModel: 'gpt-4o-mini-transcribe', handsFree: true, opts: OPTS });
  await c.engine.connect();
  openai.realtime.failTranscriptionNext('Audio could not be transcribed.');
  const before = { uploads: uploads(), chats: chats() };
  await speak(c.engine, Buffer.concat([spokenPcm('Hello there, is anyone around?'), silentPcm(1200)]));
  const failed = await c.until('error');
  assert.equal([failed.stage, failed.fatal], ['stt', false]);
  assert.match(failed.message, /speech to text \(stt openai\) failed: OpenAI's realtime transcription failed: Audio could not be transcribed\. \(audio_unintelligible\)/);
  assert.match(failed.line!, /could not make out what you said/);
  assert.is((await c.until('user_transcript')).text, '');
  await c.until('response_done');
  assert.equal([uploads(), chats()], [before.uploads, before.chats], 'no upload, no brain');
  c.engine.close();
});

test('the transcription socket dropping mid-turn: the turn is uploaded whole and answered, and the break is reported to the log', async () => {
  const c = await asked('gpt-4o-mini-transcribe');
  const before = { uploads: uploads(), sessions: openai.realtime.transcriptions.length };
  let dropped = false;
  await speak(c.engine, Buffer.concat([spokenPcm(QUESTION), silentPcm(1200)]), { onFrame: () => {
    const s = openai.realtime.transcriptions[before.sessions];
    if (!dropped && s && s.appendTimes.length >= 10) { dropped = true; openai.realtime.closeAll(1011); }
  } });
  assert.ok(dropped, 'the socket was dropped while the visitor spoke');
  assert.is((await c.until('user_transcript')).text, QUESTION);
  await c.until('response_done');
  assert.is(uploads(), before.uploads + 1, 'the turn was uploaded');
  const broke = c.all('error');
  assert.is(broke.length, 1);
  assert.equal([broke[0].stage, broke[0].fatal, broke[0].line], ['stt', false, undefined], 'nothing for the visitor to read: the answer came');
  assert.match(broke[0].message, /streaming speech to text \(stt openai\) broke, so its audio was uploaded instead: OpenAI's realtime transcription closed before the words came back \(1011/);
  assert.is(openai.lastBody('/chat/completions').messages.at(-1).content, QUESTION);
  c.engine.close();
});

test('a model the Realtime API refuses: the session error is reported and the turn is uploaded instead', async () => {
  const c = await asked('gpt-4o-transcribe-latest');
  const before = uploads();
  await speak(c.engine, Buffer.concat([spokenPcm(QUESTION), silentPcm(1200)]));
  assert.is((await c.until('user_transcript')).text, QUESTION);
  await c.until('response_done');
  assert.is(uploads(), before + 1);
  assert.match(c.all('error')[0].message, /refused the session: Invalid value: 'gpt-4o-transcribe-latest'.*\(session\.audio\.input\.transcription\.model\)/);
  assert.is(openai.lastBody('/audio/transcriptions').model, 'gpt-4o-transcribe-latest', 'the upload uses the same model');
  c.engine.close();
});

test('a transcription socket still connecting when the turn ends is given up: the turn is uploaded at once', async () => {
  const c = await asked('gpt-4o-mini-transcribe');
  openai.realtime.transcriptionHandshakeMs = 5000;
  try {
    const before = uploads();
    await speak(c.engine, Buffer.concat([spokenPcm(QUESTION), silentPcm(1200)]));
    const turn = await c.until('user_turn');
    const heard = await c.until('user_transcript');
    assert.is(heard.text, QUESTION);
    assert.ok(heard.at - turn.at < 1000, `the words came ${heard.at - turn.at} ms after the turn, not after the handshake`);
    assert.is(uploads(), before + 1);
    assert.match(c.all('error')[0].message, /uploaded instead: OpenAI's realtime transcription was still connecting when its words were wanted/);
    await c.until('response_done');
  } finally {
    openai.realtime.transcriptionHandshakeMs = 0;
    c.engine.close();
  }
});

test('closing the session while the visitor speaks closes its transcription socket', async () => {
  const c = cascade({ stt: 'openai', sttModel: 'gpt-4o-mini-transcribe', handsFree: true, opts: OPTS });
  await c.engine.connect();
  const before = openai.realtime.transcriptions.length;
  await speak(c.engine, spokenPcm('And another thing'));
  await c.until('speech_started');
  const session = await until(() => openai.realtime.transcriptions[before], { message: 'a transcription session opened when speech started' });
  c.engine.close();
  await until(() => !session.open, { message: 'the transcription session closed with the engine' });
});

test.run();
