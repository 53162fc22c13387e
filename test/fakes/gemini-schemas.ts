/**
 * The requests the fake Gemini API takes (strict.ts), modelled on the v1beta reference (camelCase, as the SDK sends
 * them): generateContent and streamGenerateContent, embedContent, batchEmbedContents; the Live API's client messages
 * (gemini-live.ts); and how Google refuses one: 400 { error: { code, message, status: 'INVALID_ARGUMENT' } }, unknown
 * fields included (the API is a protobuf service and rejects any field it does not know).
 */
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { sendJson } from './script.js';
import type { Endpoint, Problem } from './strict.js';

const PROTO: Record<string, string> = { string: 'TYPE_STRING', number: 'TYPE_FLOAT', int: 'TYPE_INT32', boolean: 'TYPE_BOOL' };
const snake = (path: string) => path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Google's words for a problem; `name` is the request message (GenerateContentRequest). */
export function geminiWords(p: Problem, name = 'Request'): string {
  switch (p.kind) {
    case 'malformed':
    case 'content_type': return 'Invalid JSON payload received. Unexpected token.';
    case 'missing': return `* ${name}.${snake(p.path)}: ${snake(p.path).split('.').pop()!.replace(/\[\d+\]$/, '')} is not specified`;
    case 'type': return `Invalid value at '${snake(p.path)}' (${PROTO[p.expected] ?? p.expected}), ${JSON.stringify(p.input)}`;
    case 'unknown': {
      const at = snake(p.path.slice(0, -p.key.length - 1));
      return `Invalid JSON payload received. Unknown name "${p.key}"${at ? ` at '${at}'` : ''}: Cannot find field.`;
    }
    // A rule of the whole request is worded as the API words it; a field's problem is prefixed with the field.
    case 'value': return p.path === '' ? p.message : `* ${name}.${snake(p.path)}: ${p.message}`;
  }
}

export function refuseGemini(res: ServerResponse, p: Problem, endpoint?: Endpoint): void {
  sendJson(res, 400, { error: { code: 400, message: geminiWords(p, endpoint?.name), status: 'INVALID_ARGUMENT' } });
}

const DATA = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult'] as const;
const json = z.record(z.string(), z.unknown());
const part = z.object({
  text: z.string().optional(),
  inlineData: z.object({ mimeType: z.string(), data: z.string(), displayName: z.string().optional() }).strict().optional(),
  fileData: z.object({ mimeType: z.string().optional(), fileUri: z.string(), displayName: z.string().optional() }).strict().optional(),
  functionCall: z.object({ id: z.string().optional(), name: z.string(), args: json.optional() }).strict().optional(),
  functionResponse: z.object({ id: z.string().optional(), name: z.string(), response: json, willContinue: z.boolean().optional(), scheduling: z.string().optional(), parts: z.array(z.unknown()).optional() }).strict().optional(),
  executableCode: json.optional(),
  codeExecutionResult: json.optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  videoMetadata: json.optional(),
  mediaResolution: json.optional(),
}).strict().superRefine((p, ctx) => {
  const set = DATA.filter((k) => p[k] !== undefined);
  if (set.length === 0) ctx.addIssue({ code: 'custom', path: ['data'], message: "required oneof field 'data' must have one initialized field" });
  if (set.length > 1) ctx.addIssue({ code: 'custom', path: [], message: `Invalid JSON payload received. Oneof field 'data' is already set. Cannot set '${set[1]}'` });
});
const parts = z.array(part).min(1, { error: 'contents.parts must not be empty.' });
const content = z.object({ role: z.enum(['user', 'model'], { error: 'Please use a valid role: user, model.' }).optional(), parts }).strict();
const systemInstruction = z.object({ role: z.string().optional(), parts }).strict();

