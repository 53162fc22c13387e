import type { ToolCallRecord } from '../../src/records/conversations.js';
import type { VoiceEndReason } from '../../src/conversation/voice-frames.js';
import type { VoiceEngineEvent } from '../../src/providers/voice-engine.js';

/** Everything a voice session actor handles (actor.ts). Microphone audio does not pass here: see relayAudio. */
export type VoiceMsg =
  /** An engine event; audio chunks come here too, so they stay in order with the items they belong to. */
  | { type: 'engine'; event: VoiceEngineEvent }
  // From the widget socket.
  | { type: 'ptt'; down: boolean }
  | { type: 'played'; itemId: string; ms: number }
  /** Text the visitor typed during the session (through the conversation). */
  | { type: 'text'; text: string }
  | { type: 'stop'; reason: VoiceEndReason }
  // Results of work run beside the mailbox.
  | { type: 'toolDone'; callId: string; output: string; endConversation: boolean; rec: ToolCallRecord }
  | { type: 'stored' }
  // Timers.
  | { type: 'maxDuration' }
  | { type: 'idle' }
  /** Periodic: overdue turns stored, caps counted. */
  | { type: 'tick' };
