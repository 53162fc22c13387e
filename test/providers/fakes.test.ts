import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createProvider } from '../../src/providers/index.js';
import { startFakeGemini } from '../fakes/gemini.js';
import { startFakeOpenAI } from '../fakes/openai.js';
import { collect, rejection } from './helpers.js';

test('the fake OpenAI also answers without streaming, with tool calls and usage', async () => {
  const fake = await startFakeOpenAI();
  try {
    fake.script({ toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] });
    const res = await fetch(`${fake.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const body = await res.json();
    assert.is(body.choices[0].finish_reason, 'tool_calls');
    assert.equal(body.choices[0].message.tool_calls[0].function, { name: 'lookup', arguments: '{"q":"x"}' });
    assert.is(body.usage.total_tokens, fake.usages[0].inputTokens + fake.usages[0].outputTokens);
  } finally {
    await fake.close();
  }
});

test('a one-shot failure hits only the next matching request', async () => {
  const fake = await startFakeGemini();
  try {
    const gemini = createProvider({ id: 'c', kind: 'gemini', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, { maxRetries: 0 });
    fake.failNext(':batchEmbedContents', 503, 'The model is overloaded.');
    const err = await rejection(gemini.embed!(['a']));
    assert.is(err.status, 502);
    assert.match(err.message, /overloaded/);
    assert.is((await gemini.embed!(['a'])).length, 1);
    const events = await collect(gemini, { model: 'gemini-2.5-flash', system: '', messages: [{ role: 'user', content: 'still fine' }] });
    assert.ok(events.some((e) => e.type === 'text'));
  } finally {
    await fake.close();
  }
});

test('retries ride over a passing overload when the caller allows them', async () => {
  const fake = await startFakeOpenAI();
  try {
    const openai = createProvider({ id: 'c', kind: 'openai', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, { maxRetries: 1 });
    fake.failNext('/embeddings', 503, 'overloaded');
    assert.is((await openai.embed!(['a'])).length, 1);
    assert.is(fake.requests.filter((r) => r.path.endsWith('/embeddings')).length, 2);
  } finally {
    await fake.close();
  }
});

test.run();
