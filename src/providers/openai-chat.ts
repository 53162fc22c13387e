import type OpenAI from 'openai';
import type {
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

/** Streams one completion: text deltas as they come, tool calls once their argument fragments are complete. */
export async function* streamChat(
  client: OpenAI,
  body: ChatCompletionCreateParamsStreaming,
  signal: AbortSignal | undefined,
  fail: (err: unknown) => unknown,
): AsyncGenerator<ChatEvent> {
  const calls = new Map<number, ToolCall>();
  let usage: { inputTokens: number; outputTokens: number } | null = null;
  let finishReason = 'stop';
  let outputChars = 0;
  try {
    const stream = await client.chat.completions.create(body, { signal });
    for await (const chunk of stream) {
      if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta;
      if (delta?.content) { outputChars += delta.content.length; yield { type: 'text', delta: delta.content }; }
      for (const tc of delta?.tool_calls ?? []) {
        const call = calls.get(tc.index) ?? { id: '', name: '', arguments: '' };
        if (tc.id) call.id = tc.id;
        if (tc.function?.name) call.name += tc.function.name;
        if (tc.function?.arguments) call.arguments += tc.function.arguments;
        calls.set(tc.index, call);
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  } catch (err) {
    if (signal?.aborted) throw err;
    throw fail(err);
  }
  const ordered = [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([i, c]) => ({ ...c, id: c.id || `call_${i}`, arguments: c.arguments || '{}' }));
  for (const call of ordered) yield { type: 'tool_call', call };
  // Some compatible servers ignore include_usage; a rough estimate keeps caps and compaction working.
  yield { type: 'usage', ...(usage ?? { inputTokens: Math.ceil(JSON.stringify(body.messages).length / 4), outputTokens: Math.ceil(outputChars / 4) }) };
  yield { type: 'done', finishReason: ordered.length && finishReason === 'stop' ? 'tool_calls' : finishReason };
}
