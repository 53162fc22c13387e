import { GoogleGenAI, type Model } from '@google/genai';
import { providerError } from './errors.js';
import { streamGemini } from './gemini-chat.js';
import { bareModelId, noCapabilities, pickModel } from './model-info.js';
import { DEFAULT_TIMEOUT_MS } from './openai-compatible.js';
import { PREVIEW_TEXT } from './openai.js';
import { pcmToWav, rateFromMime } from './wav.js';
import { SPEECH_STREAM_RATE } from './types.js';
import type {
  AudioResult, ChatEvent, ChatRequest, ModelCapabilities, ModelInfo, ProviderAdapter, ProviderConnection,
  ProviderOptions, SynthesizeOptions, VoiceInfo,
} from './types.js';

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';
export const GEMINI_DEFAULTS = Object.freeze({ embeddingModel: 'gemini-embedding-001', ttsModel: 'gemini-2.5-flash-preview-tts', ttsVoice: 'Kore' });

/** The prebuilt voices of Gemini speech generation and of Gemini Live; the API has no endpoint that lists them. */
export const GEMINI_VOICES: readonly string[] = Object.freeze([
  'Zephyr', 'Puck', 'Charon', 'Kore', 'Fenrir', 'Leda', 'Orus', 'Aoede', 'Callirrhoe', 'Autonoe', 'Enceladus', 'Iapetus',
  'Umbriel', 'Algieba', 'Despina', 'Erinome', 'Algenib', 'Rasalgethi', 'Laomedeia', 'Achernar', 'Alnilam', 'Schedar',
  'Gacrux', 'Pulcherrima', 'Achird', 'Zubenelgenubi', 'Vindemiatrix', 'Sadachbia', 'Sadaltager', 'Sulafat',
]);
// batchEmbedContents takes at most 100 texts per call.
const EMBED_BATCH = 100;

/** Kind C: Google Gemini through @google/genai. Text, embeddings, text to speech. */
export class GeminiAdapter implements ProviderAdapter {
  readonly kind = 'gemini' as const;
  private readonly ai: GoogleGenAI;
  private readonly baseUrl: string;

  constructor(conn: ProviderConnection, opts: ProviderOptions = {}) {
    this.baseUrl = (conn.baseUrl || GEMINI_BASE_URL).replace(/\/+$/, '');
    const retries = opts.maxRetries ?? 2;
    this.ai = new GoogleGenAI({
      vertexai: false,
      apiKey: conn.apiKey,
      httpOptions: {
        baseUrl: this.baseUrl,
        timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        ...(opts.fetch ? { fetch: opts.fetch } : {}),
        ...(retries > 0 ? { retryOptions: { attempts: retries + 1 } } : {}),
      },
    });
  }

  private fail(err: unknown, verifying = false) {
    return providerError(err, { label: 'Google Gemini', baseUrl: this.baseUrl, verifying });
  }

  async verifyKey(): Promise<void> {
    try {
      await this.ai.models.list({ config: { pageSize: 1 } });
    } catch (err) {
      throw this.fail(err, true);
    }
  }

  async listModels(): Promise<ModelInfo[]> {
    try {
      const out: ModelInfo[] = [];
      for await (const m of await this.ai.models.list({ config: { pageSize: 1000 } })) {
        const id = bareModelId(m.name ?? '');
        const capabilities = geminiCapabilities(id, m);
        if (id && Object.values(capabilities).some(Boolean)) out.push({ id, label: m.displayName || id, capabilities });
      }
      return out.sort((a, b) => a.id.localeCompare(b.id));
    } catch (err) {
      throw this.fail(err);
    }
  }

  recommendedModel(models: ModelInfo[]): string | null {
    return pickModel(models, ['gemini-2.5-flash', 'gemini-3-flash-preview', 'gemini-2.5-flash-lite', 'gemini-2.0-flash'], (m) => m.capabilities.text && m.capabilities.tools);
  }

  chat(req: ChatRequest, onEvent: (e: ChatEvent) => void, signal?: AbortSignal): Promise<void> {
    return streamGemini(this.ai, req, onEvent, signal, (err) => this.fail(err));
  }

