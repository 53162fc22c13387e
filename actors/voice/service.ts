import type { AppContext } from '../../src/app/context.js';
import type { ChatBot } from '../../src/bots/bot-source.js';
import { encodeFrame } from '../../src/conversation/protocol.js';
import { capReached, usageToday } from '../../src/conversation/usage.js';
import { AUDIO_BURST_FRAMES, AUDIO_FRAMES_PER_SECOND, audioFrameProblem, type VoiceMode } from '../../src/conversation/voice-frames.js';
import { voiceSetup } from '../../src/voice/voice-setup.js';
import { ApiError } from '../../src/kernel/errors.js';
import { isLastingFailure } from '../../src/providers/errors.js';
import { newId } from '../../src/store/ids.js';
import { leaveVoiceSeats, takeVoiceSeats, type VoiceSeats } from '../../src/scale/voice-seats.js';
import type { ConversationService } from '../conversation/index.js';
import type { VisitorRequests } from '../../src/conversation/visitor-requests.js';
import type { ToolRegistry } from '../../src/tools/registry.js';
import { noteVoiceOk } from '../../src/bots/health.js';
import { reportVoiceFailure } from './failures.js';
import { holdVoiceHeap, releaseVoiceHeap } from './heap.js';
import { endMessage } from './lines.js';
import { busyMessage, voiceClaims, type VoiceLimit, type VoiceLimitClaim } from './limits.js';
import { VoiceRefusedError, VoiceSessionActor, type VoiceSink } from './actor.js';
import type { VoiceMsg } from './messages.js';

/** The socket a session is bound to: the chat socket (src/http SocketConn fits). */
export interface VoiceSocket extends VoiceSink { readonly id: number }

/**
 * `told`: the widget already got the session's `voice` ended frame with the message. `limit`: which limit on
 * sessions at once refused it (the widget words visitor and address limits itself).
 */
export type VoiceRefusal = { ok: false; code: VoiceRefusedError['code']; message: string; told?: boolean; limit?: Exclude<VoiceLimit, 'bot'> };

/** What a visitor reads when voice is not set up right (the details go to the operator: failures.ts). */
const VOICE_UNAVAILABLE = 'Voice is not available for this assistant right now. You can keep chatting by text.';

const CAP_NAMES = { dailyUsd: 'security.caps.dailyUsd', dailyVoiceMinutes: 'security.caps.dailyVoiceMinutes', dailyMessages: 'security.caps.dailyMessages' };

/**
 * Voice sessions of this server, one per app: started from a chat socket, at most one per socket, counted per
 * bot (security.caps.concurrentVoiceSessions), per visitor and per address (limits.ts). The chat socket hands it
 * the visitor's audio and control frames.
 */
export class VoiceService {
  private readonly bySocket = new Map<number, { actor: VoiceSessionActor; tokens: number; at: number }>();
  /** Live sessions on this server by what they count against (a bot id, `visitor:…`, `address:…`). */
  private readonly perScope = new Map<string, number>();

  constructor(private readonly app: AppContext, private readonly conversations: ConversationService, private readonly deps: { tools: ToolRegistry; requests: VisitorRequests; seats: VoiceSeats | null }) {}

  /** At shutdown (the composition root calls it): every live session stops. */
  async close(): Promise<void> {
    const live = [...this.bySocket.values()].map((s) => s.actor);
    for (const a of live) { try { a.send({ type: 'stop', reason: 'socket_closed' }); } catch { /* stopping */ } }
    await Promise.all(live.map((a) => a.stop()));
  }

  /** Adds `by` to the live sessions of each scope (a bot id, `visitor:…`, `address:…`). */
  private count(scopes: readonly string[], by: 1 | -1): void {
    for (const scope of scopes) {
      const n = (this.perScope.get(scope) ?? 0) + by;
      if (n > 0) this.perScope.set(scope, n); else this.perScope.delete(scope);
    }
  }

  /** Live sessions of a bot on this server. */
  liveFor(botId: string): number { return this.perScope.get(botId) ?? 0; }
  get live(): number { return this.bySocket.size; }

