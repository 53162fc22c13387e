/**
 * Kind B's realtime voice engine: OpenAI's GA Realtime API over the SDK's WebSocket client (OpenAIRealtimeWS),
 * behind the voice engine port. connect() configures the session from the spec and seeds the conversation so
 * far; then visitor audio goes out as input_audio_buffer.append and the agent's comes back as
 * response.output_audio.delta, PCM16 at 24 kHz both ways. Events reach the listener only between a successful
 * connect() and `closed`.
 */
import OpenAI from 'openai';
import type { OpenAIRealtimeError } from 'openai/realtime/internal-base';
import type { OpenAIRealtimeWS } from 'openai/realtime/ws';
import type { RealtimeClientEvent, RealtimeResponse, RealtimeResponseCreateParams, RealtimeServerEvent } from 'openai/resources/realtime/realtime';
import { ApiError } from '../kernel/errors.js';
import { OPENAI_BASE_URL } from './openai.js';
import {
  closedEarly, closeText, connectError, HARMLESS_ERRORS, historyItems, OPENAI_REALTIME_DEFAULTS, REALTIME_LABEL, REALTIME_RATE,
  sessionConfig, sessionRefused, statusOf, timedOut, transcriptOf, usageOf,
} from './realtime-openai-wire.js';
import { decodeWithHeadroom, sendAppend, takeAudioDeltas } from './realtime-openai-audio.js';
import { openRealtimeSocket } from './realtime-openai-socket.js';
import type { ProviderConnection } from './types.js';
import type { VoiceEngine, VoiceEngineEvent, VoiceEngineListener, VoiceSessionSpec } from './voice-engine.js';

export interface OpenAiRealtimeOptions {
  /** ALLOW_PRIVATE_NETWORK: when false, a base URL on a private, loopback or reserved address is refused. */
  allowPrivateNetwork: boolean;
  /** How long connect() waits for the configured session. Default 15000. */
  connectTimeoutMs?: number;
}

const BYTES_PER_MS = (REALTIME_RATE * 2) / 1000;
/** The API refuses to commit less than 100 ms of audio. */
const MIN_COMMIT_BYTES = 100 * BYTES_PER_MS;
/** After close(), how long the close handshake may take before the socket is cut. */
const CLOSE_GRACE_MS = 2_000;

type State = 'idle' | 'connecting' | 'ready' | 'closing' | 'closed';

export class OpenAiRealtimeEngine implements VoiceEngine {
  readonly inputRate = REALTIME_RATE;
  readonly outputRate = REALTIME_RATE;
  private readonly client: OpenAI;
  private readonly baseUrl: string;
  private readonly connectTimeoutMs: number;
  private rt: OpenAIRealtimeWS | null = null;
  private state: State = 'idle';
  /** While connecting: settle connect() (set by connect(), cleared once it settles). */
  private failConnect: ((err: ApiError) => void) | null = null;
  private onReady: () => void = () => {};
  /** A response.create is on its way (its response.created has not come), and its event id. */
  private requested = false;
  private createId = '';
  private createSeq = 0;
  /** The response being generated: response.created seen, response.done not yet. */
  private activeResponse: string | null = null;
  /** A reply asked for while another was being generated; sent once that one is done. */
  private queuedCreate: RealtimeResponseCreateParams | null = null;
  /** Tool calls of the last response: call id -> answered. Its reply continues once all are answered. */
  private readonly calls = new Map<string, boolean>();
  private readonly itemsDone = new Set<string>();
  /** The agent's item being spoken and how much of its audio came, so a truncation stays inside it. */
  private audioItem: string | null = null;
  private audioItemBytes = 0;
  /** Visitor audio appended since the last commit or clear. */
  private bufferedBytes = 0;

  constructor(
    conn: ProviderConnection,
    private readonly spec: VoiceSessionSpec,
    private readonly onEvent: VoiceEngineListener,
    private readonly opts: OpenAiRealtimeOptions,
  ) {
    this.baseUrl = (conn.baseUrl || OPENAI_BASE_URL).replace(/\/+$/, '');
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 15_000;
    this.client = new OpenAI({
      apiKey: conn.apiKey || 'none',
      baseURL: this.baseUrl,
      // Explicit nulls so the SDK never picks up OPENAI_* variables from the environment.
      organization: null, project: null, webhookSecret: null, adminAPIKey: null,
      logLevel: 'off',
    });
  }

