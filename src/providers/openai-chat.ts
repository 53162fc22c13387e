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

/** How kinds A and B differ when mapping a ChatRequest to Chat Completions. */
export interface ChatMapping {
  /** OpenAI's current field for reasoning models is max_completion_tokens; compatible servers know max_tokens. */
  tokensField(model: string): 'max_completion_tokens' | 'max_tokens';
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
  if (req.maxOutputTokens) body[mapping.tokensField(req.model)] = req.maxOutputTokens;
  return body;
}

/**
 * Streams one completion into `onEvent`: text deltas as they come, tool calls once their argument fragments are
 * complete, then usage and done. Resolves when the stream has ended; rejects with the provider's error (mapped by
 * `toError`), the abort reason, or what `onEvent` threw.
 *
 * The SDK sends the request (auth, retries, error statuses); its raw response is then read here with
 * eventsource-parser. The SDK's own stream stacks three async generators on the body, and with 1,000 replies
 * streaming at once their per-chunk promises and buffers, alive until the next chunk, were most of what every
 * scavenge copied (docs/performance.md, Chat). Here the body's chunks are parsed as they arrive (readBody:
 * 'data' events) and each event is handed to `onEvent` at once: a reply waiting for its next chunk holds no
 * promise, and a chunk's objects are garbage before the next scavenge.
 */
export function streamChat(
  client: OpenAI,
  body: ChatCompletionCreateParamsStreaming,
  onEvent: (e: ChatEvent) => void,
  signal: AbortSignal | undefined,
  toError: (err: unknown) => unknown,
): Promise<void> {
  return new Promise((resolve, reject) => { new ChatStream(client, body, onEvent, signal, toError, resolve, reject); });
}

/** TextDecoder options for a body's chunks, made once: decode() runs for every chunk of every reply. */
const STREAMING = { stream: true } as const;

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
 * One streaming completion. One object per reply with its methods on the prototype: what a reply holds while it
 * streams is copied by every scavenge (bench/stream-memory.ts), and a closure per step cost more than the fields.
 */
class ChatStream implements ChunkSink {
  private readonly calls = new Map<number, ToolCall>();
  private usage: { inputTokens: number; outputTokens: number } | null = null;
  private finishReason = 'stop';
  private outputChars = 0;
  /** The only response header an in-stream error needs (APIError's requestID); the Headers object is let go. */
  private requestId: string | null = null;
  /** For the usage estimate when the provider sends none. */
  private readonly promptChars: number;
  private readonly decoder = new TextDecoder();
  private readonly parser: EventSourceParser;
  private sawDone = false;
  private settled = false;
  private reader: BodyReader | null = null;

  constructor(
    client: OpenAI,
    body: ChatCompletionCreateParamsStreaming,
    private readonly onEvent: (e: ChatEvent) => void,
    private readonly signal: AbortSignal | undefined,
    private readonly toError: (err: unknown) => unknown,
    private readonly resolve: () => void,
    private readonly reject: (err: unknown) => void,
  ) {
    this.promptChars = body.messages.reduce((n, m) => n + contentChars(m.content), 0);
    this.parser = createParser({ onEvent: (e) => this.onData(e.data) });
    // The body is not kept: once sent, the reply holds only what it needs to read the answer.
    client.chat.completions.create(body, { signal }).asResponse().then((res) => {
      this.requestId = res.headers.get('x-request-id');
      if (!res.body) { this.fail(new Error('the provider sent no response body')); return; }
      this.reader = readBody(res.body as unknown as Readable | ReadableStream<Uint8Array>, this);
      // Ended while the request was under way: the body is released at once.
      if (this.settled) this.reader.cancel();
    }, (err) => this.fail(err));
  }

  // ChunkSink: the response body's bytes.
  data(bytes: Uint8Array): void {
    if (this.settled) return;
    try { this.parser.feed(this.decoder.decode(bytes, STREAMING)); } catch (err) { this.fail(err); }
  }

  end(): void {
    if (this.settled) return;
    try { this.parser.feed(this.decoder.decode()); } catch (err) { this.fail(err); return; }
    if (this.settled) return;
    this.close();
  }

  error(err: unknown): void { this.fail(err); }

  private onData(data: string): void {
    if (this.sawDone || this.settled) return;
    if (data.startsWith('[DONE]')) { this.sawDone = true; return; }
    const chunk = JSON.parse(data) as ChatCompletionChunk & { error?: Record<string, unknown> };
    // An error sent inside the stream, as the SDK's own stream reports it.
    if (chunk?.error) throw new APIError(undefined, chunk.error, undefined, new Headers(this.requestId ? { 'x-request-id': this.requestId } : {}));
    if (chunk.usage) this.usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta;
    if (delta?.content) { this.outputChars += delta.content.length; this.emit({ type: 'text', delta: delta.content }); }
    for (const tc of delta?.tool_calls ?? []) {
      const call = this.calls.get(tc.index) ?? { id: '', name: '', arguments: '' };
      if (tc.id) call.id = tc.id;
      if (tc.function?.name) call.name += tc.function.name;
      if (tc.function?.arguments) call.arguments += tc.function.arguments;
      this.calls.set(tc.index, call);
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  /** The closing events: complete tool calls in order, usage (estimated if none came), done; then the end. */
  private close(): void {
    const ordered = [...this.calls.entries()].sort((a, b) => a[0] - b[0]).map(([i, c]) => ({ ...c, id: c.id || `call_${i}`, arguments: c.arguments || '{}' }));
    for (const call of ordered) this.emit({ type: 'tool_call', call });
    // Some compatible servers ignore include_usage; a rough estimate keeps caps and compaction working.
    this.emit({ type: 'usage', ...(this.usage ?? { inputTokens: Math.ceil(this.promptChars / 4), outputTokens: Math.ceil(this.outputChars / 4) }) });
    this.emit({ type: 'done', finishReason: ordered.length && this.finishReason === 'stop' ? 'tool_calls' : this.finishReason });
    if (this.settled) return;
    this.settled = true;
    this.resolve();
  }

  /** Hands an event to the consumer; what it throws ends the stream with that error as it is. */
  private emit(e: ChatEvent): void {
    if (this.settled) return;
    try { this.onEvent(e); } catch (err) { this.settle(err); }
  }

  private fail(err: unknown): void {
    if (this.settled) return;
    this.settle(this.signal?.aborted ? err : this.toError(err));
  }

  private settle(err: unknown): void {
    this.settled = true;
    this.reader?.cancel();
    this.reject(err);
  }
}