  /** Starts a session for the socket's conversation; the refusal (voice off, a cap, a live session) says why. */
  async start(input: { socket: VoiceSocket; chat: ChatBot; conversationId: string; visitorId: string; ip: string; mode?: VoiceMode }): Promise<{ ok: true; sessionId: string } | VoiceRefusal> {
    const { socket, chat } = input;
    const config = chat.config;
    // Off is the operator's choice, not a failure: nothing to report.
    if (!config.voice.enabled) return { ok: false, code: 'forbidden', message: 'Voice is off for this assistant. You can keep chatting by text.' };
    if (this.bySocket.has(socket.id)) return { ok: false, code: 'invalid', message: 'a voice session is already live on this chat; send voice_stop first' };
    const setup = await voiceSetup(this.app, chat.bot.workspaceId, config, chat.bot._id);
    if ('error' in setup) {
      // The setting that is missing is the operator's business: logged and kept in the bot's health.
      reportVoiceFailure(this.app, { workspaceId: chat.bot.workspaceId, botId: chat.bot._id, conversationId: input.conversationId, sessionId: '', stage: 'start', message: setup.error });
      return { ok: false, code: 'unavailable', message: VOICE_UNAVAILABLE };
    }
    const ptt = config.voice.pushToTalk;
    if (input.mode === 'ptt' && ptt === 'off') return { ok: false, code: 'invalid', message: 'push-to-talk is off for this bot (voice.pushToTalk); start voice hands-free' };
    const mode: VoiceMode = ptt === 'only' ? 'ptt' : input.mode ?? 'hands_free';
    const claims = voiceClaims(this.app, { botId: chat.bot._id, botMax: config.security.caps.concurrentVoiceSessions, visitorId: input.visitorId, ip: input.ip });
    const busy = (c: VoiceLimitClaim): VoiceRefusal => ({ ok: false, code: 'rate_limited', message: busyMessage(c), ...(c.limit !== 'bot' ? { limit: c.limit } : {}) });
    const full = claims.find((c) => (this.perScope.get(c.scope) ?? 0) >= c.max);
    if (full) return busy(full);
    // Counted from the check on, before anything is waited for: two starts at once never both take the last seat.
    const scopes = claims.map((c) => c.scope);
    this.count(scopes, 1);
    let counted = false;
    const sessionId = newId('vs', this.app.clock.now());
    try {
      const capped = capReached(config.security.caps, await usageToday(this.app, chat.bot.workspaceId, chat.bot._id), true);
      if (capped) return { ok: false, code: 'rate_limited', message: `voice is not available any more today (${CAP_NAMES[capped]} reached); you can keep chatting by text` };
      // Scale-out: the limits count the sessions on every process of the group.
      const refusedBy = await takeVoiceSeats(this.deps.seats, sessionId, claims);
      if (refusedBy >= 0) return busy(claims[refusedBy]);
      counted = true;
    } finally {
      if (!counted) this.count(scopes, -1);
    }
    const entry = { actor: null as unknown as VoiceSessionActor, tokens: AUDIO_BURST_FRAMES, at: performance.now() };
    let ended = false;
    holdVoiceHeap();
    const actor = new VoiceSessionActor({
      sessionId, app: this.app, chat, setup, conversationId: input.conversationId, mode, sink: socket,
      conversations: this.conversations, hub: this.conversations.hub, tools: this.deps.tools, requests: this.deps.requests,
      onEnded: () => {
        if (ended) return Promise.resolve();
        ended = true;
        releaseVoiceHeap();
        if (this.bySocket.get(socket.id)?.actor === actor) this.bySocket.delete(socket.id);
        this.count(scopes, -1);
        return leaveVoiceSeats(this.deps.seats, sessionId, scopes);
      },
    });
    entry.actor = actor;
    this.bySocket.set(socket.id, entry);
    try {
      await actor.start();
    } catch (err) {
      await actor.init.onEnded();
      const refused = err instanceof VoiceRefusedError ? err : null;
      // A refusal by the conversation (ended, taken over) is the visitor's news: it comes before any voice frame
      // and is answered as an error frame with its own words.
      if (refused) return { ok: false, code: refused.code, message: refused.message };
      // Anything else (a key refused, an engine unreachable, a model refused) is the operator's: the visitor, told
      // `connecting` already, is told `ended` with the reason and a line that names no address or key.
      const api = err instanceof ApiError ? err : null;
      reportVoiceFailure(this.app, {
        workspaceId: chat.bot.workspaceId, botId: chat.bot._id, conversationId: input.conversationId, sessionId, stage: 'start',
        message: api?.message ?? (err as Error)?.message ?? String(err), err: api ? undefined : err,
      });
      const reason = isLastingFailure(err) ? 'unavailable' : 'engine_error';
      const message = endMessage(reason, config);
      if (!socket.closed) {
        socket.send(encodeFrame({ t: 'voice', state: 'ended', sessionId, mode, inputRate: 0, outputRate: 0, reason, message }));
      }
      return { ok: false, code: 'unavailable', message, told: true };
    }
    noteVoiceOk(this.app, chat.bot.workspaceId, chat.bot._id).catch(() => {});
    return { ok: true, sessionId };
  }

  /**
   * A binary frame from the socket: checked (a live session, a well-formed audio frame, at most
   * AUDIO_FRAMES_PER_SECOND a second) and relayed to the engine. Returns the problem, or null.
   */
  audio(socket: VoiceSocket, frame: Buffer): string | null {
    const s = this.bySocket.get(socket.id);
    if (!s) return 'binary frames are audio and are accepted only during a voice session (send voice_start first)';
    const engine = s.actor.engine;
    const problem = audioFrameProblem(frame, engine?.inputRate ?? 24_000);
    if (problem) return problem;
    // A token bucket on real throughput (so the real clock): bursts after a network stall pass, a flood does not.
    const now = performance.now();
    s.tokens = Math.min(AUDIO_BURST_FRAMES, s.tokens + ((now - s.at) * AUDIO_FRAMES_PER_SECOND) / 1000);
    s.at = now;
    if (s.tokens < 1) return `too many audio frames; at most ${AUDIO_FRAMES_PER_SECOND} a second (send 20 ms frames)`;
    s.tokens -= 1;
    s.actor.relayAudio(frame);
    return null;
  }

  /** A control frame for the socket's session; false when none is live. */
  control(socket: VoiceSocket, msg: VoiceMsg): boolean {
    const s = this.bySocket.get(socket.id);
    if (!s) return false;
    try { s.actor.send(msg, msg.type === 'ptt' ? { priority: 'urgent' } : {}); } catch { return false; }
    return true;
  }

  /**
   * A camera frame for the socket's live session (vision.webcam continuous): true when an engine that takes
   * pictures got it; false when no session is live or its engine cannot take them.
   */
  image(socket: VoiceSocket, image: { mimeType: string; data: Buffer }): boolean {
    const engine = this.bySocket.get(socket.id)?.actor.engine;
    if (!engine?.sendImage) return false;
    engine.sendImage(image);
    return true;
  }

  /** The socket closed: its session ends. */
  socketClosed(socket: VoiceSocket): void {
    this.control(socket, { type: 'stop', reason: 'socket_closed' });
  }
}