const functionDeclaration = z.object({
  name: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/, { error: 'Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.' }),
  description: z.string().optional(),
  parameters: json.optional(),
  parametersJsonSchema: z.unknown().optional(),
  response: json.optional(),
  responseJsonSchema: z.unknown().optional(),
  behavior: z.enum(['UNSPECIFIED', 'BLOCKING', 'NON_BLOCKING']).optional(),
}).strict();
const tool = z.object({
  functionDeclarations: z.array(functionDeclaration).optional(),
  googleSearch: json.optional(), googleSearchRetrieval: json.optional(), codeExecution: json.optional(), urlContext: json.optional(),
  fileSearch: json.optional(), googleMaps: json.optional(), computerUse: json.optional(),
}).strict();
const speechConfig = z.object({
  voiceConfig: z.object({ prebuiltVoiceConfig: z.object({ voiceName: z.string() }).strict() }).strict().optional(),
  multiSpeakerVoiceConfig: json.optional(),
  languageCode: z.string().optional(),
}).strict();
const generationConfig = z.object({
  stopSequences: z.array(z.string()).max(5).optional(),
  responseMimeType: z.string().optional(),
  responseSchema: json.optional(),
  responseJsonSchema: z.unknown().optional(),
  responseModalities: z.array(z.enum(['TEXT', 'IMAGE', 'AUDIO'])).optional(),
  candidateCount: z.number().int().min(1).optional(),
  maxOutputTokens: z.number().int().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().min(0).max(1).optional(),
  topK: z.number().int().min(1).optional(),
  seed: z.number().int().optional(),
  presencePenalty: z.number().optional(),
  frequencyPenalty: z.number().optional(),
  responseLogprobs: z.boolean().optional(),
  logprobs: z.number().int().optional(),
  enableEnhancedCivicAnswers: z.boolean().optional(),
  speechConfig: speechConfig.optional(),
  thinkingConfig: z.object({ includeThoughts: z.boolean().optional(), thinkingBudget: z.number().int().optional(), thinkingLevel: z.enum(['LOW', 'MEDIUM', 'HIGH', 'MINIMAL']).optional() }).strict().optional(),
  mediaResolution: z.string().optional(),
  imageConfig: json.optional(),
}).strict();

const functionCalls = (c: { parts: Array<z.infer<typeof part>> }) => c.parts.filter((p) => p.functionCall).length;
const functionResponses = (c: { parts: Array<z.infer<typeof part>> }) => c.parts.filter((p) => p.functionResponse).length;

