import OpenAI from 'openai';
import { providerError } from './errors.js';
import { compatibleCapabilities, isOpenAiReasoningModel, pickModel } from './model-info.js';
import { buildChatBody, streamChat, type ChatMapping } from './openai-chat.js';
import type {
  ChatEvent, ChatRequest, ModelCapabilities, ModelInfo, ProviderAdapter, ProviderConnection, ProviderKind, ProviderOptions,
} from './types.js';

export const DEFAULT_TIMEOUT_MS = 60_000;

/** Kind A: any server speaking OpenAI Chat Completions (Ollama, vLLM, OpenRouter, LM Studio...). */
export class OpenAiCompatibleAdapter implements ProviderAdapter {
  readonly kind: ProviderKind = 'openai_compatible';
  protected readonly client: OpenAI;
  protected readonly baseUrl: string;
  protected label = 'the OpenAI-compatible provider';

  constructor(conn: ProviderConnection, opts: ProviderOptions = {}, defaultBaseUrl?: string) {
    this.baseUrl = (conn.baseUrl || defaultBaseUrl || '').replace(/\/+$/, '');
    this.client = new OpenAI({
      // Local servers (Ollama) take no key, but the SDK insists on one.
      apiKey: conn.apiKey || 'none',
      baseURL: this.baseUrl,
      // Explicit nulls so the SDK never picks up OPENAI_* variables from the environment.
      organization: null, project: null, webhookSecret: null, adminAPIKey: null,
      fetch: (opts.nodeFetch ?? opts.fetch) as typeof fetch | undefined,
      timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetries: opts.maxRetries ?? 2,
      logLevel: 'off',
    });
  }

  protected fail(err: unknown, verifying = false) {
    const baseUrlHint = this.kind === 'openai_compatible' ? 'an OpenAI-compatible base URL usually ends in /v1, e.g. http://localhost:11434/v1 for Ollama' : undefined;
    return providerError(err, { label: this.label, baseUrl: this.baseUrl, verifying, baseUrlHint });
  }

  async verifyKey(): Promise<void> {
    try {
      await this.client.models.list();
    } catch (err) {
      throw this.fail(err, true);
    }
  }

  async listModels(): Promise<ModelInfo[]> {
    try {
      const ids: string[] = [];
      for await (const m of this.client.models.list()) ids.push(m.id);
      return ids
        .map((id) => ({ id, label: id, capabilities: this.capabilities(id) }))
        .filter((m) => Object.values(m.capabilities).some(Boolean))
        .sort((a, b) => a.id.localeCompare(b.id));
    } catch (err) {
      throw this.fail(err);
    }
  }

  protected capabilities(id: string): ModelCapabilities {
    return compatibleCapabilities(id);
  }

  recommendedModel(models: ModelInfo[]): string | null {
    return pickModel(models, [], (m) => m.capabilities.text);
  }

  protected mapping: ChatMapping = {
    // OpenAI's reasoning models (o1, o3, o4, gpt-5 names: OpenAI itself or a proxy to it) refuse max_tokens and a
    // temperature other than the default, as through kind B; other servers know max_tokens.
    tokensField: (model) => (isOpenAiReasoningModel(model) ? 'max_completion_tokens' : 'max_tokens'),
    // Minimal counts as low here (bot-config brain.effort); only models known to reason get the field.
    reasoningEffort: (model, effort) => (effort && compatibleCapabilities(model).reasoning ? (effort === 'minimal' ? 'low' : effort) : undefined),
    takesTemperature: (model) => !isOpenAiReasoningModel(model),
  };

  chat(req: ChatRequest, onEvent: (e: ChatEvent) => void, signal?: AbortSignal): Promise<void> {
    return streamChat(this.client, buildChatBody(req, this.mapping), onEvent, signal, (err) => this.fail(err));
  }

  async embed(texts: string[], model?: string, opts: { dimensions?: number } = {}): Promise<number[][]> {
    const chosen = model || this.defaultEmbeddingModel();
    if (!chosen) throw this.fail(Object.assign(new Error('no embedding model chosen'), { status: 400 }));
    if (texts.length === 0) return [];
    try {
      const res = await this.client.embeddings.create({ model: chosen, input: texts, encoding_format: 'float', ...(opts.dimensions ? { dimensions: opts.dimensions } : {}) });
      return [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    } catch (err) {
      throw this.fail(err);
    }
  }

  protected defaultEmbeddingModel(): string | null {
    return null;
  }
}
