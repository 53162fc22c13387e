import { createParser } from 'eventsource-parser';
import { APIError, type OpenAI } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ChatEvent, ChatMessage, ChatRequest, ToolCall } from './types.js';

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
 * most of what every scavenge copied (docs/performance.md, Chat). Here a text chunk costs one promise.
 */
export function streamChat(
  client: OpenAI,
  body: ChatCompletionCreateParamsStreaming,
  signal: AbortSignal | undefined,
  fail: (err: unknown) => unknown,
): AsyncIterableIterator<ChatEvent> {
  const calls = new Map<number, ToolCall>();
  let usage: { inputTokens: number; outputTokens: number } | null = null;
  let finishReason = 'stop';
  let outputChars = 0;
  let headers: Headers | undefined;
  let bytes: AsyncIterator<Uint8Array> | null = null;
  const decoder = new TextDecoder();
  /** Events parsed and not yet taken; after the stream's end, the closing events. */
  const ready: ChatEvent[] = [];
  let ended = false;
  let sawDone = false;

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

  const failed = (err: unknown): never => { throw signal?.aborted ? err : fail(err); };
  const onBytes = (r: IteratorResult<Uint8Array>): IteratorResult<ChatEvent> | Promise<IteratorResult<ChatEvent>> => {
    try {
      if (r.done) { parser.feed(decoder.decode()); ended = true; close(); } else parser.feed(decoder.decode(r.value, { stream: true }));
    } catch (err) {
      void bytes?.return?.();
      return failed(err);
    }
    return ready.length ? { value: ready.shift()!, done: false } : next();
  };
  const next = (): Promise<IteratorResult<ChatEvent>> => {
    if (ready.length) return Promise.resolve({ value: ready.shift()!, done: false });
    if (ended) return Promise.resolve({ value: undefined, done: true });
    if (bytes) return bytes.next().then(onBytes, failed);
    return client.chat.completions.create(body, { signal }).asResponse().then((res) => {
      headers = res.headers;
      if (!res.body) failed(new Error('the provider sent no response body'));
      bytes = (res.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    }, failed).then(next);
  };
  const it: AsyncIterableIterator<ChatEvent> = {
    next,
    // A consumer that stops early (an aborted reply) closes the response body, which ends the request.
    async return() {
      ended = true;
      ready.length = 0;
      await bytes?.return?.();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() { return it; },
  };
  return it;
}
