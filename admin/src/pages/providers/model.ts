/** Provider shapes (GET /providers/catalog, /providers, /providers/{id}/models and /voices) and what each kind gives, in words. */
export type Kind = 'openai_compatible' | 'openai' | 'gemini' | 'speech';
export type Letter = 'A' | 'B' | 'C' | 'D';

export interface CatalogEntry {
  kind: Kind; letter: Letter; label: string; needsBaseUrl: boolean; defaultBaseUrl: string | null; docsHint: string;
  capabilities: { text: boolean; embeddings: boolean; stt: boolean; tts: boolean; realtimeVoice: boolean; hostedAgent: boolean };
}
export interface Connection { id: string; kind: Kind; letter: Letter; name: string; baseUrl: string | null; keyHint: string; createdAt: number; updatedAt: number }
export interface Model { id: string; label: string; capabilities: Record<'text' | 'vision' | 'tools' | 'reasoning' | 'embeddings' | 'tts' | 'stt' | 'realtime', boolean> }
export interface Models { items: Model[]; recommended: string | null; cachedAt: number }
export interface Voice { id: string; name: string; language?: string; previewUrl: string }

/** The words a person reads for each capability flag of the catalog. */
export const GIVES: Array<[keyof CatalogEntry['capabilities'], string]> = [
  ['text', 'Chat replies'], ['embeddings', 'Knowledge search'], ['stt', 'Speech to text'], ['tts', 'Voices'],
  ['realtimeVoice', 'Realtime voice'], ['hostedAgent', 'Hosted voice agents'],
];

/** A short line per kind for the catalog tiles (the server's docsHint follows it). */
export const BLURB: Record<Kind, string> = {
  openai: 'GPT models for chat, plus speech and realtime voice. The quickest start.',
  gemini: 'Gemini models for chat, plus voices and live voice.',
  openai_compatible: 'Your own or a hosted server: Ollama, LM Studio, vLLM, OpenRouter, Groq, Together and others.',
  speech: 'Natural voices, speech to text and hosted voice agents (ElevenLabs API). Add it next to a chat provider.',
};

/** Kinds whose connection can drive a bot's replies (bot-config.md: brain.connectionId is kind A, B or C). */
/** Letters (bot-config.md Conventions 6) of the providers that offer voices: every kind but the text-only A. */
export const VOICE_LETTERS: readonly Letter[] = ['B', 'C', 'D'];
export const canChat = (c: { letter: Letter }) => c.letter !== 'D';

/** Models a bot can chat with: text models that are not only embeddings, speech or realtime. */
export const chatModels = (m: Models | null): Model[] =>
  (m?.items ?? []).filter((x) => x.capabilities.text && !x.capabilities.embeddings && !x.capabilities.tts && !x.capabilities.stt);
