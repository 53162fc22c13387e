/**
 * Adaptive end of turn in cascade voice, end to end on the fake providers with espeak-ng speech sent in real time
 * (20 ms frames, as the widget sends them): a finished question is answered before 0.8 s of quiet, a visitor who
 * pauses after "I want to" is not cut off, and a reply started on a likely end is retracted when the visitor goes
 * on. Each case is also run with the old fixed pause (adaptive: false) to show the difference. Times are the
 * recorded send time of the last speech frame and the engine's event times.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentPcm, speakInRealTime as play, spokenPcm } from '../helpers/spoken.js';
import { until } from '../helpers/until.js';
import { cascade, openai, useFakes } from './cascade-harness.js';

useFakes(test);
const STREAMED = 'gpt-4o-mini-transcribe';

/** espeak-ng's words with its own quiet before and after cut off, so the last frame of it is speech. */
function words(text: string): Buffer {
  const pcm = spokenPcm(text);
  let first = 0, last = pcm.length / 2 - 1;
  while (first < last && Math.abs(pcm.readInt16LE(first * 2)) < 300) first++;
  while (last > first && Math.abs(pcm.readInt16LE(last * 2)) < 300) last--;
  return pcm.subarray(first * 2, (last + 1) * 2);
}

const chats = () => openai.requests.filter((r) => r.path === '/v1/chat/completions');

async function answered(adaptive: boolean) {
  const c = cascade({ stt: 'openai', sttModel: STREAMED, handsFree: true, opts: { adaptive } });
  await c.engine.connect();
  openai.speech.hear('What time do you open on Saturday?');
  openai.script({ text: 'We open at ten on Saturday.' });
  await play(c.engine, silentPcm(300));
  const endOfSpeech = await play(c.engine, words('What time do you open on Saturday?'));
  const quiet = play(c.engine, silentPcm(1500));
  const turn = await c.until('user_turn');
  const audio = await c.until('audio');
  await quiet;
  assert.is((await c.until('user_transcript')).text, 'What time do you open on Saturday?');
  await c.until('response_done');
  c.engine.close();
  return { turnMs: turn.at - endOfSpeech, audioMs: audio.at - endOfSpeech };
}

test('a finished question is answered before 0.8 s of quiet (the old fixed pause waits it out)', async () => {
  const adaptive = await answered(true);
  const fixed = await answered(false);
  assert.ok(adaptive.turnMs < 800, `adaptive: the turn ended ${adaptive.turnMs} ms after the last word`);
  assert.ok(fixed.turnMs >= 800, `fixed: the turn ended ${fixed.turnMs} ms after the last word`);
  // The same providers answered both: the reply came sooner by the quiet it no longer waited for.
  assert.ok(adaptive.audioMs < fixed.audioMs, `first reply audio ${adaptive.audioMs} ms after the last word (adaptive), ${fixed.audioMs} ms (fixed)`);
});

test('"I want to… [1 s] book a table" is one turn: words that trail off wait longer (the old pause cut it in two)', async () => {
  for (const adaptive of [true, false]) {
    const c = cascade({ stt: 'openai', sttModel: STREAMED, handsFree: true, opts: { adaptive } });
    await c.engine.connect();
    const before = chats().length;
    // Speech to text hears each part the visitor paused after.
    openai.speech.hear('I want to', 'book a table for two.');
    openai.script(adaptive ? { text: 'For two, certainly.' } : [{ text: 'Go on.' }, { text: 'For two, certainly.' }]);
    await play(c.engine, Buffer.concat([silentPcm(300), words('I want to'), silentPcm(1000), words('book a table for two'), silentPcm(1500)]));
    await c.until('response_done', adaptive ? 1 : 2);
    const said = c.all('user_transcript').map((t) => t.text);
    if (adaptive) {
      assert.equal(said, ['I want to book a table for two.']);
      assert.is(c.all('user_turn').length, 1);
      assert.is(chats().length, before + 1, 'the brain was asked once, for the whole sentence');
      assert.is(chats().at(-1)!.body.messages.at(-1).content, 'I want to book a table for two.');
    } else {
      assert.equal(said, ['I want to', 'book a table for two.'], 'the fixed pause answered "I want to"');
    }
    c.engine.close();
  }
});

test('a reply started on a likely end is retracted when the visitor goes on: its request is aborted, nothing of it is said or kept', async () => {
  const c = cascade({ stt: 'openai', sttModel: STREAMED, handsFree: true, opts: { adaptive: true, turn: { probeMs: 96 } } });
  await c.engine.connect();
  const before = chats().length;
  openai.speech.hear('I would like the soup.', 'And a glass of water.');
  openai.script([{ text: 'The soup is on its way.', delayMs: 3000 }, { text: 'Soup and water, coming up.' }]);
  await play(c.engine, Buffer.concat([silentPcm(300), words('I would like the soup')]));
  // The visitor is quiet until the brain has started on "I would like the soup." (a finished sentence), then goes on.
  await play(c.engine, silentPcm(2000), { stopWhen: () => chats().length > before });
  const speculative = chats()[before];
  assert.ok(speculative, 'the brain started during the pause');
  assert.is(speculative.body.messages.at(-1).content, 'I would like the soup.');
  assert.is(c.all('user_turn').length, 0, 'while the visitor could still go on');
  await play(c.engine, Buffer.concat([words('And a glass of water'), silentPcm(1500)]));
  await c.until('response_done');
  await until(() => speculative.aborted, { timeout: 2000, message: 'the speculative request to be aborted' });
  assert.ok(speculative.aborted, 'the speculative request was aborted');
  assert.equal(c.all('user_transcript').map((t) => t.text), ['I would like the soup. And a glass of water.']);
  assert.is(chats().length, before + 2);
  assert.equal(chats().at(-1)!.body.messages.map((m: any) => [m.role, m.content]).slice(1), [['user', 'I would like the soup. And a glass of water.']],
    'the brain saw the whole utterance, and nothing of the retracted reply');
  // Nothing of the retracted reply reached the visitor or the stored conversation: one reply, the second.
  assert.equal(c.all('agent_item_done').map((d) => d.text), ['Soup and water, coming up.']);
  assert.is(c.all('response_done').length, 1);
  // The provider bills the retracted request's input all the same (it read the prompt): its tokens, estimated as it
  // never sent usage, are counted with the reply's own.
  // (The fake records usage when it answers, so the aborted request is measured here as the fake counts tokens.)
  const retracted = Math.ceil(JSON.stringify(speculative.body.messages).length / 4);
  const kept = openai.usages.at(-1)!.inputTokens;
  const counted = c.all('response_done')[0].usage.inputTextTokens;
  assert.ok(counted >= kept + retracted * 0.5 && counted <= kept + retracted * 2,
    `input tokens counted ${counted}: the reply's ${kept} and about the retracted request's ${retracted}`);
  assert.equal(c.all('error'), []);
  c.engine.close();
});

test.run();
