import type { Content, GenerateContentConfig, GoogleGenAI, Part } from '@google/genai';
import { bareModelId } from './model-info.js';
import type { ChatEvent, ChatMessage, ChatRequest, ToolCall } from './types.js';

// Ids we make up for calls Gemini left unnamed; they are not sent back to Gemini.
const LOCAL_ID = 'gcall_';

export function toGeminiContents(messages: ChatMessage[]): Content[] {
  const out: Content[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      const parts: Part[] = typeof m.content === 'string'
        ? [{ text: m.content }]
        : m.content.map((p) => (p.type === 'text' ? { text: p.text } : { inlineData: { mimeType: p.mimeType, data: p.data.toString('base64') } }));
      out.push({ role: 'user', parts });
    } else if (m.role === 'assistant') {
      const parts: Part[] = m.content ? [{ text: m.content }] : [];
      for (const c of m.toolCalls ?? []) {
        parts.push({
          functionCall: { ...(c.id.startsWith(LOCAL_ID) ? {} : { id: c.id }), name: c.name, args: parseObject(c.arguments) },
          ...(c.signature ? { thoughtSignature: c.signature } : {}),
        });
      }
      out.push({ role: 'model', parts: parts.length ? parts : [{ text: '' }] });
    } else {
      const part: Part = {
        functionResponse: { ...(m.toolCallId.startsWith(LOCAL_ID) ? {} : { id: m.toolCallId }), name: m.name, response: toolResponse(m.content) },
      };
      // Gemini wants all answers to one round of calls in a single user turn.
      const last = out[out.length - 1];
      if (last?.role === 'user' && last.parts?.every((p) => p.functionResponse)) last.parts.push(part);
      else out.push({ role: 'user', parts: [part] });
    }
  }
  return out;
}

function parseObject(json: string): Record<string, unknown> {
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Tool output is text; Gemini takes an object, so JSON objects pass through and anything else is wrapped. */
function toolResponse(content: string): Record<string, unknown> {
  try {
    const v = JSON.parse(content) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch { /* plain text */ }
  return { result: content };
}

/** Third generation and later take a thinking level: medium and high mean high, the others low. */
export function thinkingFor(model: string, effort: ChatRequest['effort']): GenerateContentConfig['thinkingConfig'] | undefined {
  const gen = /^gemini-(\d+)/.exec(bareModelId(model));
  if (!effort || !gen || Number(gen[1]) < 3) return undefined;
  return { thinkingLevel: (effort === 'medium' || effort === 'high' ? 'HIGH' : 'LOW') as never };
}

export function buildGeminiConfig(req: ChatRequest, signal?: AbortSignal): GenerateContentConfig {
  const config: GenerateContentConfig = {};
  if (req.system) config.systemInstruction = req.system;
  if (req.tools?.length) {
    // parametersJsonSchema takes plain JSON Schema (the older `parameters` field takes only an OpenAPI subset).
    config.tools = [{ functionDeclarations: req.tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters })) }];
  }
  if (req.temperature != null) config.temperature = req.temperature;
  if (req.maxOutputTokens) config.maxOutputTokens = req.maxOutputTokens;
  const thinking = thinkingFor(req.model, req.effort);
  if (thinking) config.thinkingConfig = thinking;
  if (signal) config.abortSignal = signal;
  return config;
}

const FINISH: Record<string, string> = {
  STOP: 'stop', MAX_TOKENS: 'length', SAFETY: 'content_filter', RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter', PROHIBITED_CONTENT: 'content_filter', SPII: 'content_filter',
};

/** Streams one completion into `onEvent` (the contract of ProviderAdapter.chat). */
export async function streamGemini(
  ai: GoogleGenAI,
  req: ChatRequest,
  onEvent: (e: ChatEvent) => void,
  signal: AbortSignal | undefined,
  fail: (err: unknown) => unknown,
): Promise<void> {
  const calls: ToolCall[] = [];
  let inputTokens = 0, outputTokens = 0, finish = 'stop';
  // What onEvent throws ends the stream as it is, not as the provider's failure.
  let consumerFailed = false;
  const emit = (e: ChatEvent) => { try { onEvent(e); } catch (err) { consumerFailed = true; throw err; } };
  try {
    const stream = await ai.models.generateContentStream({ model: req.model, contents: toGeminiContents(req.messages), config: buildGeminiConfig(req, signal) });
    for await (const chunk of stream) {
      const u = chunk.usageMetadata;
      // Each chunk repeats the running totals; thinking tokens are billed as output.
      if (u) { inputTokens = u.promptTokenCount ?? inputTokens; outputTokens = (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0) || outputTokens; }
      const cand = chunk.candidates?.[0];
      for (const part of cand?.content?.parts ?? []) {
        if (part.functionCall) {
          const fc = part.functionCall;
          calls.push({ id: fc.id || `${LOCAL_ID}${calls.length}`, name: fc.name ?? '', arguments: JSON.stringify(fc.args ?? {}), ...(part.thoughtSignature ? { signature: part.thoughtSignature } : {}) });
        } else if (part.text && !part.thought) {
          emit({ type: 'text', delta: part.text });
        }
      }
      if (cand?.finishReason) finish = FINISH[cand.finishReason] ?? cand.finishReason.toLowerCase();
    }
  } catch (err) {
    if (signal?.aborted || consumerFailed) throw err;
    throw fail(err);
  }
  for (const call of calls) onEvent({ type: 'tool_call', call });
  onEvent({ type: 'usage', inputTokens, outputTokens });
  onEvent({ type: 'done', finishReason: calls.length && finish === 'stop' ? 'tool_calls' : finish });
}
