/**
 * The requests the fake OpenAI API takes (strict.ts), modelled on the API reference: chat completions, embeddings,
 * speech, transcriptions; and how OpenAI refuses one: 400 with { error: { message, type, param, code } }.
 */
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { sendJson } from './script.js';
import { filePart, type Endpoint, type Problem } from './strict.js';

const NOT_JSON = "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)";

const A: Record<string, string> = { array: 'an array', object: 'an object', integer: 'an integer', undefined: 'nothing' };
const an = (t: string) => A[t] ?? `a ${t}`;

/** OpenAI's words for a problem (HTTP and Realtime alike): message, param, code. */
export function openAiWords(p: Problem): { message: string; param: string | null; code: string | null } {
  switch (p.kind) {
    case 'malformed': return { message: NOT_JSON, param: null, code: null };
    case 'content_type': return p.wants === 'multipart'
      ? { message: 'Could not parse multipart form', param: null, code: null }
      : { message: NOT_JSON, param: null, code: null };
    case 'missing': return { message: `Missing required parameter: '${p.path}'.`, param: p.path, code: 'missing_required_parameter' };
    case 'type': return { message: `Invalid type for '${p.path}': expected ${an(p.expected)}, but got ${an(p.got)} instead.`, param: p.path, code: 'invalid_type' };
    case 'unknown': return { message: `Unrecognized request argument supplied: ${p.key}`, param: null, code: null };
    case 'value': return { message: p.worded ? p.message : `Invalid '${p.path}': ${p.message}`, param: p.path, code: 'invalid_value' };
  }
}

export function refuseOpenAi(res: ServerResponse, p: Problem): void {
  sendJson(res, 400, { error: { ...pick(openAiWords(p)), type: 'invalid_request_error' } });
}
const pick = (w: ReturnType<typeof openAiWords>) => ({ message: w.message, param: w.param, code: w.code });

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const contentPart = z.discriminatedUnion('type', [
  textPart,
  z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).optional() }) }),
  z.object({ type: z.literal('input_audio'), input_audio: z.object({ data: z.string(), format: z.enum(['wav', 'mp3']) }) }),
  z.object({ type: z.literal('file'), file: z.object({ file_data: z.string(), file_id: z.string(), filename: z.string() }).partial() }),
]);
const toolCall = z.object({ id: z.string(), type: z.literal('function'), function: z.object({ name: z.string(), arguments: z.string() }) });
const instructions = z.union([z.string(), z.array(textPart)]);
const message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: instructions, name: z.string().optional() }),
  z.object({ role: z.literal('developer'), content: instructions, name: z.string().optional() }),
  z.object({ role: z.literal('user'), content: z.union([z.string(), z.array(contentPart)]), name: z.string().optional() }),
  z.object({
    role: z.literal('assistant'), content: z.union([z.string(), z.array(textPart)]).nullable().optional(), name: z.string().optional(),
    refusal: z.string().nullable().optional(), tool_calls: z.array(toolCall).optional(),
  }),
  z.object({ role: z.literal('tool'), content: instructions, tool_call_id: z.string() }),
]);
const functionName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, { error: "string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'." });
const tool = z.object({
  type: z.literal('function'),
  function: z.object({ name: functionName, description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional(), strict: z.boolean().nullable().optional() }),
});
/** OpenAI's reasoning models (o-series, gpt-5 but its chat aliases), which refuse max_tokens and a temperature. */
const reasoning = (model: string) => /^o\d/.test(model) || (/^gpt-5/.test(model) && !/chat/.test(model));