const generateContent = z.object({
  contents: z.array(content).min(1),
  tools: z.array(tool).optional(),
  toolConfig: z.object({
    functionCallingConfig: z.object({ mode: z.enum(['AUTO', 'ANY', 'NONE', 'VALIDATED']).optional(), allowedFunctionNames: z.array(z.string()).optional() }).strict().optional(),
    retrievalConfig: json.optional(),
  }).strict().optional(),
  safetySettings: z.array(z.object({ category: z.string(), threshold: z.string(), method: z.string().optional() }).strict()).optional(),
  systemInstruction: systemInstruction.optional(),
  generationConfig: generationConfig.optional(),
  cachedContent: z.string().optional(),
}).strict().superRefine((b, ctx) => {
  // The function-calling turn order the API enforces.
  b.contents.forEach((c, i) => {
    const prev = b.contents[i - 1];
    if (functionCalls(c) && (!prev || prev.role === 'model')) {
      ctx.addIssue({ code: 'custom', path: [], message: 'Please ensure that function call turn comes immediately after a user turn or after a function response turn.' });
    }
    if (functionResponses(c)) {
      if (!prev || !functionCalls(prev)) ctx.addIssue({ code: 'custom', path: [], message: 'Please ensure that function response turn comes immediately after a function call turn.' });
      else if (functionResponses(c) !== functionCalls(prev)) ctx.addIssue({ code: 'custom', path: [], message: 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.' });
    }
  });
});

const TASKS = ['TASK_TYPE_UNSPECIFIED', 'RETRIEVAL_QUERY', 'RETRIEVAL_DOCUMENT', 'SEMANTIC_SIMILARITY', 'CLASSIFICATION', 'CLUSTERING', 'QUESTION_ANSWERING', 'FACT_VERIFICATION', 'CODE_RETRIEVAL_QUERY'] as const;
const embedFields = {
  content: z.object({ role: z.string().optional(), parts }).strict(),
  taskType: z.enum(TASKS).optional(),
  title: z.string().optional(),
  outputDimensionality: z.number().int().min(1).optional(),
};
const embedContent = z.object({ model: z.string().optional(), ...embedFields }).strict();
const batchEmbedContents = z.object({ requests: z.array(z.object({ model: z.string().regex(/^models\/.+/, { error: 'unexpected model name format' }), ...embedFields }).strict()).min(1).max(100) }).strict();

const method = (m: string) => new RegExp(`^POST /v1beta/models/[^:/]+:${m}$`);
export const GEMINI_ENDPOINTS: readonly Endpoint[] = [
  { route: method('generateContent'), body: 'json', schema: generateContent, name: 'GenerateContentRequest' },
  { route: method('streamGenerateContent'), body: 'json', schema: generateContent, name: 'GenerateContentRequest' },
  { route: method('embedContent'), body: 'json', schema: embedContent, name: 'EmbedContentRequest' },
  { route: method('batchEmbedContents'), body: 'json', schema: batchEmbedContents, name: 'BatchEmbedContentsRequest' },
];

// The Live API (BidiGenerateContent): one of four client messages a frame.
const liveSetup = z.object({
  model: z.string().regex(/^models\/.+/, { error: 'unexpected model name format' }),
  generationConfig: generationConfig.extend({ enableAffectiveDialog: z.boolean().optional() }).optional(),
  systemInstruction: systemInstruction.optional(),
  tools: z.array(tool).optional(),
  realtimeInputConfig: z.object({
    automaticActivityDetection: z.object({
      disabled: z.boolean().optional(), startOfSpeechSensitivity: z.string().optional(), endOfSpeechSensitivity: z.string().optional(),
      prefixPaddingMs: z.number().int().optional(), silenceDurationMs: z.number().int().optional(),
    }).strict().optional(),
    activityHandling: z.enum(['START_OF_ACTIVITY_INTERRUPTS', 'NO_INTERRUPTION']).optional(),
    turnCoverage: z.string().optional(),
  }).strict().optional(),
  sessionResumption: z.object({ handle: z.string().optional(), transparent: z.boolean().optional() }).strict().optional(),
  contextWindowCompression: json.optional(),
  inputAudioTranscription: json.optional(),
  outputAudioTranscription: json.optional(),
  proactivity: json.optional(),
}).strict();
const liveBlob = z.object({ mimeType: z.string(), data: z.string() }).strict();
const realtimeInput = z.object({
  audio: liveBlob.optional(), video: liveBlob.optional(), mediaChunks: z.array(liveBlob).optional(), text: z.string().optional(),
  activityStart: json.optional(), activityEnd: json.optional(), audioStreamEnd: z.boolean().optional(),
}).strict();
const clientContent = z.object({ turns: z.array(content).optional(), turnComplete: z.boolean().optional() }).strict();
const toolResponse = z.object({
  functionResponses: z.array(z.object({ id: z.string().optional(), name: z.string(), response: json, willContinue: z.boolean().optional(), scheduling: z.string().optional() }).strict()),
}).strict();
export const LIVE_MESSAGE = z.object({
  setup: liveSetup.optional(), clientContent: clientContent.optional(), realtimeInput: realtimeInput.optional(), toolResponse: toolResponse.optional(),
}).strict().superRefine((m, ctx) => {
  const set = Object.keys(m).filter((k) => (m as Record<string, unknown>)[k] !== undefined);
  if (set.length !== 1) ctx.addIssue({ code: 'custom', path: [], message: set.length ? `Invalid JSON payload received. Oneof field 'message_type' is already set. Cannot set '${set[1]}'` : "required oneof field 'message_type' must have one initialized field" });
});
