/**
 * The voice engine port: one interface for every way a voice conversation can be carried (ARCHITECTURE.md,
 * Voice). Realtime engines (OpenAI Realtime, Gemini Live) implement it over the provider's socket; cascade
 * (speech to text -> the brain -> text to speech) and hosted agents implement the same shape, so the voice
 * session actor (actors/voice/) relays without knowing which engine it talks to.
 *
 * Audio is PCM16 little-endian mono at the engine's own rates (`inputRate`, `outputRate`): the widget resamples
 * to `inputRate` before sending and plays at `outputRate`, so the server never re-encodes audio.
 */
import type { ToolSpec } from './types.js';

export interface VoiceTurnDetection {
  /** semantic_vad waits for a finished thought; server_vad answers after a pause (kind B; kind C has one kind). */
  type: 'semantic_vad' | 'server_vad';
  eagerness: 'low' | 'medium' | 'high' | 'auto';
}

export interface VoiceSessionSpec {
  /** Empty: the provider's default realtime model. */
  model: string;
  /** Empty: the provider's default voice. */
  voice: string;
  /** The system prompt (identity, personality, instructions, guardrails, language, tools' rules). */
  instructions: string;
  tools: ToolSpec[];
  /** identity.languagePolicy fixed: the engine is told to speak (and transcribe) this language. */
  language: string | null;
  /** null: push-to-talk (no turn detection; audio is committed on release). */
  turnDetection: VoiceTurnDetection | null;
  /** voice.bargeIn: the visitor speaking over the agent stops its reply (push-to-talk always interrupts). */
  bargeIn: boolean;
  /** Spoken replies are capped at 2048 tokens (bot-config.md, brain.maxOutputTokens). */
  maxOutputTokens: number;
  /** The conversation so far (text and earlier voice turns), oldest first, so the engine continues it. */
  history: Array<{ role: 'user' | 'assistant'; text: string }>;
}

/** Token usage of one response, split by modality where the provider says so. */
export interface VoiceUsage {
  inputTextTokens: number;
  inputAudioTokens: number;
  outputTextTokens: number;
  outputAudioTokens: number;
  /**
   * The response's cost when the engine knows it better than token prices can tell (cascade: the brain's tokens at
   * its model's price, plus speech to text and text to speech); absent: priced from the tokens.
   */
  costUsd?: number;
}

/** A cascade stage: speech to text, the brain, text to speech. */
export type VoiceStage = 'stt' | 'brain' | 'tts';

export type VoiceEngineEvent =
  /** The session is configured; audio may flow. */
  | { type: 'ready' }
  /** The engine heard the visitor start speaking (hands-free): barge-in if the agent is speaking. */
  | { type: 'speech_started' }
  | { type: 'speech_stopped' }
  /**
   * The visitor's turn was taken (committed) as item `itemId`; its words follow in `user_transcript`
   * (possibly after the agent's reply has started).
   */
  | { type: 'user_turn'; itemId: string }
  /** The visitor's words for item `itemId` (empty text when nothing intelligible was said). */
  | { type: 'user_transcript'; itemId: string; text: string }
  /** The agent starts speaking item `itemId` (its audio and transcript follow). */
  | { type: 'agent_item'; itemId: string }
  /** A chunk of the agent's audio: PCM16 LE mono at outputRate. */
  /**
   * `headroom`: bytes just before `pcm` in its memory that are free for the listener (a header written in place).
   * `transient`: `pcm` (and its headroom) is the engine's reused memory, valid only during the call; a listener
   * that keeps the chunk past it copies it (copyAudio).
   */
  | { type: 'audio'; itemId: string; pcm: Buffer; headroom?: number; transient?: boolean }
  | { type: 'transcript_delta'; itemId: string; delta: string }
  /** The agent's item is complete (full transcript as generated, before any truncation). */
  | { type: 'agent_item_done'; itemId: string; text: string }
  /** The agent wants a tool run; answer with sendToolResult(callId, ...). */
  | { type: 'tool_call'; callId: string; name: string; arguments: string }
  /** One response ended (all its items, tool calls and usage are known). */
  | { type: 'response_done'; usage: VoiceUsage; status: 'completed' | 'cancelled' | 'incomplete' | 'failed' }
  /** The engine stopped its reply because the visitor spoke over it (Gemini's interrupted). */
  | { type: 'interrupted' }
  /** A non-fatal error (a refused event); fatal errors close the engine (then `closed`). */
  | {
    type: 'error'; message: string; fatal: boolean;
    /** A line for the visitor when the failure changes what they hear, and the cascade stage that failed (the widget words it in the visitor's language). */
    line?: string; stage?: VoiceStage;
    /** The provider failed in a way that will not pass (key refused, address refused): the session ends. */
    lasting?: boolean;
  }
  /** The provider socket closed; no more events follow. */
  | { type: 'closed'; reason: string };

export interface VoiceEngine {
  /** PCM16 sample rate the engine takes (OpenAI 24000, Gemini 16000). */
  readonly inputRate: number;
  /** PCM16 sample rate the engine speaks (24000 for both). */
  readonly outputRate: number;
  /** Opens the provider socket and configures the session; resolves once it is ready (rejects with an ApiError). */
  connect(): Promise<void>;
  /** Visitor audio (PCM16 LE at inputRate), relayed as it comes. */
  appendAudio(pcm: Buffer): void;
  /** As appendAudio for frame[from, end) (the widget's frame after its header), for engines that save the view. */
  appendAudioFrom?(frame: Buffer, from: number): void;
  /** Push-to-talk pressed: drop buffered audio (and interrupt the agent). */
  startTurn(): void;
  /** Push-to-talk released: the buffered audio is the visitor's turn; ask for a reply. */
  commitTurn(): void;
  /** Text the visitor typed during the session: a user turn, then a reply. */
  sendText(text: string): void;
  /** Ask the agent to speak now, optionally with an instruction (welcome.speakGreeting). */
  respond(instructions?: string): void;
  /** A tool's result; the engine continues its reply with it. */
  sendToolResult(callId: string, output: string): void;
  /**
   * Stop the agent's reply: cancel what is being generated and, where the provider keeps context, cut item
   * `itemId` at `playedMs` so the model's memory holds only what the visitor heard.
   */
  interrupt(itemId: string | null, playedMs: number): void;
  /**
   * A camera frame (the camera issue sends them): engines that take pictures see it; a hosted agent, which cannot,
   * gets it described in words by the vision proxy. Optional: engines without it ignore the camera.
   */
  sendImage?(image: { mimeType: string; data: Buffer }): void;
  /** Closes the provider socket (idempotent); `closed` follows. */
  close(): void;
}

/** Receives every engine event, in order. */
export type VoiceEngineListener = (e: VoiceEngineEvent) => void;

type AudioEvent = Extract<VoiceEngineEvent, { type: 'audio' }>;

/** An audio event that may be kept past its call: a transient one's PCM copied (after one spare byte, as decoded). */
export function keptAudio(e: AudioEvent): AudioEvent {
  if (!e.transient) return e;
  const buf = Buffer.allocUnsafe(1 + e.pcm.length);
  e.pcm.copy(buf, 1);
  return { type: 'audio', itemId: e.itemId, pcm: buf.subarray(1), headroom: 1 };
}
