/**
 * What the OpenAI Realtime engine says on the wire and how it reads the answers: the session configuration
 * built from a VoiceSessionSpec, the conversation items that seed the history, token usage, and the errors a
 * failed connection becomes. Pure functions, so realtime-openai.ts holds only the socket and its state.
 */
import type {
  ConversationItem, RealtimeAudioInputTurnDetection, RealtimeResponse, RealtimeResponseUsage, RealtimeSessionCreateRequest,
} from 'openai/resources/realtime/realtime';
import { ApiError } from '../kernel/errors.js';
import { providerError } from './errors.js';
import { OPENAI_DEFAULTS } from './openai.js';
import type { VoiceEngineEvent, VoiceSessionSpec, VoiceUsage } from './voice-engine.js';

export const OPENAI_REALTIME_DEFAULTS = Object.freeze({
  model: 'gpt-realtime',
  /** OpenAI recommends marin and cedar for the realtime models. */
  voice: 'marin',
  transcriptionModel: OPENAI_DEFAULTS.sttModel,
});
export const REALTIME_LABEL = 'OpenAI Realtime';
/** The voices the realtime models speak with (fewer than the speech endpoint's: not fable, nova or onyx). */
export const OPENAI_REALTIME_VOICES = Object.freeze(['alloy', 'ash', 'ballad', 'coral', 'echo', 'sage', 'shimmer', 'verse', 'marin', 'cedar']);
/** The GA API speaks and hears PCM16 at 24 kHz only. */
export const REALTIME_RATE = 24_000;
const PCM = { type: 'audio/pcm', rate: REALTIME_RATE } as const;

/** The session.update body: audio in and out, transcription of the visitor, turn detection, tools, the cap. */
export function sessionConfig(spec: VoiceSessionSpec): RealtimeSessionCreateRequest {
  const td = spec.turnDetection;
  // Both kinds answer by themselves, and stop the agent when the visitor speaks over it if barge-in is on;
  // push-to-talk (null) leaves both to commitTurn and startTurn.
  const auto = { create_response: true, interrupt_response: spec.bargeIn };
  const turnDetection: RealtimeAudioInputTurnDetection | null = !td ? null
    : td.type === 'semantic_vad' ? { type: 'semantic_vad', eagerness: td.eagerness, ...auto } : { type: 'server_vad', ...auto };
  return {
    type: 'realtime',
    output_modalities: ['audio'],
    instructions: spec.instructions,
    audio: {
      input: {
        format: PCM,
        transcription: {
          model: OPENAI_REALTIME_DEFAULTS.transcriptionModel,
          // The transcriber takes ISO-639-1 ("en"), the bot a BCP 47 tag ("en-GB").
          ...(spec.language ? { language: spec.language.split('-')[0].toLowerCase() } : {}),
        },
        turn_detection: turnDetection,
      },
      output: { format: PCM, voice: spec.voice || OPENAI_REALTIME_DEFAULTS.voice },
    },
    tools: spec.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters })),
    tool_choice: 'auto',
    max_output_tokens: spec.maxOutputTokens,
  };
}

/** The conversation so far as items: the visitor's turns as input text, the agent's as output text. */
export function historyItems(spec: VoiceSessionSpec): ConversationItem[] {
  return spec.history.filter((h) => h.text).map((h): ConversationItem => (h.role === 'user'
    ? { type: 'message', role: 'user', content: [{ type: 'input_text', text: h.text }] }
    : { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: h.text }] }));
}

export function usageOf(u: RealtimeResponseUsage | undefined): VoiceUsage {
  const inputAudio = u?.input_token_details?.audio_tokens ?? 0;
  const outputAudio = u?.output_token_details?.audio_tokens ?? 0;
  return {
    inputTextTokens: u?.input_token_details?.text_tokens ?? Math.max(0, (u?.input_tokens ?? 0) - inputAudio),
    inputAudioTokens: inputAudio,
    outputTextTokens: u?.output_token_details?.text_tokens ?? Math.max(0, (u?.output_tokens ?? 0) - outputAudio),
    outputAudioTokens: outputAudio,
  };
}

type Status = Extract<VoiceEngineEvent, { type: 'response_done' }>['status'];
export function statusOf(r: RealtimeResponse): Status {
  const s = r.status;
  return s === 'cancelled' || s === 'incomplete' || s === 'failed' ? s : 'completed';
}

/** The agent's words in a finished message item (its audio transcript, or text for a text reply). */
export function transcriptOf(item: ConversationItem): string {
  if (item.type !== 'message' || item.role !== 'assistant') return '';
  return item.content.map((c) => c.transcript ?? c.text ?? '').join('');
}

/** Errors the API sends for races the engine cannot avoid (a cancel that crossed the response's end). */
export const HARMLESS_ERRORS = new Set(['response_cancel_not_active']);

/** What a failed connection attempt becomes (a refused address, an unreachable host, a refused key), as for HTTP. */
export function connectError(err: unknown, baseUrl: string): ApiError {
  return providerError(err, { label: REALTIME_LABEL, baseUrl });
}

/** The session was refused by the API itself (an unknown model, a voice or setting it does not take). */
export function sessionRefused(message: string): ApiError {
  return new ApiError('invalid', 422, `voice.realtime: ${REALTIME_LABEL} refused the voice session (${message}); check the realtime model and voice`);
}

export function closedEarly(code: number, reason: string, baseUrl: string): ApiError {
  return new ApiError('internal', 502, `${REALTIME_LABEL} closed the connection before the voice session was ready (${closeText(code, reason)}, ${baseUrl})`, {}, { retryable: true });
}

export function timedOut(ms: number, baseUrl: string): ApiError {
  return new ApiError('internal', 504, `${REALTIME_LABEL} did not set up the voice session within ${ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`} (${baseUrl}); try again`, {}, { retryable: true });
}

export const closeText = (code: number, reason: string) => (reason ? `${code}: ${reason}` : String(code));
