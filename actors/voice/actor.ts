import type { ConversationService, VoicePort } from '../conversation/index.js';
import type { AppContext } from '../../src/app/context.js';
import type { ChatBot } from '../../src/bots/bot-source.js';
import type { ChatHub } from '../../src/conversation/hub.js';
import type { VisitorRequests } from '../../src/conversation/visitor-requests.js';
import type { ToolRegistry } from '../../src/tools/registry.js';
import { encodeFrame, type ChatErrorCode, type ServerFrame } from '../../src/conversation/protocol.js';
import { AUDIO_HEADER, audioFrame, type VoiceEndReason, type VoiceMode, type VoiceState } from '../../src/conversation/voice-frames.js';
import type { VoiceSetup } from '../../src/voice/voice-setup.js';
import { createVoiceEngine, keptAudio, type VoiceEngine, type VoiceEngineEvent } from '../../src/providers/voice.js';
import { ApiError } from '../../src/kernel/errors.js';
import { newId } from '../../src/store/ids.js';
import { Actor, assertNever } from '../runtime/index.js';
import type { VoiceFailureStage } from '../../src/bots/health.js';
import { reportVoiceFailure } from './failures.js';
import { endMessage } from './lines.js';
import type { VoiceMsg } from './messages.js';
import { voiceSpec, voiceTools } from './spec.js';
import { VoiceTools } from './tools.js';
import { TurnLog } from './turns.js';
import { VoiceUsageMeter } from './usage.js';

/** The socket the session belongs to (the widget chat socket that started it). */
export interface VoiceSink {
  readonly closed: boolean;
  send(message: string | Uint8Array, binary?: boolean): 'ok' | 'backpressure' | 'dropped';
}

export interface VoiceSessionInit {
  sessionId: string;
  app: AppContext;
  chat: ChatBot;
  setup: VoiceSetup;
  conversationId: string;
  mode: VoiceMode;
  sink: VoiceSink;
  conversations: ConversationService;
  hub: ChatHub;
  /** The agent loop's tools (the voice session offers the same ones). */
  tools: ToolRegistry;
  /** Page tool calls and confirmations waiting for the visitor's page. */
  requests: VisitorRequests;
  /** Called once when the session has ended (the service forgets it); resolves once its seat is given back. */
  onEnded(): Promise<void>;
}

/** Send options, shared: an engine event (50 a second while the agent speaks) allocates no options object. */
const URGENT = Object.freeze({ priority: 'urgent' as const });
const NORMAL = Object.freeze({});

/** Wait this long for a visitor's transcript or a played report before storing what is known. */
const TURN_WAIT_MS = 5_000;
/** How often spend and voice minutes are counted against the daily caps during a session. */
const CAP_CHECK_MS = 10_000;

export interface VoiceSessionState {
  phase: VoiceState;
  pttDown: boolean;
  /** The agent item whose audio the widget is (or will be) playing. */
  current: string | null;
  /** The clock time of the visitor's last speech or text: voice.idleSeconds counts from it. */
  lastActivityAt: number;
  endReason: VoiceEndReason | null;
  /** The agent said goodbye with end_conversation: the conversation ends once that reply is spoken. */
  goodbye: boolean;
}

/**
 * One live voice conversation (ARCHITECTURE.md, Voice): relays audio between the widget socket and the engine,
 * turns engine events into captions, stored turns and tool calls, and owns the session's timers and caps.
 * Handlers never await: slow work (storing, tools, cap checks) runs beside the mailbox and comes back as a
 * message, so an audio chunk never waits behind a store write.
 */
export class VoiceSessionActor extends Actor<VoiceMsg, VoiceSessionState> {
  engine: VoiceEngine | null = null;
  turns: TurnLog;
  readonly usage: VoiceUsageMeter;
  private readonly tools: VoiceTools;
  private readonly port: VoicePort;
  private readonly rates = { input: 24_000, output: 24_000 };
  readonly collections;

