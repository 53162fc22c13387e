import { bareModelId } from './model-info.js';

/** List price in US dollars per million tokens. */
export interface ModelPrice {
  model: string;
  inputPerMillionUsd: number;
  outputPerMillionUsd: number;
}

// Public list prices (standard tier, short prompts) of common models, for cost estimates and
// security.caps.dailyUsd. Models not listed count as free, as bot-config.md says.
const TABLE: Array<[model: string, input: number, output: number]> = [
  ['gpt-4o', 2.5, 10], ['gpt-4o-mini', 0.15, 0.6], ['chatgpt-4o-latest', 5, 15],
  ['gpt-4.1', 2, 8], ['gpt-4.1-mini', 0.4, 1.6], ['gpt-4.1-nano', 0.1, 0.4],
  ['gpt-4-turbo', 10, 30], ['gpt-3.5-turbo', 0.5, 1.5],
  ['gpt-5', 1.25, 10], ['gpt-5-mini', 0.25, 2], ['gpt-5-nano', 0.05, 0.4], ['gpt-5-chat-latest', 1.25, 10],
  ['gpt-5.1', 1.25, 10], ['gpt-5.1-chat-latest', 1.25, 10], ['gpt-5.2', 1.75, 14],
  ['o1', 15, 60], ['o3', 2, 8], ['o3-mini', 1.1, 4.4], ['o4-mini', 1.1, 4.4],
  ['text-embedding-3-small', 0.02, 0], ['text-embedding-3-large', 0.13, 0], ['text-embedding-ada-002', 0.1, 0],
  ['gemini-2.0-flash', 0.1, 0.4], ['gemini-2.0-flash-lite', 0.075, 0.3],
  ['gemini-2.5-flash', 0.3, 2.5], ['gemini-2.5-flash-lite', 0.1, 0.4], ['gemini-2.5-pro', 1.25, 10],
  ['gemini-3-flash', 0.5, 3], ['gemini-3-pro', 2, 12],
  ['gemini-embedding-001', 0.15, 0],
];

export const PRICES: readonly ModelPrice[] = Object.freeze(
  TABLE.map(([model, input, output]) => Object.freeze({ model, inputPerMillionUsd: input, outputPerMillionUsd: output })),
);

/**
 * The price of a model id, matching the longest listed name that the id starts with up to a separator,
 * so dated and preview ids ("gpt-4o-2024-08-06", "gemini-3-pro-preview") and vendor prefixes
 * ("openai/gpt-4o") find their family, while "gpt-5.1" never borrows the price of "gpt-5".
 */
export function priceFor(model: string): ModelPrice | null {
  return familyOf(model, PRICES, (p) => p.model);
}

/** The row whose model name is the longest that the id equals or starts with up to a separator. */
function familyOf<T>(model: string, rows: readonly T[], name: (row: T) => string): T | null {
  const id = bareModelId(model);
  let best: T | null = null;
  for (const row of rows) {
    const n = name(row);
    if (id !== n && !(id.startsWith(n) && /[-:@]/.test(id[n.length]))) continue;
    if (!best || n.length > name(best).length) best = row;
  }
  return best;
}

/** Estimated cost in US dollars; unknown models cost 0. */
export function estimateCostUsd(model: string, usage: { inputTokens: number; outputTokens: number }): number {
  const p = priceFor(model);
  if (!p) return 0;
  return (Math.max(0, usage.inputTokens) * p.inputPerMillionUsd + Math.max(0, usage.outputTokens) * p.outputPerMillionUsd) / 1_000_000;
}

/** Token usage of a voice response split by modality (src/providers/voice-engine.ts). */
export interface VoiceUsage { inputTextTokens: number; inputAudioTokens: number; outputTextTokens: number; outputAudioTokens: number; costUsd?: number }

