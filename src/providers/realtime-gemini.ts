/**
 * Kind C voice: Gemini Live (BidiGenerateContent over WebSocket) behind the voice engine port. The SDK speaks the
 * protocol; the socket goes through the outbound address guard (gemini-live-socket.ts).
 *
 * Gemini has no "committed" or "response created" events, so this adapter makes them: one item id per visitor
 * turn (on its first transcription, or on push-to-talk release), one agent item per model turn (on its first audio
 * or transcription), and a response that ends at turnComplete, at a tool call, or when the visitor interrupts.
 */
import { randomUUID } from 'node:crypto';
import type { FunctionCall, LiveServerMessage, Session, UsageMetadata } from '@google/genai';
import { ApiError } from '../kernel/errors.js';
import { providerError } from './errors.js';
import { GEMINI_BASE_URL } from './gemini.js';
import { closeError, GEMINI_LIVE_DEFAULTS, historyTurns, liveConfig, voiceUsage } from './gemini-live-setup.js';
import { GuardedGenAI, type GuardedLiveSocket } from './gemini-live-socket.js';
import { decodeWithHeadroom } from './realtime-openai-audio.js';
import type { ProviderConnection } from './types.js';
import type { VoiceEngine, VoiceEngineEvent, VoiceEngineListener, VoiceSessionSpec } from './voice-engine.js';

export { GEMINI_LIVE_DEFAULTS };
const LABEL = 'Google Gemini';
const INPUT_MIME = 'audio/pcm;rate=16000';

export interface GeminiLiveOptions {
  allowPrivateNetwork: boolean;
  /** From opening the socket to setupComplete; 15 s by default. */
  connectTimeoutMs?: number;
}

type State = 'new' | 'connecting' | 'open' | 'closed';
/** The model turn being received: its agent item (null once done or before its first output) and how it ends. */
interface Reply { itemId: string | null; text: string; muted: boolean; cancelled: boolean }

export class GeminiLiveEngine implements VoiceEngine {
  readonly inputRate = 16_000;
  readonly outputRate = 24_000;
  private readonly ai: GuardedGenAI;
  private readonly baseUrl: string;
  private readonly pushToTalk: boolean;
  private readonly connectTimeoutMs: number;
  private state: State = 'new';
  private socket: GuardedLiveSocket | null = null;
  private session: Session | null = null;
  private rejectConnect: ((err: unknown) => void) | null = null;
  private socketError: unknown = null;
  private goingAway = false;
  private activityOpen = false;
  /** The visitor's open turn; `answered` once a reply to it has started (that reply's end closes it). */
  private user: { itemId: string; text: string; answered: boolean } | null = null;
  private reply: Reply | null = null;
  private usage: UsageMetadata | null = null;
  /** Function names by call id: Gemini wants the name back with each result. */
  private readonly calls = new Map<string, string>();

  constructor(conn: ProviderConnection, private readonly spec: VoiceSessionSpec, private readonly onEvent: VoiceEngineListener, opts: GeminiLiveOptions) {
    this.baseUrl = (conn.baseUrl || GEMINI_BASE_URL).replace(/\/+$/, '');
    this.pushToTalk = spec.turnDetection === null;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? GEMINI_LIVE_DEFAULTS.connectTimeoutMs;
    this.ai = new GuardedGenAI(
      { vertexai: false, apiKey: conn.apiKey, httpOptions: { baseUrl: this.baseUrl } },
      { allowPrivateNetwork: opts.allowPrivateNetwork, handshakeTimeoutMs: this.connectTimeoutMs, onSocket: (s) => { this.socket = s; } },
    );
  }

  async connect(): Promise<void> {
    if (this.state !== 'new') throw new ApiError('internal', 500, 'this Gemini Live engine was already connected once; create a new one');
    this.state = 'connecting';
    const settled = new Promise<void>((resolve, reject) => {
      this.rejectConnect = reject;
      this.ai.guardedLive.connect({
        model: this.spec.model || GEMINI_LIVE_DEFAULTS.model,
        config: liveConfig(this.spec),
        callbacks: {
          onmessage: (m) => this.guard(() => this.onMessage(m)),
          onerror: (e: { error?: unknown; message?: string }) => { this.socketError = e?.error ?? new Error(e?.message || 'socket error'); },
          onclose: (e: { code: number; reason: string }) => this.guard(() => this.onClose(e.code, String(e.reason ?? ''))),
        },
      }).then((session) => {
        if (this.state !== 'connecting') { session.close(); return; }
        this.session = session;
        const turns = historyTurns(this.spec);
        // turnComplete false: the past is context, not a question to answer now.
        if (turns.length) session.sendClientContent({ turns, turnComplete: false });
        this.state = 'open';
        this.rejectConnect = null;
        resolve();
      }, (err: unknown) => this.failConnect(err));
    });
    const timer = setTimeout(() => this.failConnect(new ApiError('internal', 504,
      `${LABEL} did not set up the voice session within ${this.connectTimeoutMs >= 1000 ? `${Math.round(this.connectTimeoutMs / 1000)} s` : `${this.connectTimeoutMs} ms`} (${this.baseUrl}); try again, or check the model name`,
      {}, { retryable: true })), this.connectTimeoutMs);
    try {
      await settled;
    } finally {
      clearTimeout(timer);
    }
    // close() may have run while setup finished.
    if ((this.state as State) === 'open') this.emit({ type: 'ready' });
  }

