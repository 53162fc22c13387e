import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/kernel/errors.js';
import { catalog, createProvider, estimateCostUsd, priceFor } from '../../src/providers/index.js';
import { GEMINI_DEFAULTS } from '../../src/providers/gemini.js';
import { GEMINI_LIVE_DEFAULTS } from '../../src/providers/gemini-live-setup.js';
import { OPENAI_DEFAULTS } from '../../src/providers/openai.js';
import { estimateSpeechCostUsd, estimateVoiceCostUsd } from '../../src/providers/prices.js';
import { OPENAI_REALTIME_DEFAULTS } from '../../src/providers/realtime-openai-wire.js';
import { SPEECH_DEFAULTS } from '../../src/providers/speech.js';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} != ${b}`);

test('the cost of a known model follows its list price per million tokens', () => {
  close(estimateCostUsd('gpt-4o-mini', { inputTokens: 1_000_000, outputTokens: 1_000_000 }), 0.75);
  close(estimateCostUsd('gemini-2.5-flash', { inputTokens: 2000, outputTokens: 1000 }), (2000 * 0.3 + 1000 * 2.5) / 1e6);
});

test('dated, preview and vendor-prefixed ids find their family price', () => {
  assert.is(priceFor('gpt-4o-2024-08-06')?.model, 'gpt-4o');
  assert.is(priceFor('gpt-4o-mini-2024-07-18')?.model, 'gpt-4o-mini');
  assert.is(priceFor('openai/gpt-4.1-mini')?.model, 'gpt-4.1-mini');
  assert.is(priceFor('gemini-3-pro-preview')?.model, 'gemini-3-pro');
  assert.is(priceFor('gemini-2.5-flash-lite')?.model, 'gemini-2.5-flash-lite');
});

test('a newer version never borrows the price of an older one', () => {
  assert.is(priceFor('gpt-5.2')?.model, 'gpt-5.2');
  assert.is(priceFor('gpt-5.9'), null);
});

test('unknown models count as free', () => {
  assert.is(estimateCostUsd('llama3.1:8b', { inputTokens: 5000, outputTokens: 5000 }), 0);
});

test('the catalog lists the four kinds, and only kind A asks for a base URL', () => {
  const entries = catalog();
  assert.equal(entries.map((e) => [e.letter, e.kind, e.needsBaseUrl]), [
    ['A', 'openai_compatible', true], ['B', 'openai', false], ['C', 'gemini', false], ['D', 'speech', false],
  ]);
  assert.ok(entries[3].capabilities.hostedAgent && !entries[3].capabilities.text);
  assert.ok(entries.every((e) => e.docsHint.length > 20));
});

test('a base URL must be plain http(s) without credentials', () => {
  for (const baseUrl of ['ftp://x.example', 'not a url', 'https://user:pw@x.example/v1']) {
    try {
      createProvider({ id: 'x', kind: 'openai', apiKey: 'k', baseUrl });
      assert.unreachable(baseUrl);
    } catch (err) {
      assert.instance(err, ApiError);
      assert.match((err as ApiError).message, /^baseUrl: /);
    }
  }
});

test('speech is priced by the minute heard or made, or by the characters read', () => {
  assert.ok(Math.abs(estimateSpeechCostUsd('gpt-4o-mini-transcribe', { seconds: 60 }) - 0.003) < 1e-9);
  assert.ok(Math.abs(estimateSpeechCostUsd('eleven_flash_v2_5', { characters: 1000, seconds: 60 }) - 0.05) < 1e-9);
  assert.ok(Math.abs(estimateSpeechCostUsd('tts-1-hd', { characters: 1_000_000 }) - 30) < 1e-9);
  assert.ok(Math.abs(estimateSpeechCostUsd('gemini-2.5-flash-preview-tts', { seconds: 120, characters: 50 }) - 0.03) < 1e-9);
});

const near = (a: number, b: number) => Math.abs(a - b) < 1e-9;

test('every default voice model has its own price; an unlisted one counts at the dearest listed price, never as free', () => {
  const audioOut = { inputTextTokens: 0, outputTextTokens: 0, inputAudioTokens: 0, outputAudioTokens: 1_000_000 };
  assert.ok(near(estimateVoiceCostUsd(OPENAI_REALTIME_DEFAULTS.model, audioOut), 64));
  assert.ok(near(estimateVoiceCostUsd(GEMINI_LIVE_DEFAULTS.model, audioOut), 12), 'the default Gemini Live model is priced');
  // Unlisted: the dearest listed realtime price (gpt-4o-realtime-preview's US$80 a million audio tokens out).
  assert.ok(near(estimateVoiceCostUsd('some-new-live-model', audioOut), 80));
  assert.ok(near(estimateSpeechCostUsd(OPENAI_DEFAULTS.sttModel, { seconds: 60 }), 0.003));
  assert.ok(near(estimateSpeechCostUsd(SPEECH_DEFAULTS.sttModel, { seconds: 60 }), 0.0067));
  assert.ok(near(estimateSpeechCostUsd(OPENAI_DEFAULTS.ttsModel, { seconds: 60, characters: 900 }), 0.015));
  assert.ok(near(estimateSpeechCostUsd(SPEECH_DEFAULTS.ttsModel, { seconds: 60, characters: 1000 }), 0.05));
  assert.ok(near(estimateSpeechCostUsd(GEMINI_DEFAULTS.ttsModel, { seconds: 60, characters: 900 }), 0.015));
  // Unlisted speech: the dearer of the dearest per-minute price (US$0.03) and per-character price (US$100 a million).
  assert.ok(near(estimateSpeechCostUsd('some-local-tts', { seconds: 60, characters: 100 }), 0.03));
  assert.ok(near(estimateSpeechCostUsd('some-local-tts', { seconds: 10, characters: 1000 }), 0.1));
});

test.run();
