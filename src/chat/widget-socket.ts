import { takeInGroup, takeShared, type SharedLimits } from '../scale/limits.js';
import type { UploadLimits } from './uploads.js';
import type { ChatBotCache } from '../bots/chat-bot-cache.js';
import { toldVisitors, type ConversationService } from '../../actors/conversation/index.js';
import { ActorStoppedError, isMailboxFullError } from '../../actors/runtime/index.js';
import type { AppContext } from '../app/context.js';
import { renderField, contextFromIdentity } from '../bots/config/index.js';
import { ApiError, badRequest, forbidden, rateLimited } from '../kernel/errors.js';
import type { SocketConn, SocketEndpoint, UpgradeRequest } from '../http/types.js';
import type { ChatBot } from '../bots/bot-source.js';
import type { SocketCamera } from '../voice/camera.js';
import { originAllowed } from './origin.js';
import { loadWidgetBot } from './preview.js';
import { decodeClientFrame, encodeFrame, MAX_SOCKET_PAYLOAD_BYTES, type ChatErrorCode, type ClientFrame, type ServerFrame } from '../conversation/protocol.js';
import { RateLimiter } from '../security/rate-limiter.js';
import { widgetMessage, type WidgetMessage } from '../records/conversations.js';
import { resolveVisitor, type ResolvedVisitor } from './visitors.js';
import type { VisitorRequests } from '../conversation/visitor-requests.js';
import { requestHandoff } from '../team/handoff.js';
import type { TeamServices } from '../team/services.js';
import { submitLeadForm } from '../conversation/lead-capture.js';
import { leadFormFrame } from '../leads/form.js';
import type { VoiceService } from '../../actors/voice/index.js';
import type { PublishedBotWatch } from './published-watch.js';
import type { OfflineWatch } from './offline-watch.js';
import type { CameraLinks } from '../voice/camera-tool.js';
import type { PageToolSpec } from '../tools/page-tools.js';
import { setSpeak, speakClosed } from '../voice/spoken-replies.js';
import { handleCameraFrame, handleCameraState, linkCamera, takePendingFrame, type CameraFrame } from './camera-socket.js';
import { diskFullFrame, isDiskFull } from '../store/disk-full.js';
import { TurnBudget } from '../kernel/turn-budget.js';

export const WIDGET_CHAT_PATH = '/widget/v1/chat';
/** Every server allows this many chat connections a minute per IP (service-api.md, Limits). */
export const CONNECTIONS_PER_IP_PER_MINUTE = 30;
/** Frames of any kind per socket per minute before they are refused (messages have their own, lower limit). */
const FRAMES_PER_MINUTE = 240;
const HISTORY_LIMIT = 200;
/**
 * Milliseconds of connect work (admit's steps, the ready frame) per turn of the event loop: a burst of connects
 * waits a few turns longer instead of stalling every other socket's loop (docs/decisions.md, issue 37).
 */
export const CONNECT_SLICE_MS = 3;
/** Shared by every socket: a settled start for each socket's frame chain, and the history once it was sent. */
const SETTLED = Promise.resolve();
const NO_HISTORY: WidgetMessage[] = Object.freeze([]) as unknown as WidgetMessage[];
const NO_PAGE = Object.freeze({ url: '', title: '' });

/** What admit reads from the connect URL. */
interface ConnectQuery {
  botId: string;
  preview: string | null;
  origin: string | undefined;
  identity: { visitorToken: string | null; userId: string | null; userHash: string | null; name: string | null; email: string | null };
}

