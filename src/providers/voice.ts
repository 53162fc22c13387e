import { invalid } from '../kernel/errors.js';
import { CascadeEngine, type CascadeConnection } from './cascade/engine.js';
import { GEMINI_VOICES } from './gemini.js';
import { GEMINI_LIVE_DEFAULTS } from './gemini-live-setup.js';
import { HostedAgentEngine, type HostedAgentConnection } from './hosted-agent/engine.js';
import { GeminiLiveEngine } from './realtime-gemini.js';
import { OPENAI_REALTIME_DEFAULTS, OPENAI_REALTIME_VOICES, REALTIME_LABEL } from './realtime-openai-wire.js';
import { OpenAiRealtimeEngine } from './realtime-openai.js';
import type { ProviderConnection } from './types.js';
import type { VoiceEngine, VoiceEngineListener, VoiceSessionSpec } from './voice-engine.js';

export type * from './voice-engine.js';
export { keptAudio } from './voice-engine.js';

/** The realtime model a connection's sessions use when voice.realtime.model is empty. */
export function defaultRealtimeModel(kind: ProviderConnection['kind']): string {
  return kind === 'gemini' ? GEMINI_LIVE_DEFAULTS.model : OPENAI_REALTIME_DEFAULTS.model;
}

/** The realtime engine's name, its voices (neither API lists them) and the voice used when none is chosen. */
export function realtimeVoices(kind: 'openai' | 'gemini'): { engine: string; voices: readonly string[]; default: string } {
  return kind === 'gemini'
    ? { engine: 'Gemini Live', voices: GEMINI_VOICES, default: GEMINI_LIVE_DEFAULTS.voice }
    : { engine: REALTIME_LABEL, voices: OPENAI_REALTIME_VOICES, default: OPENAI_REALTIME_DEFAULTS.voice };
}

/**
 * The voice engine of a connection: kind B OpenAI Realtime, kind C Gemini Live, a kind D connection bound to a
 * hosted agent (src/voice/hosted-agent.ts), or cascade parts (src/voice/cascade-setup.ts). Connects on connect().
 */
export function createVoiceEngine(conn: ProviderConnection, spec: VoiceSessionSpec, onEvent: VoiceEngineListener, opts: { allowPrivateNetwork: boolean }): VoiceEngine {
  if ('cascade' in conn) return new CascadeEngine((conn as CascadeConnection).cascade, spec, onEvent, { allowPrivateNetwork: opts.allowPrivateNetwork });
  if ('hostedAgent' in conn) {
    const c = conn as HostedAgentConnection;
    return new HostedAgentEngine(c, spec, onEvent, { ...c.hostedAgent, allowPrivateNetwork: opts.allowPrivateNetwork });
  }
  switch (conn.kind) {
    case 'openai': return new OpenAiRealtimeEngine(conn, spec, onEvent, opts);
    case 'gemini': return new GeminiLiveEngine(conn, spec, onEvent, opts);
    default: throw invalid(`voice.realtime.connectionId: a ${conn.kind} connection has no realtime voice engine; use OpenAI or Google Gemini`);
  }
}
