import { toFile } from 'openai';
import { bareModelId, isOpenAiReasoningModel, openAiCapabilities, pickModel } from './model-info.js';
import { OpenAiCompatibleAdapter } from './openai-compatible.js';
import { openOpenAiTranscription, streamsOpenAiModel } from './openai-realtime-stt.js';
import type { TranscriptionOptions, TranscriptStream } from './stt-stream.js';
import type { ChatMapping } from './openai-chat.js';
import { pcmChunks } from './wav.js';
import type {
  AudioResult, ModelCapabilities, ModelInfo, ProviderConnection, ProviderKind, ProviderOptions,
  SynthesizeOptions, TranscribeOptions, VoiceInfo,
} from './types.js';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const OPENAI_DEFAULTS = Object.freeze({
  embeddingModel: 'text-embedding-3-small',
  ttsModel: 'gpt-4o-mini-tts',
  /** The speech voice when none is chosen (voice.cascade.tts.voice empty). */
  ttsVoice: 'coral',
  sttModel: 'gpt-4o-mini-transcribe',
});

// The speech endpoint's built-in voices; OpenAI has no voices endpoint to list them.
const VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse', 'marin', 'cedar'];

export const PREVIEW_TEXT = 'Hello! This is how I sound. How can I help you today?';

/** Kind B: OpenAI itself. Text as kind A plus embeddings, text to speech and speech to text. */
export class OpenAiAdapter extends OpenAiCompatibleAdapter {
  override readonly kind: ProviderKind = 'openai';
  protected override label = 'OpenAI';

  constructor(conn: ProviderConnection, opts: ProviderOptions = {}) {
    super(conn, opts, OPENAI_BASE_URL);
  }

  protected override capabilities(id: string): ModelCapabilities {
    return openAiCapabilities(id);
  }

  override recommendedModel(models: ModelInfo[]): string | null {
    // Fast, cheap, sees images and calls tools well: suits website chat and spoken replies.
    return pickModel(models, ['gpt-4.1-mini', 'gpt-5-mini', 'gpt-4o-mini'], (m) => m.capabilities.text && m.capabilities.tools);
  }

  protected override mapping: ChatMapping = {
    tokensField: () => 'max_completion_tokens',
    reasoningEffort: (model, effort) => {
      if (!effort || !isOpenAiReasoningModel(model)) return undefined;
      // Only the first gpt-5 generation accepts "minimal"; o-series and gpt-5.1+ get the nearest, low.
      if (effort === 'minimal') return /^gpt-5(-mini|-nano)?(-\d{4}-\d{2}-\d{2})?$/.test(bareModelId(model)) ? 'minimal' : 'low';
      return effort;
    },
    // Reasoning models refuse a temperature other than the default.
    takesTemperature: (model) => !isOpenAiReasoningModel(model),
  };

  protected override defaultEmbeddingModel(): string {
    return OPENAI_DEFAULTS.embeddingModel;
  }

  async listVoices(): Promise<VoiceInfo[]> {
    return VOICES.map((id) => ({ id, name: id[0].toUpperCase() + id.slice(1), previewUrl: null }));
  }

  async previewVoice(voiceId: string): Promise<AudioResult> {
    return this.synthesize(PREVIEW_TEXT, { voice: voiceId });
  }

  async synthesize(text: string, opts: SynthesizeOptions): Promise<AudioResult> {
    try {
      const res = await this.client.audio.speech.create(speechBody(text, opts, 'mp3'));
      return { contentType: res.headers.get('content-type') || 'audio/mpeg', audio: Buffer.from(await res.arrayBuffer()) };
    } catch (err) {
      throw this.fail(err);
    }
  }

  /** The speech endpoint's raw PCM (24 kHz, 16-bit) is sent as it is made, in a chunked body. */
  async *synthesizeStream(text: string, opts: SynthesizeOptions, signal?: AbortSignal): AsyncGenerator<Buffer> {
    let body: AsyncIterable<Uint8Array> | null;
    try {
      const res = await this.client.audio.speech.create(speechBody(text, opts, 'pcm'), { signal });
      body = res.body as unknown as AsyncIterable<Uint8Array> | null;
    } catch (err) {
      throw signal?.aborted ? signal.reason : this.fail(err);
    }
    if (!body) throw this.fail(Object.assign(new Error('the reply carried no audio'), { status: 502 }));
    try {
      yield* pcmChunks(body);
    } catch (err) {
      throw signal?.aborted ? signal.reason : this.fail(err);
    }
  }

  /** Realtime transcription models stream a turn as it is heard (openai-realtime-stt.ts); the rest are uploaded. */
  streamsTranscription(model: string): boolean {
    return streamsOpenAiModel(model || OPENAI_DEFAULTS.sttModel);
  }

  openTranscription(o: TranscriptionOptions): TranscriptStream {
    return openOpenAiTranscription({ ...o, model: o.model || OPENAI_DEFAULTS.sttModel, client: this.client, baseUrl: this.baseUrl });
  }

  async transcribe(audio: Buffer, opts: TranscribeOptions): Promise<string> {
    try {
      const file = await toFile(audio, `audio.${extensionFor(opts.mimeType)}`, { type: opts.mimeType });
      const res = await this.client.audio.transcriptions.create({
        file,
        model: opts.model || OPENAI_DEFAULTS.sttModel,
        ...(opts.language ? { language: opts.language.slice(0, 2).toLowerCase() } : {}),
      }, { signal: opts.signal });
      return res.text;
    } catch (err) {
      throw opts.signal?.aborted ? opts.signal.reason : this.fail(err);
    }
  }
}

function speechBody(text: string, opts: SynthesizeOptions, format: 'mp3' | 'pcm') {
  const model = opts.model || OPENAI_DEFAULTS.ttsModel;
  return {
    model,
    voice: opts.voice || OPENAI_DEFAULTS.ttsVoice,
    input: text,
    response_format: format,
    ...(opts.speed != null && opts.speed !== 1 ? { speed: opts.speed } : {}),
    // tts-1 models take no instructions; the gpt-4o speech models do.
    ...(opts.style && !/^tts-1/.test(bareModelId(model)) ? { instructions: opts.style } : {}),
  };
}

/** The upload needs a file name whose extension matches the audio format. */
export function extensionFor(mimeType: string): string {
  const sub = mimeType.split(';')[0].split('/')[1]?.trim() ?? '';
  const known: Record<string, string> = { mpeg: 'mp3', mp3: 'mp3', 'x-wav': 'wav', wav: 'wav', webm: 'webm', ogg: 'ogg', mp4: 'mp4', 'x-m4a': 'm4a', m4a: 'm4a', flac: 'flac', aac: 'aac' };
  return known[sub] ?? 'webm';
}
