import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createProvider } from '../../src/providers/index.js';
import { startFakeSpeech } from '../fakes/speech.js';

test('the speech provider streams speech with the timing of each character it says (stream/with-timestamps)', async () => {
  const fake = await startFakeSpeech();
  try {
    const adapter = createProvider({ id: 'p1', kind: 'speech', apiKey: fake.apiKey, baseUrl: fake.baseUrl });
    const text = 'Hello there. Bye.';
    const chunks = [];
    for await (const c of adapter.synthesizeStreamAligned!(text, { voice: 'voice_rachel' })) chunks.push(c);
    assert.ok(chunks.length > 1, 'several chunks');
    assert.ok(chunks.every((c) => c.pcm.length % 2 === 0), 'whole samples');
    const said = chunks.map((c) => c.alignment?.characters.join('') ?? '').join('');
    assert.is(said, text);
    const starts = chunks.flatMap((c) => c.alignment?.starts ?? []);
    assert.ok(starts.every((s, i) => i === 0 || s >= starts[i - 1]), 'times only grow');
    // 40 ms a character in the fake: the audio lasts as long as the characters say.
    const seconds = chunks.reduce((n, c) => n + c.pcm.length, 0) / 48_000;
    assert.ok(Math.abs(seconds - text.length * 0.04) < 0.11, `${seconds} s`);
  } finally {
    await fake.close();
  }
});

test('a refused voice is the provider\'s error, before any audio', async () => {
  const fake = await startFakeSpeech();
  try {
    const adapter = createProvider({ id: 'p1', kind: 'speech', apiKey: fake.apiKey, baseUrl: fake.baseUrl });
    let err: Error | null = null;
    try {
      for await (const _ of adapter.synthesizeStreamAligned!('Hi.', { voice: 'nobody' })) { /* none */ }
    } catch (e) { err = e as Error; }
    assert.match(String(err?.message), /voice_id nobody was not found/);
  } finally {
    await fake.close();
  }
});

test.run();
