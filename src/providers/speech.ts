import { FormData } from 'undici';
import { httpError, providerError } from './errors.js';
import { noCapabilities, pickModel } from './model-info.js';
import { DEFAULT_TIMEOUT_MS } from './openai-compatible.js';
import { PREVIEW_TEXT, extensionFor } from './openai.js';
import { isRealtimeSttModel, openRealtimeTranscription } from './speech-realtime-stt.js';
import type { TranscriptStream, TranscriptionOptions } from './stt-stream.js';
import { pcmChunks } from './wav.js';
import type {
  AudioResult, ModelInfo, ProviderAdapter, ProviderConnection, ProviderOptions, SpeechAlignment, SynthesizeOptions, TranscribeOptions, VoiceInfo,
} from './types.js';

export const SPEECH_BASE_URL = 'https://api.elevenlabs.io';
export const SPEECH_DEFAULTS = Object.freeze({ ttsModel: 'eleven_flash_v2_5', sttModel: 'scribe_v1' });

interface WireModel { model_id: string; name?: string; can_do_text_to_speech?: boolean }
interface WireVoice { voice_id: string; name?: string; preview_url?: string | null; labels?: Record<string, string>; verified_languages?: { language?: string }[] }

/** Kind D: an ElevenLabs-style speech provider over plain HTTP (key in the xi-api-key header). */
export class SpeechAdapter implements ProviderAdapter {
  readonly kind = 'speech' as const;
  private readonly baseUrl: string;
  private readonly fetchFn: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly conn: ProviderConnection, opts: ProviderOptions = {}) {
    this.baseUrl = (conn.baseUrl || SPEECH_BASE_URL).replace(/\/+$/, '');
    this.fetchFn = opts.fetch ?? fetch;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  private fail(err: unknown, verifying = false) {
    return providerError(err, { label: 'the speech provider', baseUrl: this.baseUrl, verifying });
  }

  /**
   * One call; a non-2xx answer or a network failure becomes an ApiError, and `signal`'s abort its reason. The time
   * limit covers the call and reading its body, or with `streamed` only until the answer starts (speech may run longer).
   */
  private async call(path: string, init: RequestInit = {}, verifying = false, signal?: AbortSignal, streamed = false): Promise<Response> {
    const limit = new AbortController();
    // Unref'd like AbortSignal.timeout's: a body read after the call stays under the limit without holding the process.
    const timer = setTimeout(() => limit.abort(new DOMException(`no answer within ${this.timeoutMs} ms`, 'TimeoutError')), this.timeoutMs).unref();
    try {
      const res = await this.fetchFn(`${this.baseUrl}${path}`, {
        ...init,
        headers: { 'xi-api-key': this.conn.apiKey, ...(init.headers as Record<string, string> | undefined) },
        signal: signal ? AbortSignal.any([limit.signal, signal]) : limit.signal,
      });
      if (!res.ok) throw await httpError(res);
      if (streamed) clearTimeout(timer);
      return res;
    } catch (err) {
      clearTimeout(timer);
      throw signal?.aborted ? signal.reason : this.fail(err, verifying);
    }
  }

  private async json<T>(path: string, init?: RequestInit, verifying = false): Promise<T> {
    const res = await this.call(path, init, verifying);
    try {
      return (await res.json()) as T;
    } catch (err) {
      throw this.fail(Object.assign(new Error(`the answer to ${path} was not JSON`), { status: 502, cause: err }), verifying);
    }
  }

  async verifyKey(): Promise<void> {
    await this.json('/v1/user', {}, true);
  }

  async listModels(): Promise<ModelInfo[]> {
    const list = await this.json<WireModel[]>('/v1/models');
    const models: ModelInfo[] = list.map((m) => ({
      id: m.model_id, label: m.name || m.model_id, capabilities: { ...noCapabilities, tts: m.can_do_text_to_speech !== false },
    }));
    // The models endpoint lists speech models only; the transcription models are fixed: the batch one (a finished
    // turn uploaded) and the realtime one (the turn streamed as it is spoken, speech-realtime-stt.ts).
    models.push({ id: SPEECH_DEFAULTS.sttModel, label: 'Scribe v1', capabilities: { ...noCapabilities, stt: true } });
    models.push({ id: 'scribe_v2_realtime', label: 'Scribe v2 Realtime (streamed)', capabilities: { ...noCapabilities, stt: true } });
    // Speech-to-speech and other models this server cannot use are left out.
    return models.filter((m) => m.capabilities.tts || m.capabilities.stt);
  }

  recommendedModel(models: ModelInfo[]): string | null {
    // Low latency matters most in spoken conversation.
    return pickModel(models, ['eleven_flash_v2_5', 'eleven_turbo_v2_5', 'eleven_multilingual_v2'], (m) => m.capabilities.tts);
  }

  async listVoices(): Promise<VoiceInfo[]> {
    const body = await this.json<{ voices?: WireVoice[] }>('/v1/voices');
    return (body.voices ?? []).map((v) => {
      const language = v.labels?.language || v.verified_languages?.[0]?.language;
      return { id: v.voice_id, name: v.name || v.voice_id, ...(language ? { language } : {}), previewUrl: v.preview_url ?? null };
    });
  }

  /** The provider's own sample when it has one (no credits spent), else a short synthesized one. */
  async previewVoice(voiceId: string): Promise<AudioResult> {
    const voice = await this.json<WireVoice>(`/v1/voices/${encodeURIComponent(voiceId)}`);
    if (!voice.preview_url) return this.synthesize(PREVIEW_TEXT, { voice: voiceId });
    try {
      const res = await this.fetchFn(voice.preview_url, { signal: AbortSignal.timeout(this.timeoutMs) });
      if (!res.ok) throw await httpError(res);
      return { contentType: res.headers.get('content-type') || 'audio/mpeg', audio: Buffer.from(await res.arrayBuffer()) };
    } catch (err) {
      throw this.fail(err);
    }
  }

  async synthesize(text: string, opts: SynthesizeOptions): Promise<AudioResult> {
    const res = await this.call(`/v1/text-to-speech/${encodeURIComponent(opts.voice)}?output_format=mp3_44100_128`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'audio/mpeg' },
      body: JSON.stringify(speechBody(text, opts)),
    });
    return { contentType: res.headers.get('content-type') || 'audio/mpeg', audio: Buffer.from(await res.arrayBuffer()) };
  }

  /**
   * Speech as it is made: the streaming endpoint with raw PCM at 24 kHz. The provider takes speeds 0.7 to 1.2 only
   * (the bot setting allows 0.5 to 2); style is not supported (bot-config).
   */
  async *synthesizeStream(text: string, opts: SynthesizeOptions, signal?: AbortSignal): AsyncGenerator<Buffer> {
    const res = await this.call(`/v1/text-to-speech/${encodeURIComponent(opts.voice)}/stream?output_format=pcm_24000`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'audio/pcm' },
      body: JSON.stringify(speechBody(text, opts)),
    }, false, signal, true);
    if (!res.body) throw this.fail(Object.assign(new Error('the reply carried no audio'), { status: 502 }));
    try {
      yield* pcmChunks(res.body as unknown as AsyncIterable<Uint8Array>);
    } catch (err) {
      throw signal?.aborted ? signal.reason : this.fail(err);
    }
  }

  /**
   * The same speech with the timing of its characters: the /stream/with-timestamps endpoint, one JSON object a line
   * (audio as base64 PCM, and the alignment of the characters it speaks).
   */
  async *synthesizeStreamAligned(text: string, opts: SynthesizeOptions, signal?: AbortSignal): AsyncGenerator<{ pcm: Buffer; alignment: SpeechAlignment | null }> {
    const res = await this.call(`/v1/text-to-speech/${encodeURIComponent(opts.voice)}/stream/with-timestamps?output_format=pcm_24000`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(speechBody(text, opts)),
    }, false, signal, true);
    if (!res.body) throw this.fail(Object.assign(new Error('the reply carried no audio'), { status: 502 }));
    let rest = '';
    // An odd byte at a chunk's end waits for the next chunk: PCM goes out in whole samples.
    let odd: Buffer | null = null;
    const decoder = new TextDecoder();
    const chunk = (line: string) => {
      let obj: { audio_base64?: string; alignment?: { characters?: string[]; character_start_times_seconds?: number[]; character_end_times_seconds?: number[] } | null };
      try { obj = JSON.parse(line); } catch (err) { throw this.fail(Object.assign(new Error('a line of the speech stream was not JSON'), { status: 502, cause: err })); }
      let pcm = Buffer.from(obj.audio_base64 ?? '', 'base64');
      if (odd) { pcm = Buffer.concat([odd, pcm]); odd = null; }
      if (pcm.length % 2) { odd = pcm.subarray(pcm.length - 1); pcm = pcm.subarray(0, pcm.length - 1); }
      const a = obj.alignment;
      const alignment = a?.characters?.length ? { characters: a.characters, starts: a.character_start_times_seconds ?? [], ends: a.character_end_times_seconds ?? [] } : null;
      return { pcm, alignment };
    };
    try {
      for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
        rest += decoder.decode(bytes, { stream: true });
        for (let nl = rest.indexOf('\n'); nl >= 0; nl = rest.indexOf('\n')) {
          const line = rest.slice(0, nl).trim();
          rest = rest.slice(nl + 1);
          if (line) yield chunk(line);
        }
      }
      if (rest.trim()) yield chunk(rest.trim());
    } catch (err) {
      throw signal?.aborted ? signal.reason : this.fail(err);
    }
  }

  /** A turn's audio streamed as it is heard (realtime models, src/providers/speech-realtime-stt.ts). */
  streamsTranscription(model: string): boolean {
    return isRealtimeSttModel(model);
  }

  openTranscription(o: TranscriptionOptions): TranscriptStream {
    return openRealtimeTranscription({ ...o, baseUrl: this.baseUrl, apiKey: this.conn.apiKey });
  }

  async transcribe(audio: Buffer, opts: TranscribeOptions): Promise<string> {
    // undici's FormData: the guarded fetch (npm undici) sends Node's global one as the text "[object FormData]",
    // while Node's fetch encodes either.
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(audio)], { type: opts.mimeType }), `audio.${extensionFor(opts.mimeType)}`);
    form.append('model_id', opts.model || SPEECH_DEFAULTS.sttModel);
    if (opts.language) form.append('language_code', opts.language.slice(0, 2).toLowerCase());
    const res = await this.call('/v1/speech-to-text', { method: 'POST', body: form as unknown as BodyInit }, false, opts.signal);
    try {
      return ((await res.json()) as { text?: string }).text ?? '';
    } catch (err) {
      throw opts.signal?.aborted ? opts.signal.reason : this.fail(Object.assign(new Error('the answer to /v1/speech-to-text was not JSON'), { status: 502, cause: err }));
    }
  }
}

/** The provider takes speeds 0.7 to 1.2 only; the bot setting allows 0.5 to 2. Style is not supported (bot-config). */
function speechBody(text: string, opts: SynthesizeOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { text, model_id: opts.model || SPEECH_DEFAULTS.ttsModel };
  if (opts.speed != null && opts.speed !== 1) body.voice_settings = { speed: Math.min(1.2, Math.max(0.7, opts.speed)) };
  if (opts.previousText) body.previous_text = opts.previousText;
  return body;
}