export interface WidgetSocketData {
  /** Set by admit, before open (nothing reads it earlier). */
  chat: ChatBot;
  /** Set by admit, before open. Its visitorToken is sent in the ready frame, then dropped. */
  visitor: ResolvedVisitor;
  /** The upgrade's request, for admit (dropped once the socket is admitted). */
  request: UpgradeRequest | null;
  /** Set by admit, from the connect URL. */
  page: { url: string; title: string };
  conversationId: string | null;
  history: WidgetMessage[];
  /** Frames of one socket are handled one after another (a first message creates the conversation). */
  chain: Promise<void>;
  /** Tools the page registered on this socket (kept for the conversation it opens later). */
  pageTools: PageToolSpec[] | null;
  /** The camera as this socket reported it (camera-socket.ts); absent until a camera frame. */
  camera?: SocketCamera;
  /** What the widget was last told of behavior.hours.scope bot (offline-watch.ts). */
  offline?: boolean;
  /** The bot was paused at connect: the socket takes only a lead form's answer (PAUSED_FRAMES). */
  paused?: true;
}

const connectionLimit = (waitMs: number) => rateLimited(waitMs / 1000, `too many chat connections from this address (${CONNECTIONS_PER_IP_PER_MINUTE} a minute)`);

/** What the error frame refusing a frame on a paused bot's socket says (code forbidden). */
export const BOT_PAUSED_MESSAGE = 'this assistant is paused and is not taking messages right now; leave your details in the form if one is shown, or try again later';
/** What a paused bot's socket takes, besides ping: the lead form's answer, and the page's tools (sent by every widget on ready). */
const PAUSED_FRAMES: ReadonlySet<string> = new Set(['lead', 'tools']);

/**
 * The widget chat socket (docs/widget-protocol.md): the upgrade is decided from memory; admit then loads the bot,
 * the visitor and the conversation (a refusal is an error frame and a 4xxx close), and open sends `ready`.
 */
/**
 * What the widget socket works with (made by the composition root, src/compose.ts); the team's services start the
 * handoff a visitor asks for.
 */
export interface WidgetServices extends TeamServices {
  conversations: ConversationService;
  voice: VoiceService;
  /** Open sockets by bot, so a publish reaches them. */
  publishedBotWatch: PublishedBotWatch;
  /** Opening hours of the bots of open sockets. */
  offlineWatch: OfflineWatch;
  /** Page tool calls waiting for the visitor's page. */
  visitorRequests: VisitorRequests;
  cameraLinks: CameraLinks;
  /** Limits counted across the scale-out group (null: one process). */
  sharedLimits: SharedLimits | null;
  /** Images a visitor may upload an hour. */
  uploadLimits: UploadLimits;
  /** Published bots kept in memory for connects, the widget's config and uploads. */
  chatBots: ChatBotCache;
}

