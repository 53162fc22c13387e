import { createParser, type EventSourceParser } from 'eventsource-parser';
import { APIError, type OpenAI } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { Readable } from 'node:stream';
import { readBody, type BodyReader, type ChunkSink } from '../security/read-body.js';
import type { ChatEvent, ChatMessage, ChatRequest, ToolCall } from './types.js';

/** Parsed events waiting for the agent loop before the body is paused, and the level at which it flows again. */
const QUEUE_HIGH = 64;
const QUEUE_LOW = 16;

/** How kinds A and B differ when mapping a ChatRequest to Chat Completions. */
export interface ChatMapping {
  /** OpenAI's current field for reasoning models is max_completion_tokens; compatible servers know max_tokens. */
  tokensField: 'max_completion_tokens' | 'max_tokens';
  /** The reasoning_effort to send, or undefined to leave it out. */
  reasoningEffort(model: string, effort: ChatRequest['effort']): string | undefined;
  takesTemperature(model: string): boolean;
}

export function toOpenAiMessages(system: string, messages: ChatMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system) out.push({ role: 'system', content: system });
  for (const m of messages) {
    if (m.role === 'user') {
      if (typeof m.content === 'string') { out.push({ role: 'user', content: m.content }); continue; }
      const parts: ChatCompletionContentPart[] = m.content.map((p) => p.type === 'text'
        ? { type: 'text', text: p.text }
        : { type: 'image_url', image_url: { url: `data:${p.mimeType};base64,${p.data.toString('base64')}` } });
      out.push({ role: 'user', content: parts });
    } else if (m.role === 'assistant') {
      const calls = m.toolCalls?.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } }));
      out.push({ role: 'assistant', content: m.content || (calls?.length ? null : ''), ...(calls?.length ? { tool_calls: calls } : {}) });
    } else {
      out.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.content });
    }
  }
  return out;
}

export function buildChatBody(req: ChatRequest, mapping: ChatMapping): ChatCompletionCreateParamsStreaming {
  const body: ChatCompletionCreateParamsStreaming = {
    model: req.model,
    messages: toOpenAiMessages(req.system, req.messages),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
  }
  const effort = mapping.reasoningEffort(req.model, req.effort);
  if (effort) (body as { reasoning_effort?: string }).reasoning_effort = effort;
  if (req.temperature != null && mapping.takesTemperature(req.model)) body.temperature = req.temperature;
  if (req.maxOutputTokens) body[mapping.tokensField] = req.maxOutputTokens;
  return body;
}

/**
 * Streams one completion: text deltas as they come, tool calls once their argument fragments are complete,
 * then usage and done.
 *
 * The SDK sends the request (auth, retries, error statuses); its raw response is then read here with
 * eventsource-parser into a plain iterator. The SDK's own stream stacks three async generators on the body, and
 * with 1,000 replies streaming at once their per-chunk promises and buffers, alive until the next chunk, were
 * most of what every scavenge copied (docs/performance.md, Chat). Here the body's chunks are parsed as they
 * arrive (readBody: 'data' events, no promise per chunk) and a text chunk costs one promise, the agent loop's.
 */
export function streamChat(
  client: OpenAI,
  body: ChatCompletionCreateParamsStreaming,
  signal: AbortSignal | undefined,
  toError: (err: unknown) => unknown,
): AsyncIterableIterator<ChatEvent> {
  return new ChatStream(client, body, signal, toError);
}

/** A message content's length in characters, counted without serialising it (image parts carry their data URL). */
function contentChars(content: ChatCompletionMessageParam['content']): number {
  if (typeof content === 'string') return content.length;
  let n = 0;
  for (const part of content ?? []) {
    if (part.type === 'text') n += part.text.length;
    else if (part.type === 'image_url') n += part.image_url.url.length;
  }
  return n;
}

/**
 * streamChat's iterator. One object per reply with its methods on the prototype: what a reply holds while it
 * streams is copied by every scavenge (bench/stream-memory.ts), and a closure per step cost more than the fields.
 */
class ChatStream implements AsyncIterableIterator<ChatEvent>, ChunkSink {
  private readonly calls = new Map<number, ToolCall>();
  private usage: { inputTokens: number; outputTokens: number } | null = null;
  private finishReason = 'stop';
  private outputChars = 0;
  /** The only response header an in-stream error needs (APIError's requestID); the Headers object is let go. */
  private requestId: string | null = null;
  /** Sent on the first next(), then dropped, so the body is not kept while the reply streams. */
  private request: ChatCompletionCreateParamsStreaming | null;
  /** For the usage estimate when the provider sends none. */
  private readonly promptChars: number;
  private readonly decoder = new TextDecoder();
  private readonly parser: EventSourceParser;
  /** Events parsed and not yet taken; after the stream's end, the closing events. */
  private readonly ready: ChatEvent[] = [];
  private started = false;
  private ended = false;
  private sawDone = false;
  private failure: unknown = null;
  private reader: BodyReader | null = null;
  private waiter: { resolve(r: IteratorResult<ChatEvent>): void; reject(err: unknown): void } | null = null;