  constructor(readonly init: VoiceSessionInit) {
    super({
      id: init.sessionId, clock: init.app.clock, log: init.app.log,
      initialState: { phase: 'connecting', pttDown: false, current: null, lastActivityAt: init.app.clock.now(), endReason: null, goodbye: false },
      // Audio chunks pass through the mailbox: room for several seconds of them.
      mailbox: { capacity: 2000, urgentCapacity: 64 },
    });
    this.turns = new TurnLog(24_000, TURN_WAIT_MS);
    this.collections = init.app.records;
    this.usage = new VoiceUsageMeter(init.setup.model);
    this.tools = new VoiceTools(this);
    const send = (msg: VoiceMsg) => { try { this.send(msg); } catch { /* ended */ } };
    this.port = {
      sessionId: init.sessionId,
      sendText: (text) => send({ type: 'text', text }),
      end: (reason) => send({ type: 'stop', reason }),
    };
  }

  get s(): VoiceSessionState { return this.state; }
  get conversationId(): string { return this.init.conversationId; }

  protected override async onStart(): Promise<void> {
    const { app, chat, conversationId, conversations } = this.init;
    const attach = await conversations.ask(conversationId, { type: 'voiceAttach', port: this.port });
    if (!attach.ok) throw new VoiceRefusedError(attach.code, attach.message);
    this.frame('connecting');
    try {
      const db = this.collections;
      const conv = await db.conversations.findById(chat.bot.workspaceId, conversationId);
      if (!conv) throw new VoiceRefusedError('not_found', 'this conversation no longer exists; start voice again');
      const history = await db.messages.find({ workspaceId: conv.workspaceId, conversationId, seq: { $gt: conv.summary?.uptoSeq ?? -1 } }, { sort: [['seq', 1]] });
      const tools = await voiceTools(this.init.tools, app, chat, conv, this.tools.pageTools());
      this.tools.offer(tools, conv);
      const spec = voiceSpec({ chat, setup: this.init.setup, conv, history, tools, now: app.clock.now(), ptt: this.init.mode === 'ptt' });
      const engine = createVoiceEngine(this.init.setup.connection, spec, (e) => this.onEngineEvent(e), { allowPrivateNetwork: app.config.allowPrivateNetwork });
      this.engine = engine;
      Object.assign(this.rates, { input: engine.inputRate, output: engine.outputRate });
      this.turns = new TurnLog(engine.outputRate, TURN_WAIT_MS);
      await engine.connect();
    } catch (err) {
      this.engine?.close();
      conversations.send(conversationId, { type: 'voiceDetach', sessionId: this.id });
      throw err;
    }
    const v = chat.config.voice;
    this.timers.set('maxDuration', v.maxSessionMinutes * 60_000, { type: 'maxDuration' });
    this.timers.set('idle', v.idleSeconds * 1000, { type: 'idle' });
    this.timers.set('capCheck', CAP_CHECK_MS, { type: 'tick' });
    this.setPhase('listening');
    if (chat.config.welcome.speakGreeting && attach.messageCount === 0) {
      this.engine!.respond('Greet the visitor warmly in one short sentence and offer your help.');
    }
  }

  /** Refused by the conversation, or a provider's answer (reported by the service): no stack in the log. */
  protected override expectedStartFailure(err: unknown): boolean {
    return err instanceof VoiceRefusedError || err instanceof ApiError;
  }

  protected override async onStop(): Promise<void> {
    this.engine?.close();
  }

  /** A microphone audio frame from the widget (already checked): straight to the engine, outside the mailbox. */
  relayAudio(frame: Buffer): void {
    const engine = this.engine;
    if (this.state.phase === 'connecting' || this.state.phase === 'ended' || !engine) return;
    // Push-to-talk: only what is said while the button is held is the visitor's turn.
    if (this.init.mode === 'ptt' && !this.state.pttDown) return;
    this.usage.inputBytes += frame.length - AUDIO_HEADER;
    // The PCM after the frame's header, without a view made of it where the engine can take it so.
    if (engine.appendAudioFrom) engine.appendAudioFrom(frame, AUDIO_HEADER);
    else engine.appendAudio(frame.subarray(AUDIO_HEADER));
  }

