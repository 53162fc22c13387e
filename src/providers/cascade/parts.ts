/**
 * What a cascade voice engine is made of (bot-config.md, voice.cascade): a speech-to-text adapter (kind B or D),
 * the brain (any text adapter, kind A, B or C, with the bot's model and settings) and a text-to-speech adapter
 * (kind D, B or C). The caller (src/voice/voice-setup.ts) builds the adapters; models left empty are named here,
 * so usage is priced for the model that ran.
 */
import { GEMINI_DEFAULTS } from '../gemini.js';
import { OPENAI_DEFAULTS } from '../openai.js';
import { SPEECH_DEFAULTS } from '../speech.js';
import type { Effort, ProviderAdapter, ProviderKind } from '../types.js';

export interface CascadeParts {
  stt: { adapter: ProviderAdapter; label: string; model: string; /** Two-letter hint, or null: the provider detects it. */ language: string | null };
  brain: { adapter: ProviderAdapter; label: string; model: string; effort: Effort; temperature: number | null; maxToolRounds: number };
  tts: { adapter: ProviderAdapter; label: string; model: string; /** Empty: the provider's default voice. */ voice: string; speed: number; style: string };
}

/** The speech models a connection uses when the bot names none. */
export function defaultSpeechModels(kind: ProviderKind): { stt: string; tts: string } {
  switch (kind) {
    case 'openai': return { stt: OPENAI_DEFAULTS.sttModel, tts: OPENAI_DEFAULTS.ttsModel };
    case 'gemini': return { stt: '', tts: GEMINI_DEFAULTS.ttsModel };
    case 'speech': return { stt: SPEECH_DEFAULTS.sttModel, tts: SPEECH_DEFAULTS.ttsModel };
    default: return { stt: '', tts: '' };
  }
}

/** Time limits of the stages: without a word from the provider for this long, the stage has failed. */
export interface CascadeTimeouts {
  /** The whole transcription of one turn. */
  sttMs: number;
  /** The brain's first text, and any gap in its stream (reasoning models think before they write). */
  brainMs: number;
  /** A sentence's first audio, and any gap in its stream. */
  ttsMs: number;
}

export const CASCADE_TIMEOUTS: Readonly<CascadeTimeouts> = Object.freeze({ sttMs: 15_000, brainMs: 30_000, ttsMs: 15_000 });