export function widgetChatSocket(app: AppContext, s: WidgetServices): SocketEndpoint<WidgetSocketData> {
  const service = s.conversations;
  service.startSweeper();
  const connections = new RateLimiter(app.clock, 60_000);
  const messages = new RateLimiter(app.clock, 60_000);
  const frames = new RateLimiter(app.clock, 60_000);
  const connects = new TurnBudget(CONNECT_SLICE_MS);
  const send = (conn: SocketConn<WidgetSocketData>, f: ServerFrame) => conn.send(encodeFrame(f));
  const { voice, publishedBotWatch: published, offlineWatch: hours } = s;

  return {
    path: WIDGET_CHAT_PATH,
    maxPayloadBytes: MAX_SOCKET_PAYLOAD_BYTES,
    idleTimeoutSec: 120,
    // Memory only (src/http/types.ts): the local connection limit. The rest, the query included, is admit's.
    headers: ['origin'],
    upgrade(req: UpgradeRequest): WidgetSocketData {
      const wait = connections.take(req.ip, CONNECTIONS_PER_IP_PER_MINUTE);
      if (wait > 0) throw connectionLimit(wait);
      // The query is parsed in admit, in the connects' slices: a burst of connects runs every upgrade in one loop turn.
      return { chat: undefined!, visitor: undefined!, request: req, page: NO_PAGE, conversationId: null, history: NO_HISTORY, chain: SETTLED, pageTools: null };
    },
    // After the upgrade: the group's connection limit, the bot, the visitor, the conversation to resume and its history.
    // Each step (up to the next store call) waits for the connects' slice of the loop turn (CONNECT_SLICE_MS).
    async admit(conn) {
      const d = conn.data;
      await connects.take();
      const q = d.request!.query;
      const botId = q.get('botId');
      if (!botId) throw badRequest('botId: required');
      const c: ConnectQuery = {
        botId, preview: q.get('preview'), origin: d.request!.headers.origin,
        identity: { visitorToken: q.get('visitorToken'), userId: q.get('userId'), userHash: q.get('userHash'), name: q.get('name'), email: q.get('email') },
      };
      d.page = { url: webPageUrl(q.get('pageUrl') ?? ''), title: (q.get('pageTitle') ?? '').slice(0, 300) };
      d.request = null;
      const wait = await takeInGroup(app, 'wconn', conn.ip, CONNECTIONS_PER_IP_PER_MINUTE, 60_000);
      if (wait > 0) throw connectionLimit(wait);
      const chat = await loadWidgetBot(app, s.chatBots, c.botId, c.preview);
      // A bot read from the store is waited for by every connect that came meanwhile: they go on in slices too.
      await connects.take();
      if (!chat.preview && !originAllowed(c.origin, chat.config.security.allowedOrigins)) {
        throw forbidden(`origin ${c.origin ?? '(none)'} is not allowed to embed this bot (security.allowedOrigins)`);
      }
      // A paused bot: the socket is admitted as any other, to offer what the bot offers when offline (open()).
      if (chat.bot.status !== 'running') d.paused = true;
      const visitor = await resolveVisitor(app, chat, c.identity);
      await connects.take();
      // An id made for this connect has no conversation to resume.
      const conv = visitor.known ? await service.resumable(chat, visitor.visitorId) : null;
      if (conv && chat.config.behavior.persistence.showHistory) {
        await connects.take();
        const recent = await app.records.messages.find(
          { workspaceId: conv.workspaceId, conversationId: conv._id, visibility: 'visible' }, { sort: [['seq', -1]], limit: HISTORY_LIMIT },
        );
        await connects.take();
        d.history = recent.reverse().map(widgetMessage);
      }
      d.chat = chat;
      d.visitor = visitor;
      d.conversationId = conv?._id ?? null;
    },
    refuse(conn, why) {
      send(conn, { t: 'error', code: why.code as ChatErrorCode, message: why.message, ...(why.retryAfterMs ? { retryAfterMs: why.retryAfterMs } : {}) });
    },
    open(conn) {
      const d = conn.data;
      const { config } = d.chat;
      const ctx = contextFromIdentity(config.identity, { page: d.page });
      send(conn, {
        t: 'ready', visitorId: d.visitor.visitorId, visitorToken: d.visitor.visitorToken, verified: d.visitor.verified,
        conversationId: d.conversationId, history: d.history,
        welcome: { message: renderField('welcome.message', config.welcome.message, ctx), suggestedPrompts: config.welcome.suggestedPrompts },
        feedback: { thumbs: config.behavior.feedback.thumbs, csat: config.behavior.feedback.csat },
        // Paused, the bot is offline whatever its hours say (the widget shows texts.offline); hours are not watched.
        ...(d.paused ? { offline: true, paused: true as const } : { offline: hours.add(conn) }),
      });
      // Sent once: an idle socket keeps neither the history nor the token (the widget stores the token).
      d.history = NO_HISTORY;
      d.visitor.visitorToken = '';
      published.add(conn);
      if (d.conversationId) service.hub.join(d.conversationId, conn);
      // leadCapture.when start: the form comes before the first message (its answer opens the conversation).
      // Paused, it is the offline form instead, whatever leadCapture.when says (as outside hours, bot-config.md).
      const lc = config.behavior.leadCapture;
      if (lc.enabled && d.paused) send(conn, leadFormFrame(d.conversationId, 'offline', lc.fields));
      else if (lc.enabled && lc.when === 'start' && !d.conversationId) send(conn, leadFormFrame(null, 'start', lc.fields));
    },
    message(conn, raw, isBinary) {
      // Audio of a live voice session: relayed at once (its own limit, not the frame limit below).
      if (isBinary) {
        const problem = voice.audio(conn, raw as Buffer);
        if (problem) send(conn, { t: 'error', code: 'bad_request', message: problem });
        return;
      }
      const wait = frames.take(String(conn.id), FRAMES_PER_MINUTE);
      if (wait > 0) { send(conn, { t: 'error', code: 'rate_limited', message: 'too many frames; slow down', retryAfterMs: wait }); return; }
      const decoded = decodeClientFrame(raw, isBinary);
      if (!decoded.ok) { send(conn, { t: 'error', code: 'bad_request', message: decoded.message }); return; }
      const frame = decoded.frame;
      if (frame.t === 'ping') { send(conn, { t: 'pong' }); return; }
      const d = conn.data;
      if (d.paused && !PAUSED_FRAMES.has(frame.t)) {
        send(conn, { t: 'error', code: 'forbidden', message: BOT_PAUSED_MESSAGE, ...(frame.t === 'message' && frame.clientId ? { clientId: frame.clientId } : {}) });
        return;
      }
      d.chain = d.chain.then(() => handleFrame(app, s, conn, frame, messages)).catch((err) => {
        // The conversation's actor has already told every socket of it (this one included).
        if (err && typeof err === 'object' && toldVisitors.has(err)) return;
        const clientId = frame.t === 'message' && frame.clientId ? { clientId: frame.clientId } : {};
        // A full disk: the REST API's 507, said to the visitor (src/store/disk-full.ts).
        if (isDiskFull(err)) { send(conn, { t: 'error', ...diskFullFrame(app, err), ...clientId }); return; }
        const stopping = err instanceof ActorStoppedError;
        // Scale-out: the conversation is owned by another process and Redis, which reaches it, is away for now.
        const away = err instanceof ApiError && err.code === 'unavailable';
        if (!stopping && !away) app.log.error({ err, frame: frame.t }, 'chat frame failed');
        send(conn, {
          t: 'error', code: isMailboxFullError(err) ? 'rate_limited' : stopping || away ? 'unavailable' : 'internal',
          message: isMailboxFullError(err) ? 'too many messages at once; slow down' : stopping ? 'the server is restarting; reconnect shortly'
            : away ? 'the chat is busy for a moment; please send your message again in a few seconds' : 'something went wrong; please try again',
          ...(away ? { retryAfterMs: Number(err.headers['Retry-After'] ?? 5) * 1000 } : {}),
          ...clientId,
        });
      });
    },
    close(conn) {
      published.remove(conn);
      hours.remove(conn);
      voice.socketClosed(conn);
      speakClosed(app, conn);
      linkCamera(s.cameraLinks, conn, null);
      const id = conn.data.conversationId;
      if (!id) return;
      service.hub.leave(id, conn);
      if (service.hub.openCount(id) === 0) s.visitorRequests.forget(id);
    },
  };
}