  private onEngineEvent(e: VoiceEngineEvent): void {
    if (this.status === 'stopping' || this.status === 'stopped') return;
    // An audio chunk with nothing queued or running ahead of it is relayed at once, as the microphone's is: the
    // same order as through the mailbox, without an envelope and a microtask per 20 ms chunk (garbage that sets how
    // often the server scavenges, docs/performance.md, Voice relay).
    if (e.type === 'audio' && this.status === 'running' && this.queued === 0 && !this.busy) {
      try { if (this.state.phase !== 'ended') this.onAudio(e); } catch (err) {
        this.log.error({ err, sessionId: this.id }, 'voice audio relay failed');
      }
      return;
    }
    // Barge-in jumps the queue: playback must stop before more of the reply is relayed.
    const urgent = e.type === 'speech_started' || e.type === 'interrupted';
    // A queued chunk outlives this call: the engine's reused memory is copied (the rare path).
    const event = e.type === 'audio' ? keptAudio(e) : e;
    try { this.send({ type: 'engine', event }, urgent ? URGENT : NORMAL); } catch (err) {
      this.log.warn({ err, sessionId: this.id, event: e.type }, 'voice engine event dropped');
    }
  }

  protected handle(msg: VoiceMsg): void {
    if (this.state.phase === 'ended' && msg.type !== 'stored') return;
    switch (msg.type) {
      case 'engine': return this.onEngine(msg.event);
      case 'ptt': return this.onPtt(msg.down);
      case 'played': return this.onPlayed(msg.itemId, msg.ms);
      case 'text':
        this.touch();
        this.engine?.sendText(msg.text);
        return this.setPhase('thinking');
      case 'stop': return this.end(msg.reason);
      case 'toolDone': return this.tools.done(msg);
      case 'stored': return;
      case 'maxDuration': return this.end('max_duration');
      case 'idle': return this.onIdle();
      case 'tick': return this.onTick();
      default: return assertNever(msg);
    }
  }

  private onEngine(e: VoiceEngineEvent): void {
    const now = this.clock.now();
    switch (e.type) {
      case 'ready': return;
      case 'speech_started':
        this.touch();
        if (this.init.chat.config.voice.bargeIn) this.interruptPlayback();
        return this.setPhase('listening');
      case 'speech_stopped': return this.setPhase('thinking');
      case 'user_turn': return this.turns.userTurn(e.itemId, now);
      case 'user_transcript':
        this.touch();
        this.turns.userTranscript(e.itemId, e.text, now);
        return this.flush();
      case 'agent_item': {
        const item = this.turns.agentItem(e.itemId, newId('msg', now), newId('rsp', now), now);
        this.state.current = e.itemId;
        this.sendFrame({ t: 'voice_item', itemId: e.itemId, messageId: item.messageId });
        this.tools.speaking();
        return this.setPhase('speaking');
      }
      case 'audio': return this.onAudio(e);
      case 'transcript_delta': {
        const item = this.turns.items.get(e.itemId);
        if (!item || item.interrupted) return;
        item.parts.push(e.delta);
        const conversationId = this.conversationId;
        this.init.hub.push(conversationId, { t: 'delta', conversationId, messageId: item.messageId, responseId: item.responseId, delta: e.delta });
        this.init.app.events.publishVolatile(this.init.chat.bot.workspaceId, 'message.delta', { conversationId, messageId: item.messageId, responseId: item.responseId, delta: e.delta });
        return;
      }
      case 'agent_item_done':
        // After the item's last audio frame on the same socket: the widget can finish playing and report it.
        if (!this.turns.items.get(e.itemId)?.interrupted) this.sendFrame({ t: 'voice_item_done', itemId: e.itemId });
        this.turns.itemDone(e.itemId, e.text, now);
        this.doneSpeaking();
        return this.flush();
      case 'tool_call': return this.tools.run(e.callId, e.name, e.arguments);
      case 'response_done':
        this.usage.addResponse(e.usage);
        this.turns.finishAll(now);
        this.flush();
        this.doneSpeaking();
        if (this.tools.running === 0 && this.state.phase === 'thinking') this.setPhase('listening');
        if (this.state.goodbye && this.tools.running === 0) this.scheduleGoodbye();
        return;
      case 'interrupted':
        this.interruptPlayback();
        return this.setPhase('listening');
      case 'error':
        this.report(e.stage ?? 'engine', e.message);
        // A provider that will not answer (key refused, address refused) ends voice with a line offering text,
        // instead of failing every turn.
        if (e.lasting) return this.end('unavailable');
        // A failure the visitor notices (cascade: a stage failed mid-turn) is told in the chat; the session goes on.
        if (e.line && !e.fatal) this.sendFrame({ t: 'error', code: 'internal', message: e.line, ...(e.stage ? { stage: e.stage } : {}) });
        if (e.fatal) this.end('engine_error');
        return;
      case 'closed':
        this.report('engine', 'the voice engine closed its connection');
        return this.end('engine_error');
      default: return assertNever(e);
    }
  }

