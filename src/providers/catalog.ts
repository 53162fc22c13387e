import { GEMINI_BASE_URL } from './gemini.js';
import { OPENAI_BASE_URL } from './openai.js';
import { SPEECH_BASE_URL } from './speech.js';
import type { ProviderKind } from './types.js';

/** One connectable service, as GET /providers/catalog lists it. */
export interface CatalogEntry {
  kind: ProviderKind;
  letter: 'A' | 'B' | 'C' | 'D';
  label: string;
  needsBaseUrl: boolean;
  /** Used when a connection gives no baseUrl; null when the user must give one. */
  defaultBaseUrl: string | null;
  capabilities: {
    text: boolean;
    embeddings: boolean;
    stt: boolean;
    tts: boolean;
    realtimeVoice: boolean;
    hostedAgent: boolean;
  };
  docsHint: string;
}

const none = { text: false, embeddings: false, stt: false, tts: false, realtimeVoice: false, hostedAgent: false };

const ENTRIES: readonly CatalogEntry[] = Object.freeze([
  {
    kind: 'openai_compatible', letter: 'A', label: 'OpenAI-compatible server', needsBaseUrl: true, defaultBaseUrl: null,
    capabilities: { ...none, text: true, embeddings: true },
    docsHint: 'Any server speaking the OpenAI Chat Completions API (Ollama, vLLM, LM Studio, OpenRouter...). Base URL ends in /v1, e.g. http://localhost:11434/v1 (an address on this machine or your network needs the server started with ALLOW_PRIVATE_NETWORK=true); the key may be any text if the server needs none.',
  },
  {
    kind: 'openai', letter: 'B', label: 'OpenAI', needsBaseUrl: false, defaultBaseUrl: OPENAI_BASE_URL,
    capabilities: { ...none, text: true, embeddings: true, stt: true, tts: true, realtimeVoice: true },
    docsHint: 'An OpenAI API key (sk-...) from platform.openai.com, API keys. Gives text models, embeddings, speech to text, text to speech and realtime voice.',
  },
  {
    kind: 'gemini', letter: 'C', label: 'Google Gemini', needsBaseUrl: false, defaultBaseUrl: GEMINI_BASE_URL,
    capabilities: { ...none, text: true, embeddings: true, tts: true, realtimeVoice: true },
    docsHint: 'A Gemini API key from Google AI Studio (aistudio.google.com, Get API key). Gives text models, embeddings, text to speech and live voice.',
  },
  {
    kind: 'speech', letter: 'D', label: 'Speech provider (ElevenLabs-compatible)', needsBaseUrl: false, defaultBaseUrl: SPEECH_BASE_URL,
    capabilities: { ...none, stt: true, tts: true, hostedAgent: true },
    docsHint: 'An API key of a speech provider with the ElevenLabs HTTP API (profile, API keys). Gives voices, text to speech, speech to text and hosted voice agents.',
  },
].map((e) => Object.freeze(e)) as CatalogEntry[]);

export function catalog(): readonly CatalogEntry[] {
  return ENTRIES;
}

export function catalogEntry(kind: ProviderKind): CatalogEntry {
  const entry = ENTRIES.find((e) => e.kind === kind);
  if (!entry) throw new Error(`unknown provider kind ${kind}`);
  return entry;
}