async function handleFrame(app: AppContext, s: WidgetServices, conn: SocketConn<WidgetSocketData>, frame: Exclude<ClientFrame, { t: 'ping' }>, limiter: RateLimiter): Promise<void> {
  const service = s.conversations;
  const d = conn.data;
  const send = (f: ServerFrame) => conn.send(encodeFrame(f));
  const requests = s.visitorRequests;
  switch (frame.t) {
    case 'handoff': {
      // Asking for a person before saying anything opens the conversation, as a lead form does.
      if (!d.conversationId && !(await openConversation(app, s, conn))) return;
      const r = await requestHandoff(app, s, { conversationId: d.conversationId!, reason: frame.reason ?? null, source: 'visitor' });
      if (!r.ok) return void send({ t: 'error', code: r.code === 'ended' ? 'not_found' : r.code, message: r.message });
      return void send({ t: 'handoff', handoffId: r.handoff._id, available: r.available });
    }
    case 'lead': {
      // Without lead capture a form is shown only by an offline flow, inside a conversation.
      if (!d.conversationId && !d.chat.config.behavior.leadCapture.enabled) {
        return void send({ t: 'error', code: 'forbidden', message: 'no lead form was shown (behavior.leadCapture is off)' });
      }
      if (!d.conversationId && !(await openConversation(app, s, conn))) return;
      const r = await submitLeadForm(app, {
        conversationId: d.conversationId!, visitorId: d.visitor.visitorId, fields: frame.fields, formShown: service.hub.leadFormShown(d.conversationId!),
      });
      if (!r.ok) return void send({ t: 'error', code: r.code, message: r.message });
      return void send({ t: 'lead_ok', leadId: r.lead._id });
    }
    case 'tools':
      d.pageTools = frame.tools;
      if (d.conversationId) requests.setPageTools(d.conversationId, frame.tools);
      return;
    case 'tool_result':
      if (!d.conversationId || !requests.answer(d.conversationId, frame.callId, 'tool_call', { content: frame.content, isError: frame.isError })) {
        send({ t: 'error', code: 'not_found', message: 'no page tool call with this callId is waiting' });
      }
      return;
    case 'confirm':
      if (!d.conversationId || !requests.answer(d.conversationId, frame.confirmId, 'confirm', frame.approved)) {
        send({ t: 'error', code: 'not_found', message: 'no confirmation with this confirmId is waiting' });
      }
      return;
    case 'speak':
      setSpeak(app, conn, frame.on);
      return;
    case 'camera': return handleCameraState(app, s.cameraLinks, conn, frame);
    case 'camera_frame':
    case 'camera_fail':
      return handleCameraFrame(app, s, conn, frame as CameraFrame, () => openConversation(app, s, conn));
    case 'typing':
      if (d.conversationId) service.send(d.conversationId, { type: 'visitorTyping', active: frame.active });
      return;
    case 'message': {
      const clientId = frame.clientId;
      const perMinute = d.chat.config.security.rateLimits.messagesPerMinute;
      const wait = await takeShared(s.sharedLimits, limiter, 'wmsg', `${d.chat.bot._id}|${d.visitor.visitorId}`, perMinute, 60_000);
      if (wait > 0) return void send({ t: 'error', code: 'rate_limited', message: `too many messages; at most ${perMinute} a minute`, retryAfterMs: wait, ...(clientId ? { clientId } : {}) });
      // leadCapture.when start: the form's answer opens the conversation; a message before it gets the form again.
      const lc = d.chat.config.behavior.leadCapture;
      if (lc.enabled && lc.when === 'start' && !d.conversationId) {
        send({ t: 'error', code: 'forbidden', message: 'Please fill in the form first; then send your message again.', ...(clientId ? { clientId } : {}) });
        return void send(leadFormFrame(null, 'start', lc.fields) as unknown as ServerFrame);
      }
      // per_turn: the frame the widget sent just before goes with the message.
      const attachments = [...(frame.attachments ?? []), ...takePendingFrame(conn)];
      const msg = { type: 'visitorMessage' as const, visitorId: d.visitor.visitorId, text: frame.text, attachments, clientId };
      for (let attempt = 0; attempt < 2; attempt++) {
        if (!d.conversationId && !(await openConversation(app, s, conn, clientId))) return;
        const r = await service.ask(d.conversationId!, msg);
        if (r.ok) return;
        if (r.code === 'ended') { service.hub.leave(d.conversationId!, conn); d.conversationId = null; continue; }
        return void send({ t: 'error', code: r.code, message: r.message, ...(r.retryAfterMs ? { retryAfterMs: r.retryAfterMs } : {}), ...(clientId ? { clientId } : {}) });
      }
      return;
    }
    case 'feedback':
    case 'csat': {
      if (!d.conversationId) return void send({ t: 'error', code: 'not_found', message: 'no conversation yet' });
      const r = frame.t === 'feedback'
        ? await service.ask(d.conversationId, { type: 'feedback', visitorId: d.visitor.visitorId, messageId: frame.messageId, value: frame.value })
        : await service.ask(d.conversationId, { type: 'csat', visitorId: d.visitor.visitorId, value: frame.value, comment: frame.comment });
      if (!r.ok) send({ t: 'error', code: r.code, message: r.message });
      return;
    }
    case 'voice_start': return startVoice(app, s, conn, frame.mode);
    case 'voice_ptt':
    case 'voice_played':
    case 'voice_stop': {
      const msg = frame.t === 'voice_ptt' ? { type: 'ptt' as const, down: frame.down }
        : frame.t === 'voice_played' ? { type: 'played' as const, itemId: frame.itemId, ms: frame.ms }
        : { type: 'stop' as const, reason: 'visitor' as const };
      if (!s.voice.control(conn, msg)) send({ t: 'error', code: 'not_found', message: 'no voice session is live on this chat; send voice_start first' });
      return;
    }
    case 'new_conversation': {
      if (!d.chat.config.behavior.newConversation) return void send({ t: 'error', code: 'forbidden', message: 'New conversation is off for this bot (behavior.newConversation)' });
      const id = d.conversationId;
      if (id) {
        await service.close(id, 'visitor_new_conversation');
        service.hub.leave(id, conn);
        linkCamera(s.cameraLinks, conn, null);
        d.conversationId = null;
      }
      send({ t: 'conversation', conversationId: null });
      return;
    }
  }
  void app;
}