  /** The agent's audio to the widget (a view over the engine's chunk), counted for its item and the usage. */
  private onAudio(e: Extract<VoiceEngineEvent, { type: 'audio' }>): void {
    const item = this.turns.items.get(e.itemId);
    if (!item || item.interrupted) return;
    item.audioStartedAt ??= this.clock.now();
    item.audioBytes += e.pcm.length;
    this.usage.outputBytes += e.pcm.length;
    if (!this.init.sink.closed) this.init.sink.send(audioFrame(e.pcm, e.headroom, e.transient), true);
  }

  private onPtt(down: boolean): void {
    if (this.init.mode !== 'ptt' || !this.engine || this.state.pttDown === down) return;
    this.state.pttDown = down;
    this.touch();
    if (down) {
      // Push-to-talk always interrupts.
      this.interruptPlayback();
      this.engine.startTurn();
      this.setPhase('listening');
    } else {
      this.engine.commitTurn();
      this.setPhase('thinking');
    }
  }

  /** The widget says how much of an item it played: a finished item, or where playback stopped on a barge-in. */
  private onPlayed(itemId: string, ms: number): void {
    const item = this.turns.items.get(itemId);
    if (!item) return this.sendFrame({ t: 'error', code: 'not_found', message: `voice_played: no item ${itemId} in this voice session` });
    const played = Math.min(ms, this.turns.audioMs(item));
    item.playedMs = played;
    // The engine's memory is cut to what was heard, like the stored transcript.
    if (item.interrupted) this.engine?.interrupt(itemId, Math.round(played));
    this.doneSpeaking();
    this.flush();
  }

  /** The agent has finished speaking once its current item is complete and the widget has played it. */
  private doneSpeaking(): void {
    const item = this.state.current ? this.turns.items.get(this.state.current) : undefined;
    if (!item || item.interrupted || !item.done || item.playedMs === null) return;
    this.state.current = null;
    if (this.state.phase === 'speaking') this.setPhase('listening');
  }

  /**
   * Whether the agent's voice may still be playing: the current item until the widget says it played it, at most
   * its audio's length after its first audio (plus a margin), so a widget that never reports cannot hold voice open.
   */
  private speaking(): boolean {
    const item = this.state.current ? this.turns.items.get(this.state.current) : undefined;
    if (!item || item.interrupted) return false;
    if (!item.done || item.audioStartedAt === null) return true;
    return this.clock.now() < item.audioStartedAt + this.turns.audioMs(item) + 2_000;
  }

  /** Stops the agent's voice now: the widget drops its playback and reports how much was heard. */
  private interruptPlayback(): void {
    const id = this.state.current;
    const item = id ? this.turns.items.get(id) : undefined;
    if (!id || !item || item.interrupted || (item.done && item.playedMs !== null)) return;
    item.interrupted = true;
    item.cutShort = !item.done;
    this.state.current = null;
    // The engine stops generating by itself: on the visitor's speech (turn detection with barge-in) or when
    // push-to-talk is pressed (startTurn cancels). Cancelling here too could hit the next reply already under way.
    this.sendFrame({ t: 'voice_interrupt', itemId: id });
  }

