import { createParser } from 'eventsource-parser';
import { APIError, type OpenAI } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { Readable } from 'node:stream';
import { readBody, type BodyReader, type ChunkSink } from '../security/stream-chunks.js';
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
  const calls = new Map<number, ToolCall>();
  let usage: { inputTokens: number; outputTokens: number } | null = null;
  let finishReason = 'stop';
  let outputChars = 0;
  let headers: Headers | undefined;
  const decoder = new TextDecoder();
  /** Events parsed and not yet taken; after the stream's end, the closing events. */
  const ready: ChatEvent[] = [];
  let started = false;
  let ended = false;
  let sawDone = false;
  let failure: unknown = null;
  let reader: BodyReader | null = null;
  let waiter: { resolve(r: IteratorResult<ChatEvent>): void; reject(err: unknown): void } | null = null;

  const parser = createParser({
    onEvent: ({ data }) => {
      if (sawDone) return;
      if (data.startsWith('[DONE]')) { sawDone = true; return; }
      const chunk = JSON.parse(data) as ChatCompletionChunk & { error?: Record<string, unknown> };
      // An error sent inside the stream, as the SDK's own stream reports it.
      if (chunk?.error) throw new APIError(undefined, chunk.error, undefined, headers);
      onChunk(chunk);
    },
  });
  const onChunk = (chunk: ChatCompletionChunk) => {
    if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta;
    if (delta?.content) { outputChars += delta.content.length; ready.push({ type: 'text', delta: delta.content }); }
    for (const tc of delta?.tool_calls ?? []) {
      const call = calls.get(tc.index) ?? { id: '', name: '', arguments: '' };
      if (tc.id) call.id = tc.id;
      if (tc.function?.name) call.name += tc.function.name;
      if (tc.function?.arguments) call.arguments += tc.function.arguments;
      calls.set(tc.index, call);
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  };
  const close = () => {
    const ordered = [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([i, c]) => ({ ...c, id: c.id || `call_${i}`, arguments: c.arguments || '{}' }));
    for (const call of ordered) ready.push({ type: 'tool_call', call });
    // Some compatible servers ignore include_usage; a rough estimate keeps caps and compaction working.
    ready.push({ type: 'usage', ...(usage ?? { inputTokens: Math.ceil(JSON.stringify(body.messages).length / 4), outputTokens: Math.ceil(outputChars / 4) }) });
    ready.push({ type: 'done', finishReason: ordered.length && finishReason === 'stop' ? 'tool_calls' : finishReason });
  };

  /** Hands the next event, the end or the failure to a waiting next(); pauses the body while events pile up. */
  const deliver = () => {
    if (ready.length >= QUEUE_HIGH) reader?.pause();
    const w = waiter;
    if (!w) return;
    if (ready.length) { waiter = null; w.resolve(take()); } else if (failure) { waiter = null; w.reject(failure); } else if (ended) { waiter = null; w.resolve({ value: undefined, done: true }); }
  };
  const take = (): IteratorResult<ChatEvent> => {
    const value = ready.shift()!;
    if (ready.length <= QUEUE_LOW && !ended) reader?.resume();
    return { value, done: false };
  };
  const fail = (err: unknown) => {
    if (ended) return;
    ended = true;
    reader?.cancel();
    failure = signal?.aborted ? err : toError(err);
    deliver();
  };
  const sink: ChunkSink = {
    data(bytes) {
      try { parser.feed(decoder.decode(bytes, { stream: true })); } catch (err) { fail(err); return; }
      deliver();
    },
    end() {
      try { parser.feed(decoder.decode()); } catch (err) { fail(err); return; }
      ended = true;
      close();
      deliver();
    },
    error: (err) => fail(err),
  };
  const start = () => {
    started = true;
    client.chat.completions.create(body, { signal }).asResponse().then((res) => {
      headers = res.headers;
      if (!res.body) { fail(new Error('the provider sent no response body')); return; }
      reader = readBody(res.body as unknown as Readable | ReadableStream<Uint8Array>, sink);
      // Stopped while the request was under way: the body is released at once.
      if (ended) reader.cancel();
    }, fail);
  };

  const it: AsyncIterableIterator<ChatEvent> = {
    next() {
      if (ready.length) return Promise.resolve(take());
      if (failure) return Promise.reject(failure);
      if (ended) return Promise.resolve({ value: undefined, done: true });
      if (!started) start();
      return new Promise((resolve, reject) => { waiter = { resolve, reject }; });
    },
    // A consumer that stops early (an aborted reply) closes the response body, which ends the request.
    async return() {
      ended = true;
      ready.length = 0;
      failure = null;
      reader?.cancel();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() { return it; },
  };
  return it;
}
