import { invalid } from '../errors.js';
import { GEMINI_LIVE_DEFAULTS } from './gemini-live-setup.js';
import { GeminiLiveEngine } from './realtime-gemini.js';
import { OPENAI_REALTIME_DEFAULTS } from './realtime-openai-wire.js';
import { OpenAiRealtimeEngine } from './realtime-openai.js';
import type { ProviderConnection } from './types.js';
import type { VoiceEngine, VoiceEngineListener, VoiceSessionSpec } from './voice-engine.js';

export type * from './voice-engine.js';

/** The realtime model a connection's sessions use when voice.realtime.model is empty. */
export function defaultRealtimeModel(kind: ProviderConnection['kind']): string {
  return kind === 'gemini' ? GEMINI_LIVE_DEFAULTS.model : OPENAI_REALTIME_DEFAULTS.model;
}

/** The realtime voice engine of a connection (kind B: OpenAI Realtime; kind C: Gemini Live). Connects on connect(). */
export function createVoiceEngine(conn: ProviderConnection, spec: VoiceSessionSpec, onEvent: VoiceEngineListener, opts: { allowPrivateNetwork: boolean }): VoiceEngine {
  switch (conn.kind) {
    case 'openai': return new OpenAiRealtimeEngine(conn, spec, onEvent, opts);
    case 'gemini': return new GeminiLiveEngine(conn, spec, onEvent, opts);
    default: throw invalid(`voice.realtime.connectionId: a ${conn.kind} connection has no realtime voice engine; use OpenAI or Google Gemini`);
  }
}