  async embed(texts: string[], model?: string, opts: { dimensions?: number } = {}): Promise<number[][]> {
    const out: number[][] = [];
    try {
      for (let i = 0; i < texts.length; i += EMBED_BATCH) {
        const res = await this.ai.models.embedContent({
          model: model || GEMINI_DEFAULTS.embeddingModel,
          contents: texts.slice(i, i + EMBED_BATCH),
          ...(opts.dimensions ? { config: { outputDimensionality: opts.dimensions } } : {}),
        });
        for (const e of res.embeddings ?? []) out.push(e.values ?? []);
      }
    } catch (err) {
      throw this.fail(err);
    }
    return out;
  }

  async listVoices(): Promise<VoiceInfo[]> {
    return GEMINI_VOICES.map((name) => ({ id: name, name, previewUrl: null }));
  }

  async previewVoice(voiceId: string): Promise<AudioResult> {
    return this.synthesize(PREVIEW_TEXT, { voice: voiceId });
  }

  async synthesize(text: string, opts: SynthesizeOptions): Promise<AudioResult> {
    let res;
    try {
      res = await this.ai.models.generateContent(speechRequest(text, opts));
    } catch (err) {
      throw this.fail(err);
    }
    const data = res.candidates?.[0]?.content?.parts?.find((p) => p.inlineData?.data)?.inlineData;
    if (!data?.data) throw this.fail(Object.assign(new Error('the reply carried no audio'), { status: 502 }));
    const pcm = Buffer.from(data.data, 'base64');
    const mime = data.mimeType ?? '';
    if (/wav|mpeg|mp3|ogg/.test(mime)) return { contentType: mime, audio: pcm };
    return { contentType: 'audio/wav', audio: pcmToWav(pcm, rateFromMime(mime)) };
  }

  /** Speech as it is made: streamGenerateContent sends the PCM (24 kHz) in pieces as the model speaks. */
  async *synthesizeStream(text: string, opts: SynthesizeOptions, signal?: AbortSignal): AsyncGenerator<Buffer> {
    try {
      const stream = await this.ai.models.generateContentStream(speechRequest(text, opts, signal));
      for await (const chunk of stream) {
        for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
          const data = part.inlineData;
          if (!data?.data) continue;
          if (rateFromMime(data.mimeType ?? '') !== SPEECH_STREAM_RATE) {
            throw Object.assign(new Error(`the speech came as ${data.mimeType}, not PCM at ${SPEECH_STREAM_RATE} Hz`), { status: 502 });
          }
          const pcm = Buffer.from(data.data, 'base64');
          // Whole samples only; the API sends even-length pieces.
          if (pcm.length >= 2) yield pcm.length & 1 ? pcm.subarray(0, pcm.length - 1) : pcm;
        }
      }
    } catch (err) {
      throw signal?.aborted ? signal.reason : this.fail(err);
    }
  }
}

/** Gemini speech takes the speaking style as words in front of the text. */
function speechRequest(text: string, opts: SynthesizeOptions, signal?: AbortSignal) {
  return {
    model: opts.model || GEMINI_DEFAULTS.ttsModel,
    contents: [{ role: 'user', parts: [{ text: opts.style ? `${opts.style}: ${text}` : text }] }],
    config: {
      responseModalities: ['AUDIO'],
      speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: opts.voice || GEMINI_DEFAULTS.ttsVoice } } },
      ...(signal ? { abortSignal: signal } : {}),
    },
  };
}

export function geminiCapabilities(id: string, m: Pick<Model, 'supportedActions' | 'thinking'>): ModelCapabilities {
  const actions = m.supportedActions ?? [];
  const tts = /tts/.test(id);
  const realtime = /native-audio|live/.test(id) || actions.includes('bidiGenerateContent');
  const embeddings = actions.includes('embedContent') || actions.includes('batchEmbedContents') || /embedding/.test(id);
  const text = actions.includes('generateContent') && !tts && !realtime && !embeddings && !/image|imagen|veo|aqa|robotics|computer-use/.test(id);
  return {
    ...noCapabilities,
    text,
    vision: text && /^gemini/.test(id),
    tools: text && !/gemma/.test(id),
    reasoning: text && (m.thinking === true || /^gemini-(2\.5|[3-9])/.test(id)),
    embeddings, tts, realtime,
  };
}
