/**
 * The hosted-agent API of a kind D speech provider (ElevenLabs Conversational AI's wire shapes): the agent
 * definition this server keeps at the provider for a bot, and the messages of the conversation socket. Neutral
 * names outside (bot-config.md rule 7), the provider's field names only here.
 */
import type { ToolSpec } from '../types.js';
import type { VoiceSessionSpec } from '../voice-engine.js';

/** What the hosted-agent engine and the provider's API are called in messages people read. */
export const HOSTED_AGENT_LABEL = 'the speech provider';

/** Visitor audio goes up as PCM16 at 16 kHz (the provider's native input); the agent speaks PCM16 at 24 kHz. */
export const HOSTED_AGENT_RATES = Object.freeze({ input: 16_000, output: 24_000 });
export const INPUT_FORMAT = `pcm_${HOSTED_AGENT_RATES.input}`;
export const OUTPUT_FORMAT = `pcm_${HOSTED_AGENT_RATES.output}`;

/** Everything the server decides about a bot's hosted agent, in neutral words (src/voice/hosted-agent.ts fills it). */
export interface AgentDefinition {
  name: string;
  /** The system prompt without per-conversation parts (each conversation sends its own, see sessionStart). */
  prompt: string;
  /** Spoken when a conversation starts with voice (welcome.speakGreeting); empty: the agent waits for the visitor. */
  firstMessage: string;
  /** BCP 47 tag; the provider takes the two-letter language. */
  language: string;
  voice: string;
  /** Empty: the provider's default speech model. */
  ttsModel: string;
  /** Empty: the provider's default LLM. */
  llm: string;
  temperature: number | null;
  maxOutputTokens: number;
  /** Declared as client tools: their calls come back over the conversation socket and run on this server. */
  tools: ToolSpec[];
  /** voice.bargeIn: the provider interrupts its reply when the visitor speaks over it. */
  bargeIn: boolean;
  /** The provider ends a conversation after this long (voice.maxSessionMinutes; this server ends it first). */
  maxDurationSeconds: number;
}

/** Server events the agent sends; `interruption` only when barge-in is on (without it the provider does not interrupt). */
function clientEvents(bargeIn: boolean): string[] {
  const events = ['conversation_initiation_metadata', 'ping', 'audio', 'user_transcript', 'agent_response', 'agent_response_correction', 'client_tool_call'];
  return bargeIn ? [...events, 'interruption'] : events;
}

export const languageCode = (tag: string) => tag.slice(0, 2).toLowerCase();

/** The body of POST /v1/convai/agents/create and PATCH /v1/convai/agents/{id}. */
export function agentBody(d: AgentDefinition): Record<string, unknown> {
  const prompt: Record<string, unknown> = { prompt: d.prompt, max_tokens: d.maxOutputTokens, tools: d.tools.map(clientTool) };
  if (d.llm) prompt.llm = d.llm;
  if (d.temperature !== null) prompt.temperature = d.temperature;
  return {
    name: d.name,
    conversation_config: {
      agent: { first_message: d.firstMessage, language: languageCode(d.language), prompt },
      asr: { user_input_audio_format: INPUT_FORMAT },
      tts: { voice_id: d.voice, ...(d.ttsModel ? { model_id: d.ttsModel } : {}), agent_output_audio_format: OUTPUT_FORMAT },
      conversation: { max_duration_seconds: d.maxDurationSeconds, client_events: clientEvents(d.bargeIn) },
    },
    platform_settings: {
      // Only a signed URL asked for with the key opens a conversation: visitors reach the agent through this server.
      auth: { enable_auth: true },
      // Each conversation brings its own prompt (page, visitor, date, history), greeting choice and fixed language.
      overrides: { conversation_config_override: { agent: { prompt: { prompt: true }, first_message: true, language: true } } },
    },
  };
}

/** A tool as a client tool: the provider asks this server to run it and waits for the result. */
function clientTool(t: ToolSpec): Record<string, unknown> {
  return {
    type: 'client', name: t.name, description: t.description || t.name, expects_response: true, response_timeout_secs: 30,
    parameters: schemaFor(t.parameters, t.description || t.name),
  };
}

/**
 * The provider's JSON schema subset: object, array and literal properties, each with a description (it asks the
 * model for each value by its description), enums kept; other keywords (formats, lengths) are dropped.
 */
function schemaFor(s: Record<string, any> | undefined, description: string): Record<string, unknown> {
  const raw = s?.type;
  const type: string = Array.isArray(raw) ? raw.find((x) => x !== 'null') ?? 'string' : typeof raw === 'string' ? raw : s?.properties ? 'object' : 'string';
  const own = typeof s?.description === 'string' && s.description ? s.description : description;
  if (type === 'object') {
    const props = Object.entries((s?.properties ?? {}) as Record<string, Record<string, any>>)
      .map(([k, v]) => [k, schemaFor(v, k.replace(/[_-]+/g, ' '))] as const);
    const required = Array.isArray(s?.required) ? s.required.filter((k: unknown) => typeof k === 'string') : [];
    return { type, description: own, properties: Object.fromEntries(props), required };
  }
  if (type === 'array') return { type, description: own, items: schemaFor(s?.items, `one of: ${own}`) };
  return { type: ['string', 'number', 'integer', 'boolean'].includes(type) ? type : 'string', description: own, ...(Array.isArray(s?.enum) ? { enum: s.enum } : {}) };
}

const MAX_HISTORY_CHARS = 12_000;

/**
 * The first message on the conversation socket: this conversation's prompt (with the conversation so far, since the
 * provider takes no history items), no greeting unless `greet`, and the language when it is fixed.
 */
export function sessionStart(spec: VoiceSessionSpec, greet: boolean): Record<string, unknown> {
  let prompt = spec.instructions;
  if (spec.history.length) {
    let lines = spec.history.map((h) => `${h.role === 'user' ? 'Visitor' : 'You'}: ${h.text.replace(/\s+/g, ' ').trim()}`);
    while (lines.length > 1 && lines.join('\n').length > MAX_HISTORY_CHARS) lines = lines.slice(1);
    prompt += `\n\nThe conversation so far (continue it; do not greet the visitor again):\n${lines.join('\n')}`;
  }
  const agent: Record<string, unknown> = { prompt: { prompt } };
  if (!greet) agent.first_message = '';
  if (spec.language) agent.language = languageCode(spec.language);
  return { type: 'conversation_initiation_client_data', conversation_config_override: { agent } };
}

/** Server events of the conversation socket this engine reads. */
export type AgentServerEvent =
  | { type: 'conversation_initiation_metadata'; conversation_initiation_metadata_event?: { conversation_id?: string; agent_output_audio_format?: string; user_input_audio_format?: string } }
  | { type: 'ping'; ping_event?: { event_id?: number; ping_ms?: number | null } }
  | { type: 'audio'; audio_event?: { audio_base_64?: string; event_id?: number } }
  | { type: 'user_transcript'; user_transcription_event?: { user_transcript?: string } }
  | { type: 'agent_response'; agent_response_event?: { agent_response?: string; event_id?: number } }
  | { type: 'agent_response_correction'; agent_response_correction_event?: { original_agent_response?: string; corrected_agent_response?: string } }
  | { type: 'interruption'; interruption_event?: { event_id?: number } }
  | { type: 'client_tool_call'; client_tool_call?: { tool_name?: string; tool_call_id?: string; parameters?: Record<string, unknown> } }
  | { type: 'error'; error_event?: { message?: string }; message?: string };