/** POST /v1/chat/completions, unknown arguments refused, and the conversation rules the API enforces. */
const chatCompletion = z.object({
  model: z.string(),
  messages: z.array(message).min(1),
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional(), include_obfuscation: z.boolean().optional() }).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  n: z.number().int().min(1).max(128).nullable().optional(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullable().optional(),
  max_tokens: z.number().int().min(1).nullable().optional(),
  max_completion_tokens: z.number().int().min(1).nullable().optional(),
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
  logit_bias: z.record(z.string(), z.number()).nullable().optional(),
  logprobs: z.boolean().nullable().optional(),
  top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
  user: z.string().optional(),
  safety_identifier: z.string().optional(),
  prompt_cache_key: z.string().optional(),
  tools: z.array(tool).optional(),
  tool_choice: z.union([z.enum(['none', 'auto', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) })]).optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: z.object({ type: z.enum(['text', 'json_object', 'json_schema']) }).loose().optional(),
  seed: z.number().int().nullable().optional(),
  service_tier: z.enum(['auto', 'default', 'flex', 'scale', 'priority']).nullable().optional(),
  store: z.boolean().nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
  reasoning_effort: z.enum(['minimal', 'low', 'medium', 'high']).nullable().optional(),
  verbosity: z.enum(['low', 'medium', 'high']).nullable().optional(),
  modalities: z.array(z.enum(['text', 'audio'])).nullable().optional(),
}).strict().superRefine((b, ctx) => {
  if (b.stream_options && !b.stream) ctx.addIssue({ code: 'custom', path: ['stream_options'], message: "The 'stream_options' parameter is only allowed when 'stream' is enabled." });
  if (reasoning(b.model) && b.max_tokens != null) ctx.addIssue({ code: 'custom', path: ['max_tokens'], message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead." });
  if (reasoning(b.model) && b.temperature != null && b.temperature !== 1) ctx.addIssue({ code: 'custom', path: ['temperature'], message: `Unsupported value: 'temperature' does not support ${b.temperature} with this model. Only the default (1) value is supported.` });
  if (b.reasoning_effort != null && /^(gpt-4|gpt-3\.5)/.test(b.model)) ctx.addIssue({ code: 'custom', path: ['reasoning_effort'], message: "Unsupported parameter: 'reasoning_effort' is not supported with this model." });
  // Each tool message answers a call of the assistant message before it, and every call is answered.
  let open: string[] = [];
  b.messages.forEach((m, i) => {
    if (m.role === 'tool') {
      if (!open.includes(m.tool_call_id)) {
        ctx.addIssue({ code: 'custom', path: ['messages', i, 'role'], message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'." });
      }
      open = open.filter((id) => id !== m.tool_call_id);
      return;
    }
    if (open.length) {
      ctx.addIssue({ code: 'custom', path: ['messages', i - 1, 'role'], message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}` });
      open = [];
    }
    if (m.role === 'assistant') {
      if (m.content == null && !m.tool_calls?.length) ctx.addIssue({ code: 'custom', path: ['messages', i, 'content'], message: `Invalid value for 'messages[${i}].content': expected a string, got null.` });
      open = (m.tool_calls ?? []).map((c) => c.id);
    }
  });
  if (open.length) ctx.addIssue({ code: 'custom', path: ['messages', b.messages.length - 1, 'role'], message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}` });
});

const embeddings = z.object({
  model: z.string(),
  input: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(2048), z.array(z.number().int()).min(1), z.array(z.array(z.number().int()).min(1)).min(1)]),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().min(1).optional(),
  user: z.string().optional(),
}).strict();

const speech = z.object({
  model: z.string(),
  input: z.string().max(4096),
  voice: z.union([z.string(), z.object({ id: z.string() })]),
  instructions: z.string().max(4096).optional(),
  response_format: z.enum(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']).optional(),
  speed: z.number().min(0.25).max(4).optional(),
  stream_format: z.enum(['sse', 'audio']).optional(),
}).strict();

/** Multipart: every field is text except the file; fields the endpoint does not know are not refused. */
const transcription = z.object({
  file: filePart,
  model: z.string().min(1),
  language: z.string().optional(),
  prompt: z.string().optional(),
  response_format: z.enum(['json', 'text', 'srt', 'verbose_json', 'vtt', 'diarized_json']).optional(),
  temperature: z.string().regex(/^(0(\.\d+)?|1(\.0+)?)$/).optional(),
});

export const OPENAI_ENDPOINTS: readonly Endpoint[] = [
  { route: 'POST /v1/chat/completions', body: 'json', schema: chatCompletion },
  { route: 'POST /v1/embeddings', body: 'json', schema: embeddings },
  { route: 'POST /v1/audio/speech', body: 'json', schema: speech },
  { route: 'POST /v1/audio/transcriptions', body: 'multipart', schema: transcription },
];
