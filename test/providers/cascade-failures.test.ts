import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { quietFor } from '../helpers/until.js';
import { bytesFor, cascade, openai, speech, useFakes } from './cascade-harness.js';

useFakes(test);

const quick = { timeouts: { sttMs: 300, brainMs: 300, ttsMs: 300 } };
const chats = () => openai.requests.filter((r) => r.path === '/v1/chat/completions').length;

test('speech to text failing: the visitor is asked to say it again, nothing is answered, the session goes on', async () => {
  const c = cascade();
  await c.engine.connect();
  openai.failNext('/audio/transcriptions', 500, 'transcriber down');
  const before = chats();
  c.say('Hello?');
  const done = await c.until('response_done');
  assert.is(done.status, 'failed');
  assert.is(c.all('user_transcript')[0].text, '', 'no words, so nothing is stored');
  const err = c.all('error')[0];
  assert.is(err.fatal, false);
  assert.match(err.message, /speech to text \(stt openai\) failed: OpenAI failed \(500\): transcriber down/);
  assert.match(err.line!, /could not make out what you said\. Please say it again, or type your message/);
  assert.is(chats(), before, 'the brain was not asked');
  // The next turn works.
  openai.script({ text: 'Hello there.' });
  c.say('Hello?');
  assert.is((await c.until('response_done', 2)).status, 'completed');
  c.engine.close();
});

test('speech to text that hangs times out, and one that hears nothing is no turn at all', async () => {
  const c = cascade({ opts: quick });
  await c.engine.connect();
  openai.speech.misbehaveNext('/audio/transcriptions', 'hang');
  c.say('Anyone there?');
  await c.until('response_done');
  assert.match(c.all('error')[0].message, /no transcript within 0 s/);
  const before = chats();
  c.say('');
  const done = await c.until('response_done', 2);
  assert.is(done.status, 'completed');
  assert.is(c.all('error').length, 1, 'silence is not an error');
  assert.is(chats(), before);
  c.engine.close();
});

test('the brain failing: a line for the visitor, nothing spoken, and the conversation goes on', async () => {
  const c = cascade();
  await c.engine.connect();
  openai.script({ error: { status: 503, message: 'model overloaded' } });
  c.say('What do you sell?');
  const done = await c.until('response_done');
  assert.is(done.status, 'failed');
  assert.match(c.all('error')[0].message, /the brain \(brain openai\) failed: OpenAI failed \(503\): model overloaded/);
  assert.match(c.all('error')[0].line!, /could not answer that just now/);
  assert.is(c.all('agent_item').length, 0);
  openai.script({ text: 'We sell bicycles.' });
  c.say('What do you sell?');
  await c.until('response_done', 2);
  const messages = openai.lastBody('/chat/completions').messages.map((m: any) => [m.role, m.content]);
  assert.equal(messages.slice(1), [['user', 'What do you sell?'], ['user', 'What do you sell?']], 'both questions kept, no empty answer between');
  assert.is(c.all('agent_item_done')[0].text, 'We sell bicycles.');
  c.engine.close();
});

test('a brain that goes quiet mid-reply times out: what it had said is still spoken', async () => {
  const c = cascade({ opts: quick });
  await c.engine.connect();
  openai.script({ text: ['We open at nine. ', 'And then', ' we close at five.'], chunkIntervalMs: 800 });
  c.say('Opening hours?');
  const done = await c.until('response_done');
  assert.is(done.status, 'failed');
  assert.match(c.all('error')[0].message, /brain openai sent nothing for 0 s/);
  assert.is(c.all('agent_item_done')[0].text, 'We open at nine.');
  assert.is(c.audioBytes(), bytesFor('We open at nine.'));
  c.engine.close();
});

test('speech failing on the first sentence: the whole reply goes on as text, the failure told once', async () => {
  const c = cascade();
  await c.engine.connect();
  openai.failNext('/audio/speech', 500, 'voice down');
  openai.script({ text: 'We open at nine. We close at five.' });
  c.say('Opening hours?');
  const done = await c.until('response_done');
  assert.is(done.status, 'completed');
  const errors = c.all('error');
  assert.is(errors.length, 1);
  assert.match(errors[0].message, /text to speech \(tts openai\) failed: OpenAI failed \(500\): voice down/);
  assert.match(errors[0].line!, /the rest of the reply is shown as text/);
  assert.is(c.all('agent_item_done')[0].text, 'We open at nine. We close at five.');
  assert.equal(c.all('transcript_delta').map((d) => d.delta), ['We open at nine.', ' We close at five.']);
  assert.is(c.audioBytes(), 0);
  c.engine.close();
});

test('speech that stalls mid-sentence or sends nothing fails the same way; the next reply is spoken again', async () => {
  for (const how of ['stall', 'empty'] as const) {
    const c = cascade({ tts: 'speech', opts: quick });
    await c.engine.connect();
    speech.speech.misbehaveNext('/stream', how);
    openai.script({ text: 'One moment. Here it is.' });
    c.say('Show me.');
    await c.until('response_done');
    assert.match(c.all('error')[0].message, how === 'stall' ? /tts speech sent no audio for 0 s/ : /tts speech returned no audio/);
    assert.is(c.all('agent_item_done')[0].text, 'One moment. Here it is.');
    openai.script({ text: 'Back again.' });
    c.say('Hello?');
    await c.until('response_done', 2);
    assert.is(c.audioBytes(c.all('agent_item_done')[1].itemId), bytesFor('Back again.'));
    c.engine.close();
  }
});

test('push-to-talk released at once sends nothing and says why; closing stops a turn under way', async () => {
  const c = cascade();
  await c.engine.connect();
  c.engine.startTurn();
  c.engine.appendAudio(Buffer.alloc(640));
  c.engine.commitTurn();
  assert.match(c.all('error')[0].message, /less than 100 ms/);
  openai.speech.misbehaveNext('/audio/transcriptions', 'hang');
  c.say('Goodbye');
  await c.until('user_turn');
  c.engine.close();
  assert.is(c.events.at(-1)!.type, 'closed');
  await quietFor(50, 'an event after closed'); // must not come: the hung transcription ends with the engine
  assert.is(c.events.at(-1)!.type, 'closed', 'nothing after closed');
});

test('a connection that cannot do its stage fails connect, naming the setting to change', async () => {
  const err = await cascade({ stt: 'gemini' }).engine.connect().catch((e) => e);
  assert.is(err.code, 'invalid');
  assert.match(err.message, /^voice\.cascade\.stt\.connectionId: stt gemini cannot transcribe speech; choose an OpenAI or speech provider connection/);
});

test.run();