  appendAudio(pcm: Buffer): void {
    if (this.state !== 'open' || pcm.length === 0) return;
    this.session!.sendRealtimeInput({ audio: { data: pcm.toString('base64'), mimeType: INPUT_MIME } });
  }

  /** A camera frame of the live view (vision.webcam continuous): Gemini Live takes video as a stream of pictures. */
  sendImage(image: { mimeType: string; data: Buffer }): void {
    if (this.state !== 'open') return;
    this.session!.sendRealtimeInput({ video: { data: image.data.toString('base64'), mimeType: image.mimeType } });
  }

  startTurn(): void {
    if (this.state !== 'open') return;
    this.finishUser();
    this.muteReply();
    // With automatic detection off, activityStart also makes Gemini stop the reply it is generating.
    if (this.pushToTalk && !this.activityOpen) {
      this.activityOpen = true;
      this.session!.sendRealtimeInput({ activityStart: {} });
    }
  }

  commitTurn(): void {
    if (this.state !== 'open') return;
    if (!this.pushToTalk) {
      // Hands-free: tell Gemini's detector the stream paused, so it closes the turn now.
      this.session!.sendRealtimeInput({ audioStreamEnd: true });
      return;
    }
    if (!this.activityOpen) return;
    this.activityOpen = false;
    this.session!.sendRealtimeInput({ activityEnd: {} });
    this.openUser();
  }

  sendText(text: string): void {
    if (this.state !== 'open') return;
    this.finishUser();
    this.session!.sendClientContent({ turns: [{ role: 'user', parts: [{ text }] }], turnComplete: true });
  }

  respond(instructions?: string): void {
    if (this.state !== 'open') return;
    // Gemini answers a completed client turn; the instruction (a greeting prompt) is that turn's text.
    if (instructions) this.session!.sendClientContent({ turns: [{ role: 'user', parts: [{ text: instructions }] }], turnComplete: true });
    else this.session!.sendClientContent({ turnComplete: true });
  }

  sendToolResult(callId: string, output: string): void {
    const name = this.calls.get(callId);
    // Unknown ids are calls Gemini cancelled (toolCallCancellation): a late result has nothing to answer.
    if (this.state !== 'open' || name === undefined) return;
    this.calls.delete(callId);
    this.session!.sendToolResponse({ functionResponses: [{ id: callId, name, response: { output } }] });
  }

  interrupt(): void {
    // Gemini keeps no item that could be cut at a played position; the rest of this reply is dropped here.
    if (this.state === 'open') this.muteReply();
  }

  close(): void {
    if (this.state === 'closed') return;
    if (this.state === 'new') { this.state = 'closed'; return; }
    if (this.state === 'connecting') {
      this.failConnect(new ApiError('internal', 503, 'the voice session was closed before Google Gemini was ready'));
      this.emit({ type: 'closed', reason: 'closed' });
      return;
    }
    this.socket?.close();
    this.finish(null, 'closed');
  }

  private onMessage(m: LiveServerMessage): void {
    if (this.state === 'closed') return;
    if (m.usageMetadata) this.usage = m.usageMetadata;
    const sc = m.serverContent;
    if (sc) {
      if (sc.inputTranscription?.text) this.heard(sc.inputTranscription.text);
      if (sc.interrupted) this.interrupted();
      for (const part of sc.modelTurn?.parts ?? []) {
        if (part.inlineData?.data && !part.thought) this.audio(part.inlineData.data);
      }
      if (sc.outputTranscription?.text) this.spoken(sc.outputTranscription.text);
      if (sc.turnComplete) this.turnComplete();
    }
    if (m.toolCall?.functionCalls?.length) this.toolCalls(m.toolCall.functionCalls);
    for (const id of m.toolCallCancellation?.ids ?? []) this.calls.delete(id);
    const activity = m.voiceActivity?.voiceActivityType;
    if (activity === 'ACTIVITY_START') this.emit({ type: 'speech_started' });
    else if (activity === 'ACTIVITY_END') this.emit({ type: 'speech_stopped' });
    if (m.goAway) {
      // No session resumption: the session ends, after the reply in progress if there is one.
      this.goingAway = true;
      if (!this.reply && this.state === 'open') this.shutdown(`${LABEL} ended the session (go away, ${m.goAway.timeLeft ?? 'now'} left)`);
    }
  }

  private openUser(): void {
    if (this.user) return;
    // A reply already under way answers this turn (Gemini may speak before the transcription arrives), unless it
    // is the old reply that push-to-talk just cut off.
    const r = this.reply;
    this.user = { itemId: newId('user'), text: '', answered: !!r && !r.muted && !r.cancelled };
    this.emit({ type: 'user_turn', itemId: this.user.itemId });
  }

  private heard(text: string): void {
    this.openUser();
    this.user!.text += text;
  }

