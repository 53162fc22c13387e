/**
 * The provider port: what the rest of the server may ask of a model/voice provider.
 * Kinds follow bot-config.md: A openai_compatible, B openai, C gemini, D speech.
 * Adapters live beside this file; only they import `openai` / `@google/genai`.
 */
export type ProviderKind = 'openai_compatible' | 'openai' | 'gemini' | 'speech';

export interface ProviderConnection {
  id: string;
  kind: ProviderKind;
  apiKey: string;
  /** Required for kind A; optional elsewhere (gateways, and tests pointing at fakes). */
  baseUrl?: string | null;
}

export interface ModelCapabilities {
  text: boolean;
  vision: boolean;
  tools: boolean;
  reasoning: boolean;
  embeddings: boolean;
  tts: boolean;
  stt: boolean;
  /** A realtime (speech-to-speech) voice model, for voice.realtime.model. */
  realtime: boolean;
}

export interface ModelInfo {
  id: string;
  label: string;
  capabilities: ModelCapabilities;
}

export interface VoiceInfo {
  id: string;
  name: string;
  language?: string;
  previewUrl?: string | null;
}

export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image'; mimeType: string; data: Buffer };
export type ChatContent = string | ChatContentPart[];

export interface ToolCall {
  id: string;
  name: string;
  /** JSON text of the arguments object. */
  arguments: string;
  /** Opaque provider data that must travel back with the call (Gemini thought signature). */
  signature?: string;
}

export type ChatMessage =
  | { role: 'user'; content: ChatContent }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export type Effort = 'minimal' | 'low' | 'medium' | 'high';

export interface ChatRequest {
  model: string;
  system: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  effort?: Effort;
  /** null or absent: the model's default. */
  temperature?: number | null;
  maxOutputTokens?: number;
}

/** Streamed in this order: text deltas, then tool calls (complete), then usage, then done. */
export type ChatEvent =
  | { type: 'text'; delta: string }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'usage'; inputTokens: number; outputTokens: number }
  | { type: 'done'; finishReason: string };

export interface AudioResult {
  contentType: string;
  audio: Buffer;
}

export interface SynthesizeOptions {
  voice: string;
  model?: string;
  /** 0.5 to 2; kinds B and D. */
  speed?: number;
  /** How to speak, in words; kinds B and C. */
  style?: string;
  /** The words spoken just before these (a reply spoken sentence by sentence), so intonation carries on; kind D. */
  previousText?: string;
}

export interface TranscribeOptions {
  mimeType: string;
  model?: string;
  /** Language hint; the first two letters are used. */
  language?: string;
  /** Stops the request (a voice turn that was interrupted or timed out). */
  signal?: AbortSignal;
}

/** Speech streamed as it is made: PCM16 little-endian mono at 24 kHz, in chunks of even length. */
export const SPEECH_STREAM_RATE = 24_000;

/** Which characters a chunk of speech says, and when (seconds from the start of the request's audio). */
export interface SpeechAlignment { characters: string[]; starts: number[]; ends: number[] }

export interface ProviderAdapter {
  readonly kind: ProviderKind;
  /** Resolves when the key works; throws ApiError invalid (422) naming apiKey or baseUrl otherwise. */
  verifyKey(): Promise<void>;
  listModels(): Promise<ModelInfo[]>;
  /** The model a new bot (or voice setting) gets from this list, or null when none fits. */
  recommendedModel(models: ModelInfo[]): string | null;
  listVoices?(): Promise<VoiceInfo[]>;
  previewVoice?(voiceId: string): Promise<AudioResult>;
  /**
   * Streams one completion into `onEvent` (text deltas as they come; tool calls, usage and done at the end) and
   * resolves once it has ended. Rejects with an ApiError for the provider's failure, the abort reason when
   * `signal` aborts, or whatever `onEvent` threw (the stream is then released).
   */
  chat?(req: ChatRequest, onEvent: (e: ChatEvent) => void, signal?: AbortSignal): Promise<void>;
  /** `dimensions` asks for shorter vectors from a model that supports it (Matryoshka-trained ones do). */
  embed?(texts: string[], model?: string, opts?: { dimensions?: number }): Promise<number[][]>;
  synthesize?(text: string, opts: SynthesizeOptions): Promise<AudioResult>;
  /**
   * Speech as it is made (SPEECH_STREAM_RATE PCM16 chunks), for voice conversations; the first chunk comes long
   * before the whole text is spoken. Throws an ApiError for the provider's failure, or the abort reason.
   */
  synthesizeStream?(text: string, opts: SynthesizeOptions, signal?: AbortSignal): AsyncIterable<Buffer>;
  /** synthesizeStream with the timing of the characters each chunk says (kind D: lip sync for spoken replies). */
  synthesizeStreamAligned?(text: string, opts: SynthesizeOptions, signal?: AbortSignal): AsyncIterable<{ pcm: Buffer; alignment: SpeechAlignment | null }>;
  transcribe?(audio: Buffer, opts: TranscribeOptions): Promise<string>;
}

export interface ProviderOptions {
  /** Outbound fetch (e.g. the guarded client for user-supplied base URLs). Defaults to global fetch. */
  fetch?: typeof fetch;
  /**
   * Kinds A and B (the OpenAI SDK): a fetch whose responses have node-fetch's shape (Node stream body), which the
   * SDK reads without WHATWG streams (much less CPU and garbage per streamed chunk). Defaults to `fetch`.
   */
  nodeFetch?: (input: string | URL, init?: RequestInit) => Promise<unknown>;
  /** Per-request time limit. Default 60000. */
  timeoutMs?: number;
  /** Retries on 429/5xx/connection errors (kinds A and B). Default 2. */
  maxRetries?: number;
}