  connect(): Promise<void> {
    if (this.state !== 'idle') return Promise.reject(new ApiError('internal', 500, 'this voice engine was already connected; start a new one'));
    this.state = 'connecting';
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => this.failConnect?.(timedOut(this.connectTimeoutMs, this.baseUrl)), this.connectTimeoutMs);
      this.failConnect = (err) => {
        clearTimeout(timer);
        this.failConnect = null;
        this.state = 'closed';
        this.rt?.socket.terminate();
        reject(err);
      };
      this.onReady = () => {
        clearTimeout(timer);
        this.failConnect = null;
        this.state = 'ready';
        this.deliver({ type: 'ready' });
        resolve();
      };
      try {
        this.open();
      } catch (err) {
        this.failConnect(connectError(err, this.baseUrl));
      }
    });
  }

  private open(): void {
    const rt = openRealtimeSocket(this.client, this.baseUrl, this.spec.model || OPENAI_REALTIME_DEFAULTS.model, {
      allowPrivateNetwork: this.opts.allowPrivateNetwork,
      handshakeTimeoutMs: this.connectTimeoutMs,
      onHttpError: (err) => this.failConnect?.(connectError(err, this.baseUrl)),
    });
    this.rt = rt;
    rt.socket.on('open', () => {
      this.send({ type: 'session.update', session: sessionConfig(this.spec) });
      for (const item of historyItems(this.spec)) this.send({ type: 'conversation.item.create', item });
    });
    takeAudioDeltas(rt.socket, () => this.state === 'ready', (itemId, pcm, transient) => this.onAudio(itemId, pcm, transient));
    rt.on('event', (e) => this.onServerEvent(e));
    // Server `error` events are read in onServerEvent; this hears the socket's own failures.
    rt.on('error', (err: OpenAIRealtimeError) => { if (!err.error) this.onSocketError(err); });
    rt.socket.on('close', (code, reason) => this.onClose(code, reason.toString()));
  }

  appendAudio(pcm: Buffer): void {
    this.appendAudioFrom(pcm, 0);
  }

  appendAudioFrom(frame: Buffer, from: number): void {
    if (this.state !== 'ready' || this.rt!.socket.readyState !== 1) return;
    this.bufferedBytes += frame.length - from;
    sendAppend(this.rt!.socket, frame, from);
  }

  startTurn(): void {
    this.cancelResponse();
    this.bufferedBytes = 0;
    this.send({ type: 'input_audio_buffer.clear' });
  }

  commitTurn(): void {
    if (this.state !== 'ready') return;
    if (this.bufferedBytes < MIN_COMMIT_BYTES) {
      this.deliver({ type: 'error', message: 'push-to-talk was released after less than 100 ms of audio; nothing was sent, hold the button while speaking', fatal: false });
      return;
    }
    this.bufferedBytes = 0;
    this.send({ type: 'input_audio_buffer.commit' });
    this.createResponse(null);
  }

  sendText(text: string): void {
    this.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
    this.createResponse(null);
  }

  respond(instructions?: string): void {
    // A response's instructions replace the session's, so the extra instruction is added to them.
    this.createResponse(instructions ? { instructions: `${this.spec.instructions}\n\n${instructions}` } : null);
  }

  sendToolResult(callId: string, output: string): void {
    this.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output } });
    if (!this.calls.has(callId)) return;
    this.calls.set(callId, true);
    if (!this.activeResponse) this.continueAfterTools();
  }

  interrupt(itemId: string | null, playedMs: number): void {
    // A played report may come after the next reply has begun: only the reply still speaking this item is cancelled.
    if (!itemId || (itemId === this.audioItem && this.activeResponse !== null)) this.cancelResponse();
    if (!itemId) return;
    let ms = Math.max(0, Math.round(playedMs));
    // The API refuses a cut past the audio it sent; the widget may report a little more than it got.
    if (itemId === this.audioItem) ms = Math.min(ms, Math.floor(this.audioItemBytes / BYTES_PER_MS));
    this.send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: ms });
  }

  close(): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    if (this.state === 'connecting') {
      this.failConnect?.(new ApiError('internal', 500, 'the voice session was closed before it was ready'));
      return;
    }
    if (this.state === 'idle') { this.state = 'closed'; return; }
    this.state = 'closing';
    this.rt!.close({ code: 1000, reason: 'voice session ended' });
    setTimeout(() => this.rt!.socket.terminate(), CLOSE_GRACE_MS).unref();
  }

  private get responding(): boolean {
    return this.requested || this.activeResponse !== null;
  }

  private createResponse(params: RealtimeResponseCreateParams | null): void {
    if (this.state !== 'ready') return;
    if (this.responding) { this.queuedCreate = params ?? {}; return; }
    this.requested = true;
    this.createId = `evt_create_${++this.createSeq}`;
    this.send({ type: 'response.create', event_id: this.createId, ...(params ? { response: params } : {}) });
  }

  private cancelResponse(): void {
    this.queuedCreate = null;
    if (this.responding) this.send({ type: 'response.cancel' });
  }

  private continueAfterTools(): void {
    if (this.calls.size === 0 || [...this.calls.values()].some((answered) => !answered)) return;
    this.calls.clear();
    this.createResponse(null);
  }

  private send(event: RealtimeClientEvent): void {
    if (this.rt?.socket.readyState === 1 && (this.state === 'ready' || this.state === 'connecting')) this.rt.send(event);
  }

  private onServerEvent(e: RealtimeServerEvent): void {
    if (this.state === 'connecting') {
      if (e.type === 'session.updated') this.onReady();
      else if (e.type === 'error') this.failConnect?.(sessionRefused(e.error.message));
      return;
    }
    if (this.state !== 'ready') return;
    switch (e.type) {
      case 'input_audio_buffer.speech_started': return this.deliver({ type: 'speech_started' });
      case 'input_audio_buffer.speech_stopped': return this.deliver({ type: 'speech_stopped' });
      case 'input_audio_buffer.committed':
        this.bufferedBytes = 0;
        return this.deliver({ type: 'user_turn', itemId: e.item_id });
      case 'conversation.item.input_audio_transcription.completed':
        return this.deliver({ type: 'user_transcript', itemId: e.item_id, text: e.transcript });
      case 'conversation.item.input_audio_transcription.failed':
        return this.deliver({ type: 'user_transcript', itemId: e.item_id, text: '' });
      case 'response.created':
        this.requested = false;
        this.activeResponse = e.response.id ?? 'response';
        return;
      case 'response.output_item.added':
        if (e.item.type !== 'message' || !e.item.id) return;
        this.audioItem = e.item.id;
        this.audioItemBytes = 0;
        return this.deliver({ type: 'agent_item', itemId: e.item.id });
      // Deltas are read before the SDK parses them (takeAudioDeltas); this hears any written another way.
      case 'response.output_audio.delta': return this.onAudio(e.item_id, decodeWithHeadroom(e.delta));
      case 'response.output_audio_transcript.delta':
        return this.deliver({ type: 'transcript_delta', itemId: e.item_id, delta: e.delta });
      case 'response.output_audio_transcript.done': return this.itemDone(e.item_id, e.transcript);
      case 'response.function_call_arguments.done': return this.toolCall(e.call_id, e.name, e.arguments);
      case 'response.output_item.done':
        if (e.item.type === 'function_call' && e.item.call_id) return this.toolCall(e.item.call_id, e.item.name, e.item.arguments);
        if (e.item.type === 'message' && e.item.role === 'assistant' && e.item.id) return this.itemDone(e.item.id, transcriptOf(e.item));
        return;
      case 'response.done': return this.responseDone(e.response);
      case 'error':
        if (e.error.event_id && e.error.event_id === this.createId) this.requested = false;
        if (e.error.code && HARMLESS_ERRORS.has(e.error.code)) return;
        return this.deliver({ type: 'error', message: `${REALTIME_LABEL}: ${e.error.message}`, fatal: false });
      default:
    }
  }

  /** The agent's audio, decoded after a spare byte (headroom for the widget frame's header). */
  private onAudio(itemId: string, pcm: Buffer, transient = false): void {
    if (itemId === this.audioItem) this.audioItemBytes += pcm.length;
    this.deliver({ type: 'audio', itemId, pcm, headroom: 1, transient });
  }

  private itemDone(itemId: string, text: string): void {
    if (this.itemsDone.has(itemId)) return;
    this.itemsDone.add(itemId);
    this.deliver({ type: 'agent_item_done', itemId, text });
  }

  private toolCall(callId: string, name: string, args: string): void {
    if (this.calls.has(callId)) return;
    this.calls.set(callId, false);
    this.deliver({ type: 'tool_call', callId, name, arguments: args });
  }

  private responseDone(r: RealtimeResponse): void {
    this.activeResponse = null;
    this.itemsDone.clear();
    const status = statusOf(r);
    // A stopped reply is not continued with its tools' results: the visitor has moved on.
    if (status !== 'completed') this.calls.clear();
    this.deliver({ type: 'response_done', usage: usageOf(r.usage), status });
    if (this.state !== 'ready') return;
    if (this.calls.size > 0) { this.continueAfterTools(); return; }
    if (this.queuedCreate) {
      const params = this.queuedCreate;
      this.queuedCreate = null;
      this.createResponse(Object.keys(params).length ? params : null);
    }
  }

  private onSocketError(err: Error): void {
    if (this.state === 'connecting') { this.failConnect?.(connectError(err, this.baseUrl)); return; }
    // A socket failure ends in close; an unreadable event does not.
    if (this.state === 'ready') this.deliver({ type: 'error', message: `${REALTIME_LABEL}: ${err.message}`, fatal: this.rt?.socket.readyState !== 1 });
  }

  private onClose(code: number, reason: string): void {
    if (this.state === 'connecting') { this.failConnect?.(closedEarly(code, reason, this.baseUrl)); return; }
    const was = this.state;
    this.state = 'closed';
    if (was === 'ready') this.deliver({ type: 'closed', reason: `${REALTIME_LABEL} closed the connection (${closeText(code, reason)})` });
    else if (was === 'closing') this.deliver({ type: 'closed', reason: 'closed' });
  }

  /** A listener that throws would leave the session out of step with the provider, so it ends the session. */
  private deliver(e: VoiceEngineEvent): void {
    try {
      this.onEvent(e);
    } catch (err) {
      if (e.type === 'closed' || this.state === 'closed') return;
      this.state = 'closed';
      this.rt?.socket.terminate();
      try {
        this.onEvent({ type: 'closed', reason: `the voice session stopped: ${(err as Error)?.message ?? String(err)}` });
      } catch { /* the listener already failed once; nothing more can be told */ }
    }
  }
}