  private finishUser(): void {
    if (!this.user) return;
    const { itemId, text } = this.user;
    this.user = null;
    this.emit({ type: 'user_transcript', itemId, text: text.trim() });
  }

  private startReply(): Reply {
    // Output after an interruption without its turnComplete starts a new response.
    if (this.reply?.cancelled) this.endResponse('cancelled');
    if (!this.reply) {
      this.reply = { itemId: null, text: '', muted: false, cancelled: false };
      if (this.user) this.user.answered = true;
    }
    return this.reply;
  }

  private ensureItem(r: Reply): string {
    if (!r.itemId) {
      r.itemId = newId('item');
      this.emit({ type: 'agent_item', itemId: r.itemId });
    }
    return r.itemId;
  }

  private audio(b64: string): void {
    const r = this.startReply();
    if (r.muted) return;
    const itemId = this.ensureItem(r);
    // Decoded after a spare byte: the widget frame's header goes there, no copy of the PCM (as the OpenAI engine).
    this.emit({ type: 'audio', itemId, pcm: decodeWithHeadroom(b64), headroom: 1 });
  }

  private spoken(text: string): void {
    const r = this.startReply();
    r.text += text;
    if (!r.muted) this.emit({ type: 'transcript_delta', itemId: this.ensureItem(r), delta: text });
  }

  private muteReply(): void {
    if (this.reply) this.reply.muted = true;
  }

  private closeItem(): void {
    const r = this.reply;
    if (!r?.itemId) return;
    this.emit({ type: 'agent_item_done', itemId: r.itemId, text: r.text });
    r.itemId = null;
    r.text = '';
  }

  private interrupted(): void {
    this.emit({ type: 'speech_started' });
    this.emit({ type: 'interrupted' });
    // Hands-free, the turn being answered is over; push-to-talk already closed it on press.
    if (!this.pushToTalk) this.finishUser();
    if (!this.reply) return;
    this.closeItem();
    this.reply.cancelled = true;
  }

  private toolCalls(calls: FunctionCall[]): void {
    this.startReply();
    if (this.user?.answered) this.finishUser();
    this.closeItem();
    for (const c of calls) {
      const callId = c.id ?? newId('call');
      this.calls.set(callId, c.name ?? '');
      this.emit({ type: 'tool_call', callId, name: c.name ?? '', arguments: JSON.stringify(c.args ?? {}) });
    }
    // The calls end this response, as in OpenAI's shape; the model's answer after the results is the next one.
    this.endResponse('completed');
  }

  private turnComplete(): void {
    // An old reply's late turnComplete must not close a visitor turn it never answered.
    if (this.user?.answered) this.finishUser();
    if (!this.reply && !this.usage) return;
    this.closeItem();
    this.endResponse(this.reply?.cancelled || this.reply?.muted ? 'cancelled' : 'completed');
  }

  private endResponse(status: 'completed' | 'cancelled' | 'incomplete' | 'failed'): void {
    this.closeItem();
    const usage = voiceUsage(this.usage);
    this.reply = null;
    this.usage = null;
    this.emit({ type: 'response_done', usage, status });
    if (this.goingAway && this.state === 'open') this.shutdown(`${LABEL} ended the session (go away)`);
  }

  private shutdown(reason: string): void {
    this.socket?.close();
    this.finish(null, reason);
  }

  private onClose(code: number, reason: string): void {
    if (this.state === 'connecting') { this.failConnect(closeError(code, reason, this.socketError)); return; }
    if (this.state !== 'open') return;
    const why = reason || (this.socketError as Error | null)?.message || '';
    this.finish(code === 1000 ? null : `${LABEL} ended the voice session (${code}${why ? `: ${why}` : ''})`, why || `socket closed (${code})`);
  }

  /** Ends an open session: what was under way is closed out, then error (when fatal) and closed. */
  private finish(fatal: string | null, reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.finishUser();
    if (this.reply) {
      this.closeItem();
      this.reply = null;
      this.emit({ type: 'response_done', usage: voiceUsage(this.usage), status: fatal ? 'failed' : 'incomplete' });
    }
    if (fatal) this.emit({ type: 'error', message: fatal, fatal: true });
    this.emit({ type: 'closed', reason });
  }

  private failConnect(err: unknown): void {
    if (this.state !== 'connecting') return;
    this.state = 'closed';
    this.socket?.close();
    const reject = this.rejectConnect;
    this.rejectConnect = null;
    reject?.(providerError(err, { label: LABEL, baseUrl: this.baseUrl }));
  }

  /**
   * Runs a socket callback. The SDK calls onmessage from a promise nobody awaits and ws calls onclose from an event
   * emitter, so an exception escaping here (a throwing listener) would crash the process: it ends the session instead.
   */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      if (this.state === 'connecting') { this.failConnect(err); return; }
      try {
        this.socket?.close();
        this.finish(`the voice session failed while handling a Google Gemini event: ${(err as Error)?.message ?? err}`, 'engine error');
      } catch {
        // The listener threw again while being told; the socket is closing and nothing more is emitted.
        this.state = 'closed';
      }
    }
  }

  private emit(e: VoiceEngineEvent): void {
    this.onEvent(e);
  }
}

function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
}
