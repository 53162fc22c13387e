/**
 * What the Gemini Live engine sends and reads besides the turn flow: the session setup built from a
 * VoiceSessionSpec, the history as client turns, token usage by modality, and close codes read as errors.
 */
import {
  ActivityHandling, Behavior, EndSensitivity, MediaModality, Modality,
  type Content, type LiveConnectConfig, type ModalityTokenCount, type RealtimeInputConfig, type UsageMetadata,
} from '@google/genai';
import type { VoiceSessionSpec, VoiceUsage } from './voice-engine.js';

export const GEMINI_LIVE_DEFAULTS = Object.freeze({ model: 'gemini-3.8-live', voice: 'Puck', connectTimeoutMs: 15_000 });

export function liveConfig(s: VoiceSessionSpec): LiveConnectConfig {
  return {
    responseModalities: [Modality.AUDIO],
    speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: s.voice || GEMINI_LIVE_DEFAULTS.voice } }, ...(s.language ? { languageCode: s.language } : {}) },
    ...(s.instructions ? { systemInstruction: s.instructions } : {}),
    // BLOCKING: the model waits for each result, as the port expects (newer Live models default to NON_BLOCKING).
    ...(s.tools.length ? {
      tools: [{ functionDeclarations: s.tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters, behavior: Behavior.BLOCKING })) }],
    } : {}),
    inputAudioTranscription: {},
    outputAudioTranscription: {},
    maxOutputTokens: s.maxOutputTokens,
    realtimeInputConfig: inputConfig(s),
  };
}

function inputConfig(s: VoiceSessionSpec): RealtimeInputConfig | undefined {
  // Push-to-talk: the press and release are the turn (activityStart/activityEnd), and a press always interrupts.
  if (s.turnDetection === null) return { automaticActivityDetection: { disabled: true } };
  const eagerness = s.turnDetection.eagerness;
  const endOfSpeech = eagerness === 'low' ? EndSensitivity.END_SENSITIVITY_LOW : eagerness === 'high' ? EndSensitivity.END_SENSITIVITY_HIGH : undefined;
  if (!endOfSpeech && s.bargeIn) return undefined;
  return {
    ...(endOfSpeech ? { automaticActivityDetection: { endOfSpeechSensitivity: endOfSpeech } } : {}),
    ...(s.bargeIn ? {} : { activityHandling: ActivityHandling.NO_INTERRUPTION }),
  };
}

/** The conversation so far as Gemini client turns (assistant turns are the model's). */
export function historyTurns(s: VoiceSessionSpec): Content[] {
  return s.history.filter((h) => h.text).map((h) => ({ role: h.role === 'assistant' ? 'model' : 'user', parts: [{ text: h.text }] }));
}

/** Gemini closes the socket to report errors; the close code and reason become an error shaped like an HTTP one. */
export function closeError(code: number, reason: string, cause: unknown): unknown {
  const status = /quota|rate limit|resource.?exhausted/i.test(reason) ? 429
    : code === 1007 || code === 1008 ? 400 : code === 1011 ? 500 : code === 1013 ? 503 : undefined;
  if (status !== undefined) return Object.assign(new Error(reason || `the socket closed with code ${code}`), { status });
  return cause ?? new Error(`the socket closed (${code}${reason ? `: ${reason}` : ''})`);
}

function split(details: ModalityTokenCount[] | undefined): { audio: number; other: number } | null {
  if (!details?.length) return null;
  let audio = 0;
  let other = 0;
  for (const d of details) {
    if (d.modality === MediaModality.AUDIO) audio += d.tokenCount ?? 0;
    else other += d.tokenCount ?? 0;
  }
  return { audio, other };
}

/** Usage by modality; without details, the prompt counts as text and the (spoken) response as audio. */
export function voiceUsage(u: UsageMetadata | null): VoiceUsage {
  if (!u) return { inputTextTokens: 0, inputAudioTokens: 0, outputTextTokens: 0, outputAudioTokens: 0 };
  const prompt = split(u.promptTokensDetails) ?? { audio: 0, other: u.promptTokenCount ?? 0 };
  const response = split(u.responseTokensDetails) ?? { audio: u.responseTokenCount ?? 0, other: 0 };
  return {
    inputTextTokens: prompt.other + (u.toolUsePromptTokenCount ?? 0),
    inputAudioTokens: prompt.audio,
    // Thinking is billed as output text.
    outputTextTokens: response.other + (u.thoughtsTokenCount ?? 0),
    outputAudioTokens: response.audio,
  };
}