  constructor(
    private readonly client: OpenAI,
    body: ChatCompletionCreateParamsStreaming,
    private readonly signal: AbortSignal | undefined,
    private readonly toError: (err: unknown) => unknown,
  ) {
    this.request = body;
    this.promptChars = body.messages.reduce((n, m) => n + contentChars(m.content), 0);
    this.parser = createParser({ onEvent: (e) => this.onEvent(e.data) });
  }

  next(): Promise<IteratorResult<ChatEvent>> {
    if (this.ready.length) return Promise.resolve(this.take());
    if (this.failure) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    if (!this.started) this.start();
    return new Promise((resolve, reject) => { this.waiter = { resolve, reject }; });
  }

  /** A consumer that stops early (an aborted reply) closes the response body, which ends the request. */
  async return(): Promise<IteratorResult<ChatEvent>> {
    this.ended = true;
    this.ready.length = 0;
    this.failure = null;
    this.reader?.cancel();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator]() { return this; }

  // ChunkSink: the response body's bytes.
  data(bytes: Uint8Array): void {
    try { this.parser.feed(this.decoder.decode(bytes, { stream: true })); } catch (err) { this.fail(err); return; }
    this.deliver();
  }

  end(): void {
    try { this.parser.feed(this.decoder.decode()); } catch (err) { this.fail(err); return; }
    this.ended = true;
    this.close();
    this.deliver();
  }

  error(err: unknown): void { this.fail(err); }

  private start(): void {
    this.started = true;
    const sending = this.request!;
    this.request = null;
    this.client.chat.completions.create(sending, { signal: this.signal }).asResponse().then((res) => {
      this.requestId = res.headers.get('x-request-id');
      if (!res.body) { this.fail(new Error('the provider sent no response body')); return; }
      this.reader = readBody(res.body as unknown as Readable | ReadableStream<Uint8Array>, this);
      // Stopped while the request was under way: the body is released at once.
      if (this.ended) this.reader.cancel();
    }, (err) => this.fail(err));
  }

  private onEvent(data: string): void {
    if (this.sawDone) return;
    if (data.startsWith('[DONE]')) { this.sawDone = true; return; }
    const chunk = JSON.parse(data) as ChatCompletionChunk & { error?: Record<string, unknown> };
    // An error sent inside the stream, as the SDK's own stream reports it.
    if (chunk?.error) throw new APIError(undefined, chunk.error, undefined, new Headers(this.requestId ? { 'x-request-id': this.requestId } : {}));
    if (chunk.usage) this.usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta;
    if (delta?.content) { this.outputChars += delta.content.length; this.ready.push({ type: 'text', delta: delta.content }); }
    for (const tc of delta?.tool_calls ?? []) {
      const call = this.calls.get(tc.index) ?? { id: '', name: '', arguments: '' };
      if (tc.id) call.id = tc.id;
      if (tc.function?.name) call.name += tc.function.name;
      if (tc.function?.arguments) call.arguments += tc.function.arguments;
      this.calls.set(tc.index, call);
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  /** The closing events: complete tool calls in order, usage (estimated if none came), done. */
  private close(): void {
    const ordered = [...this.calls.entries()].sort((a, b) => a[0] - b[0]).map(([i, c]) => ({ ...c, id: c.id || `call_${i}`, arguments: c.arguments || '{}' }));
    for (const call of ordered) this.ready.push({ type: 'tool_call', call });
    // Some compatible servers ignore include_usage; a rough estimate keeps caps and compaction working.
    this.ready.push({ type: 'usage', ...(this.usage ?? { inputTokens: Math.ceil(this.promptChars / 4), outputTokens: Math.ceil(this.outputChars / 4) }) });
    this.ready.push({ type: 'done', finishReason: ordered.length && this.finishReason === 'stop' ? 'tool_calls' : this.finishReason });
  }

  /** Hands the next event, the end or the failure to a waiting next(); pauses the body while events pile up. */
  private deliver(): void {
    if (this.ready.length >= QUEUE_HIGH) this.reader?.pause();
    const w = this.waiter;
    if (!w) return;
    if (this.ready.length) { this.waiter = null; w.resolve(this.take()); }
    else if (this.failure) { this.waiter = null; w.reject(this.failure); }
    else if (this.ended) { this.waiter = null; w.resolve({ value: undefined, done: true }); }
  }

  private take(): IteratorResult<ChatEvent> {
    const value = this.ready.shift()!;
    if (this.ready.length <= QUEUE_LOW && !this.ended) this.reader?.resume();
    return { value, done: false };
  }

  private fail(err: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.reader?.cancel();
    this.failure = this.signal?.aborted ? err : this.toError(err);
    this.deliver();
  }
}