// Realtime voice models: [model, text in, text out, audio in, audio out], US dollars per million tokens.
const VOICE_TABLE: Array<[string, number, number, number, number]> = [
  ['gpt-realtime', 4, 16, 32, 64], ['gpt-realtime-mini', 0.6, 2.4, 10, 20],
  ['gpt-4o-realtime-preview', 5, 20, 40, 80], ['gpt-4o-mini-realtime-preview', 0.6, 2.4, 10, 20],
  ['gemini-2.5-flash-native-audio', 0.5, 2, 3, 12], ['gemini-live-2.5-flash', 0.5, 2, 3, 12], ['gemini-2.0-flash-live', 0.35, 1.5, 2.1, 8.5],
  // The default Gemini Live model (gemini-live-setup.ts): priced as the newest native-audio Live model.
  ['gemini-3.8-live', 0.5, 2, 3, 12],
];

/**
 * A realtime model not in the list is priced as the dearest one listed (per part), never as free: its spend
 * counts against security.caps.dailyUsd at a price it is unlikely to exceed (docs/voice.md, What it costs).
 */
const UNLISTED_VOICE: [string, number, number, number, number] = ['unlisted', ...([1, 2, 3, 4] as const).map((i) => Math.max(...VOICE_TABLE.map((r) => r[i])))] as [string, number, number, number, number];

/** Estimated cost of a voice response; audio tokens priced apart from text. Unlisted models at the dearest listed price. */
export function estimateVoiceCostUsd(model: string, u: VoiceUsage): number {
  const best = familyOf(model, VOICE_TABLE, (row) => row[0]) ?? UNLISTED_VOICE;
  const [, tin, tout, ain, aout] = best;
  return (u.inputTextTokens * tin + u.outputTextTokens * tout + u.inputAudioTokens * ain + u.outputAudioTokens * aout) / 1_000_000;
}

/**
 * Speech models (cascade voice): speech to text billed by the minute of audio heard; text to speech by the million
 * characters read, or by the minute of audio made (gpt-4o-mini-tts and Gemini speech bill audio tokens, about
 * US$0.015 a minute). Public list prices, US dollars; an unlisted model is priced as the dearest listed one of the
 * same part (speech to text by the minute; speech by the character and by the minute, whichever is dearer).
 */
const SPEECH_TABLE: Array<[model: string, unit: 'audio_minute' | 'million_chars', usd: number]> = [
  ['whisper-1', 'audio_minute', 0.006], ['gpt-4o-transcribe', 'audio_minute', 0.006], ['gpt-4o-mini-transcribe', 'audio_minute', 0.003],
  ['scribe_v1', 'audio_minute', 0.0067], ['scribe_v2', 'audio_minute', 0.0067], ['scribe_v2_realtime', 'audio_minute', 0.0065],
  ['tts-1', 'million_chars', 15], ['tts-1-hd', 'million_chars', 30], ['gpt-4o-mini-tts', 'audio_minute', 0.015],
  ['eleven_flash_v2_5', 'million_chars', 50], ['eleven_turbo_v2_5', 'million_chars', 50], ['eleven_flash_v2', 'million_chars', 50],
  ['eleven_turbo_v2', 'million_chars', 50], ['eleven_multilingual_v2', 'million_chars', 100], ['eleven_v3', 'million_chars', 100],
  ['gemini-2.5-flash-preview-tts', 'audio_minute', 0.015], ['gemini-2.5-pro-preview-tts', 'audio_minute', 0.03],
];

/** Estimated cost of one speech request: `seconds` of audio heard or made, `characters` of text read. */
export function estimateSpeechCostUsd(model: string, use: { seconds?: number; characters?: number }): number {
  const best = familyOf(model, SPEECH_TABLE, (row) => row[0]);
  if (!best) {
    const dearest = (unit: 'audio_minute' | 'million_chars') => Math.max(...SPEECH_TABLE.filter((r) => r[1] === unit).map((r) => r[2]));
    // Speech to text is billed by the minute heard (no characters); speech by what it made, whichever unit is dearer.
    return Math.max((Math.max(0, use.seconds ?? 0) / 60) * dearest('audio_minute'), (Math.max(0, use.characters ?? 0) * dearest('million_chars')) / 1_000_000);
  }
  return best[1] === 'audio_minute' ? (Math.max(0, use.seconds ?? 0) / 60) * best[2] : (Math.max(0, use.characters ?? 0) * best[2]) / 1_000_000;
}
