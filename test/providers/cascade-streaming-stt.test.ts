/**
 * Streaming speech to text in cascade voice: with the speech provider's realtime model (kind D), the turn's audio
 * goes to the provider's realtime socket while the visitor speaks, and the final words are asked for when Silero
 * ends the turn, instead of uploading the finished turn.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentPcm, speakInRealTime as speak, spokenBytes, spokenPcm } from '../helpers/spoken.js';
import { until } from '../helpers/until.js';
import { cascade, openai, speech, useFakes } from './cascade-harness.js';

useFakes(test);
const OPTS = { timeouts: { sttMs: 2000, brainMs: 2000, ttsMs: 2000 }, allowPrivateNetwork: true };

test('hands-free with a realtime model: the audio is transcribed as it is spoken and the words come back at the end of the turn', async () => {
  const c = cascade({ stt: 'speech', sttModel: 'scribe_v2_realtime', handsFree: true, opts: OPTS });
  await c.engine.connect();
  speech.speech.hear('What time do you open on Saturday?');
  openai.script({ text: 'We open at ten on Saturday.' });
  const uploads = speech.requests.filter((r) => r.path === '/v1/speech-to-text').length;
  const words = spokenPcm('What time do you open on Saturday?');
  await speak(c.engine, Buffer.concat([words, silentPcm(1200)]));
  const turn = await c.until('user_turn');
  const heard = await c.until('user_transcript');
  assert.is(heard.text, 'What time do you open on Saturday?');
  await c.until('response_done');
  const [socket] = speech.realtimeStt.sockets.slice(-1);
  assert.equal([socket.query.model_id, socket.query.audio_format, socket.query.commit_strategy, socket.query.language_code], ['scribe_v2_realtime', 'pcm_16000', 'manual', 'en']);
  // Most of the speech reached the provider before the turn ended; the commit came once it had.
  const early = socket.chunkTimes.filter((t) => t <= turn.at - 500).length;
  assert.ok(early >= 20, `${early} chunks arrived half a second or more before the end of the turn`);
  assert.ok(socket.bytes >= spokenBytes(words), 'the whole question was streamed (with the audio kept from before speech was detected)');
  // The words were asked for at the pause after the question, before the turn ended (adaptive end of turn).
  assert.ok(socket.committedAt! <= turn.at, 'the commit came at the pause');
  assert.is(speech.requests.filter((r) => r.path === '/v1/speech-to-text').length, uploads, 'nothing was uploaded in one piece');
  assert.is(openai.lastBody('/chat/completions').messages.at(-1).content, 'What time do you open on Saturday?');
  await until(() => socket.closed, { message: 'the realtime speech socket closed once the words are back' });
  c.engine.close();
});

test('the realtime transcription failing tells the visitor and answers nothing; closing the session mid-turn closes its socket', async () => {
  const c = cascade({ stt: 'speech', sttModel: 'scribe_v2_realtime', handsFree: true, opts: OPTS });
  await c.engine.connect();
  speech.realtimeStt.failNext('Quota exceeded for this API key.');
  const chats = openai.requests.filter((r) => r.path === '/v1/chat/completions').length;
  await speak(c.engine, Buffer.concat([spokenPcm('Hello there, is anyone around?'), silentPcm(1200)]));
  const failed = await c.until('error');
  assert.equal([failed.stage, failed.fatal], ['stt', false]);
  assert.match(failed.message, /Quota exceeded for this API key/);
  assert.match(failed.line!, /could not make out what you said/);
  assert.is((await c.until('user_transcript')).text, '');
  await c.until('response_done');
  assert.is(openai.requests.filter((r) => r.path === '/v1/chat/completions').length, chats, 'the brain was not asked');
  // The next turn opens a new socket; the session ends while the visitor is still speaking.
  const before = speech.realtimeStt.sockets.length;
  await speak(c.engine, spokenPcm('And another thing'));
  await c.until('speech_started', 2);
  assert.is(speech.realtimeStt.sockets.length, before + 1);
  c.engine.close();
  await until(() => speech.realtimeStt.sockets.at(-1)!.closed, { message: 'the realtime speech socket closed with the engine' });
});

test('push-to-talk with a realtime model streams the held button\'s audio and commits it on release', async () => {
  const c = cascade({ stt: 'speech', sttModel: 'scribe_v2_realtime', opts: OPTS });
  await c.engine.connect();
  openai.script({ text: 'Yes, we do.' });
  const before = { sockets: speech.realtimeStt.sockets.length, uploads: speech.requests.filter((r) => r.path === '/v1/speech-to-text').length };
  c.say('Do you deliver?');
  assert.is((await c.until('user_transcript')).text, 'Do you deliver?');
  await c.until('response_done');
  const socket = speech.realtimeStt.sockets[before.sockets];
  assert.ok(socket && socket.bytes === 400 * 32 && socket.committedAt !== null, 'the 400 ms went to the realtime socket, then the commit');
  assert.is(speech.requests.filter((r) => r.path === '/v1/speech-to-text').length, before.uploads, 'nothing was uploaded');
  c.engine.close();
});

test.run();