/** voice_start: a conversation (opened if there is none, or a new one if it ended), then the voice session. */
async function startVoice(app: AppContext, s: WidgetServices, conn: SocketConn<WidgetSocketData>, mode?: 'hands_free' | 'ptt'): Promise<void> {
  const service = s.conversations;
  const d = conn.data;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (!d.conversationId && !(await openConversation(app, s, conn))) return;
    const r = await s.voice.start({ socket: conn, chat: d.chat, conversationId: d.conversationId!, visitorId: d.visitor.visitorId, ip: conn.ip, mode });
    if (r.ok) return;
    if (r.code === 'not_found' && attempt === 0) { service.hub.leave(d.conversationId!, conn); d.conversationId = null; continue; }
    if (!r.told) conn.send(encodeFrame({ t: 'error', code: r.code, message: r.message, ...(r.limit ? { limit: r.limit } : {}) }));
    return;
  }
}

async function openConversation(app: AppContext, s: WidgetServices, conn: SocketConn<WidgetSocketData>, clientId?: string): Promise<boolean> {
  const service = s.conversations;
  const d = conn.data;
  const started = await service.start({
    chat: d.chat, visitorId: d.visitor.visitorId, verified: d.visitor.verified, ip: conn.ip, page: d.page,
    visitor: { name: d.visitor.name, email: d.visitor.email },
  });
  if (!started.ok) {
    conn.send(encodeFrame({
      t: 'error', code: 'rate_limited', retryAfterMs: started.retryAfterMs, ...(clientId ? { clientId } : {}),
      message: `too many new conversations from this address (security.rateLimits.conversationsPerIpPerHour)`,
    }));
    return false;
  }
  d.conversationId = started.conversation._id;
  service.hub.join(d.conversationId, conn);
  if (d.pageTools) s.visitorRequests.setPageTools(d.conversationId, d.pageTools);
  linkCamera(s.cameraLinks, conn, d.conversationId);

  conn.send(encodeFrame({ t: 'conversation', conversationId: d.conversationId }));
  return true;
}

/** The visitor's page as the widget reports it: kept only when it is an http(s) address (a javascript: or data: URL never reaches the inbox). */
export function webPageUrl(raw: string): string {
  const url = raw.slice(0, 2048);
  return /^https?:\/\//i.test(url.trim()) ? url.trim() : '';
}