  /** Stores the turns that are complete, in order, through the conversation actor (its one writer). */
  flush(force = false): void {
    const now = this.clock.now();
    const { conversations } = this.init;
    const id = this.conversationId;
    for (const turn of this.turns.ready(force ? Number.MAX_SAFE_INTEGER : now)) {
      const msg = turn.role === 'user'
        ? { type: 'voiceTurn' as const, role: 'user' as const, text: turn.text }
        : { type: 'voiceTurn' as const, role: 'assistant' as const, text: turn.text, id: turn.item!.messageId, ...this.usage.takeForReply() };
      conversations.ask(id, msg).catch((err) => this.log.error({ err, sessionId: this.id }, 'storing a voice turn failed'));
    }
    // Items dropped without words (nothing heard): their streamed captions are withdrawn.
    for (const dropped of this.turns.dropped.splice(0)) this.init.hub.push(id, { t: 'delta_reset', conversationId: id, messageId: dropped });
  }

  /** The details of a failure go to the operator (log, bot health, agent.status, metrics); the visitor gets a line. */
  private report(stage: VoiceFailureStage, message: string): void {
    const { chat } = this.init;
    reportVoiceFailure(this.init.app, { workspaceId: chat.bot.workspaceId, botId: chat.bot._id, conversationId: this.conversationId, sessionId: this.id, stage, message });
  }

  private touch(): void {
    this.state.lastActivityAt = this.clock.now();
  }

  private onIdle(): void {
    const ms = this.init.chat.config.voice.idleSeconds * 1000;
    const quietFor = this.clock.now() - this.state.lastActivityAt;
    // Not idle while the agent speaks or a tool runs.
    if (quietFor >= ms && !this.speaking() && this.tools.running === 0) return this.end('idle');
    this.timers.set('idle', Math.max(1000, ms - quietFor), { type: 'idle' });
  }

  /** Periodic: stores overdue turns and counts minutes and spend against the daily caps. */
  private onTick(): void {
    this.flush();
    this.usage.report(this).then((capped) => { if (capped) this.port.end('cap_reached'); }).catch(() => {});
    this.timers.set('capCheck', CAP_CHECK_MS, { type: 'tick' });
  }

  /** The agent called end_conversation: the conversation ends once its goodbye has been spoken. */
  private scheduleGoodbye(): void {
    const last = [...this.turns.items.values()].pop();
    const ms = last ? this.turns.audioMs(last) + 500 : 500;
    this.clock.setTimeout(() => { void this.init.conversations.close(this.conversationId, 'agent_goodbye').catch(() => {}); }, ms);
  }

  setPhase(phase: VoiceState): void {
    if (this.state.phase === phase || this.state.phase === 'ended') return;
    this.state.phase = phase;
    this.frame(phase);
  }

  private frame(state: VoiceState, reason?: VoiceEndReason): void {
    this.sendFrame({
      t: 'voice', state, sessionId: this.id, mode: this.init.mode, inputRate: this.rates.input, outputRate: this.rates.output,
      ...(reason ? { reason, message: endMessage(reason, this.init.chat.config) } : {}),
    });
  }

  sendFrame(f: ServerFrame): void {
    if (!this.init.sink.closed) this.init.sink.send(encodeFrame(f));
  }

  /** Ends the session once: engine closed, what is known stored, usage counted, the widget told why. */
  end(reason: VoiceEndReason): void {
    if (this.state.phase === 'ended') return;
    this.state.endReason = reason;
    this.engine?.close();
    this.tools.abort();
    const now = this.clock.now();
    this.turns.playbackStopped(now, reason === 'visitor' ? 'unheard' : 'elapsed');
    this.turns.finishAll(now);
    this.flush(true);
    this.usage.report(this, true).catch(() => {});
    this.init.conversations.send(this.conversationId, { type: 'voiceDetach', sessionId: this.id });
    const id = this.conversationId;
    this.init.hub.push(id, { t: 'status', conversationId: id, state: 'idle' });
    this.state.phase = 'ended';
    // The widget hears 'ended' once the seat is given back (in Redis when scaled out): a visitor told the session is
    // over can start another at once, on any process, without meeting security.caps.concurrentVoiceSessions.
    void this.init.onEnded().finally(() => this.frame('ended', reason));
    void this.stop();
  }
}

/** The conversation refused the session (ended, taken over): the widget gets this code and message. */
export class VoiceRefusedError extends Error {
  constructor(readonly code: ChatErrorCode, message: string) { super(message); }
}
