/**
 * The client events the fake OpenAI Realtime sockets take (GA API reference: session.update, input_audio_buffer.*,
 * conversation.item.create/truncate/delete, response.create/cancel), checked with strict.ts's checkMessage before a
 * session acts on them; and how the Realtime API refuses one: an `error` event with { type, code, message, param,
 * event_id }. Unknown event types, missing or mistyped fields and unknown parameters are refused, as the API does.
 */
import { z } from 'zod';
import type { Problem } from './strict.js';
import { openAiWords } from './openai-schemas.js';

export const CLIENT_EVENT_TYPES = [
  'session.update', 'input_audio_buffer.append', 'input_audio_buffer.commit', 'input_audio_buffer.clear',
  'conversation.item.create', 'conversation.item.truncate', 'conversation.item.delete', 'conversation.item.retrieve',
  'response.create', 'response.cancel', 'output_audio_buffer.clear',
] as const;

const eventId = z.string().optional();

/** A discriminated union's refusal in the API's words: the type missing, or not one it supports. */
function unsupported(issue: { input?: unknown; path?: PropertyKey[] }, types: readonly string[]): string | undefined {
  if (!issue.input || typeof issue.input !== 'object') return undefined;
  const type = (issue.input as { type?: unknown }).type;
  const at = [...(issue.path ?? []).map(String)].join('.');
  if (type === undefined) return `Missing required parameter: '${at}'.`;
  return `Invalid value: '${String(type)}'. Supported values are: ${types.map((t) => `'${t}'`).join(', ')}.`;
}
const format = z.strictObject({ type: z.enum(['audio/pcm', 'audio/pcmu', 'audio/pcma']), rate: z.number().int().optional() });
const transcription = z.strictObject({ model: z.string().optional(), language: z.string().optional(), prompt: z.string().optional() }).nullable();
const turnDetection = z.strictObject({
  type: z.enum(['server_vad', 'semantic_vad']), eagerness: z.string().optional(), threshold: z.number().optional(),
  prefix_padding_ms: z.number().int().optional(), silence_duration_ms: z.number().int().optional(), idle_timeout_ms: z.number().int().nullable().optional(),
  create_response: z.boolean().optional(), interrupt_response: z.boolean().optional(),
}).nullable();
const audioInput = z.strictObject({ format: format.optional(), transcription: transcription.optional(), noise_reduction: z.strictObject({ type: z.enum(['near_field', 'far_field']) }).nullable().optional(), turn_detection: turnDetection.optional() });
const tool = z.strictObject({ type: z.literal('function'), name: z.string(), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() });
const realtimeSession = z.strictObject({
  type: z.literal('realtime'), model: z.string().optional(), instructions: z.string().optional(), output_modalities: z.array(z.string()).optional(),
  audio: z.strictObject({ input: audioInput.optional(), output: z.strictObject({ format: format.optional(), voice: z.string().optional(), speed: z.number().optional() }).optional() }).optional(),
  tools: z.array(tool).optional(), tool_choice: z.union([z.enum(['auto', 'none', 'required']), z.strictObject({ type: z.literal('function'), name: z.string() })]).optional(),
  max_output_tokens: z.union([z.number().int(), z.literal('inf')]).optional(), include: z.array(z.string()).nullable().optional(),
  prompt: z.unknown().optional(), tracing: z.unknown().optional(), truncation: z.unknown().optional(),
});
const transcriptionSession = z.strictObject({ type: z.literal('transcription'), audio: z.strictObject({ input: audioInput.optional() }).optional(), include: z.array(z.string()).nullable().optional() });

const contentPart = z.strictObject({
  type: z.enum(['input_text', 'input_audio', 'input_image', 'output_text', 'output_audio']),
  text: z.string().optional(), audio: z.string().optional(), transcript: z.string().optional(), image_url: z.string().optional(), detail: z.string().optional(),
});
const itemBase = { id: z.string().optional(), object: z.literal('realtime.item').optional(), status: z.enum(['completed', 'incomplete', 'in_progress']).optional() };
const item = z.discriminatedUnion('type', [
  z.strictObject({ ...itemBase, type: z.literal('message'), role: z.enum(['user', 'assistant', 'system']), content: z.array(contentPart) }),
  z.strictObject({ ...itemBase, type: z.literal('function_call'), call_id: z.string(), name: z.string(), arguments: z.string() }),
  z.strictObject({ ...itemBase, type: z.literal('function_call_output'), call_id: z.string(), output: z.string() }),
], { error: (i) => unsupported(i, ['message', 'function_call', 'function_call_output']) });
const responseParams = z.strictObject({
  conversation: z.union([z.string(), z.literal('none')]).optional(), instructions: z.string().optional(), output_modalities: z.array(z.string()).optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(), input: z.array(z.unknown()).optional(), tools: z.array(tool).optional(),
  tool_choice: z.unknown().optional(), max_output_tokens: z.union([z.number().int(), z.literal('inf')]).optional(), audio: z.unknown().optional(), prompt: z.unknown().optional(),
});

/** Every client event: its type decides its shape (an unknown type names the supported ones). */
export const REALTIME_CLIENT_EVENT = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('session.update'), event_id: eventId, session: z.discriminatedUnion('type', [realtimeSession, transcriptionSession], { error: (i) => unsupported(i, ['realtime', 'transcription']) }) }),
  z.strictObject({ type: z.literal('input_audio_buffer.append'), event_id: eventId, audio: z.string() }),
  z.strictObject({ type: z.literal('input_audio_buffer.commit'), event_id: eventId }),
  z.strictObject({ type: z.literal('input_audio_buffer.clear'), event_id: eventId }),
  z.strictObject({ type: z.literal('output_audio_buffer.clear'), event_id: eventId }),
  z.strictObject({ type: z.literal('conversation.item.create'), event_id: eventId, previous_item_id: z.string().nullable().optional(), item }),
  z.strictObject({ type: z.literal('conversation.item.truncate'), event_id: eventId, item_id: z.string(), content_index: z.number().int(), audio_end_ms: z.number().int() }),
  z.strictObject({ type: z.literal('conversation.item.delete'), event_id: eventId, item_id: z.string() }),
  z.strictObject({ type: z.literal('conversation.item.retrieve'), event_id: eventId, item_id: z.string() }),
  z.strictObject({ type: z.literal('response.create'), event_id: eventId, response: responseParams.optional() }),
  z.strictObject({ type: z.literal('response.cancel'), event_id: eventId, response_id: z.string().optional() }),
], { error: (i) => unsupported(i, CLIENT_EVENT_TYPES) });

/** The Realtime API's words for a refused event: code, message, param (the error event's fields). */
export function realtimeWords(p: Problem): { code: string; message: string; param: string | null } {
  if (p.kind === 'unknown') return { code: 'unknown_parameter', message: `Unknown parameter: '${p.path}'.`, param: p.path };
  if (p.kind === 'value' && p.message.startsWith("Invalid value: '")) return { code: 'invalid_value', message: p.message, param: p.path };
  if (p.kind === 'value' && p.message.startsWith('Missing required parameter')) return { code: 'missing_required_parameter', message: p.message, param: p.path };
  const w = openAiWords(p);
  return { code: w.code ?? 'invalid_request_error', message: w.message, param: w.param };
}
