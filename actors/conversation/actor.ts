import type { AppContext } from '../../src/app/context.js';
import type { Readiness } from '../../src/app/readiness.js';
import type { BotConfig } from '../../src/bots/config/index.js';
import { loadBotForChat, type ChatBot } from '../../src/bots/bot-source.js';
import type { BotLists } from '../../src/bots/list-cache.js';
import type { ChatHub } from '../../src/conversation/hub.js';
import type { VisitorRequests } from '../../src/conversation/visitor-requests.js';
import type { ToolRegistry } from '../../src/tools/registry.js';
import type { ServerFrame } from '../../src/conversation/protocol.js';
import { publicMessage, widgetMessage, type ConversationRecord, type EndReason, type MessageRecord, type PublicMessage } from '../../src/records/conversations.js';
import type { Records } from '../../src/app/records.js';
import { diskFullFrame, isDiskFull } from '../../src/store/disk-full.js';
import { newId } from '../../src/store/ids.js';
import { Actor, assertNever, type ActorFactoryContext } from '../runtime/index.js';
import type { ConversationMsg, ConversationReplies, VisitorMessageReply } from './messages.js';
import { finishReply, requestReply, type RunningReply } from './reply.js';
import { chargeSummarySpend, finishSummary, stopSummary, type RunningSummary, type SpendOf } from './summary.js';
import { handleCsat, handleFeedback, handleRelease, handleTakeover, handleTeamMessage } from './team.js';
import { handleVoiceAttach, handleVoiceDetach, handleVoiceTurn, handleVoiceUsage } from './voice.js';
import type { VoicePort } from './messages.js';

/** What each conversation actor is handed (by its service, from the composition root). */
export interface ConversationDeps {
  hub: ChatHub;
  /** A draining process hands its conversations over (scale-out). */
  readiness: Readiness;
  tools: ToolRegistry;
  requests: VisitorRequests;
  /** Tells when the workspace's bots or provider connections changed (then the conversation reads its bot again). */
  bots: Pick<BotLists, 'generation'>;
}

export interface ConversationState {
  conv: ConversationRecord | null;
  chat: ChatBot | null;
  /** The workspace's bots generation `chat` was read at (BotLists.generation). */
  chatGeneration: number;
  reply: RunningReply | null;
  /** A visitor message arrived while a reply was running: answer again when it is done. */
  pendingReply: boolean;
  /**
   * The messages after the summary, oldest first, once a reply has needed them: the actor is the only writer
   * of its conversation's messages, so it keeps them instead of reading them back for every reply.
   */
  recent: MessageRecord[] | null;
  /** The live voice session of this conversation: typed text goes to its engine instead of a text reply. */
  voice: VoicePort | null;
  /** The summary being made ahead of need, beside the mailbox (summary.ts). */
  summarizing: RunningSummary | null;
  /** What background summaries spent that no stored reply carries yet. */
  summarySpend: SpendOf | null;
}

const idleMinutes = (config: BotConfig | undefined) => config?.behavior.endAfterIdleMinutes ?? 30;

/** The idle end of a conversation left without one by a stopped process: endAfterIdleMinutes after its last message. */
export const idleEndFromLastMessage = (conv: ConversationRecord, config: BotConfig | undefined) => conv.lastMessageAt + idleMinutes(config) * 60_000;

/**
 * One conversation: visitor messages, the agent's replies (run beside the mailbox, their result comes back as
 * `replyDone`), summaries made ahead of need (beside the mailbox too, back as `summaryDone`), team actions,
 * feedback, idle end. State is the conversation record plus the running reply and summary.
 */
/** Failures of a visitor's message the actor has told the conversation's widget sockets about (with its clientId). */
export const toldVisitors = new WeakSet<object>();

export class ConversationActor extends Actor<ConversationMsg, ConversationState, ConversationReplies> {
  readonly db: Records;
  /** Scale-out: checks this process still owns the conversation before a write (set by the service; no-op alone). */
  fence: () => Promise<void> = async () => {};

  readonly hub: ChatHub;
  /** The agent loop's tools. */
  readonly tools: ToolRegistry;
  /** Page tool calls and confirmations waiting for the visitor's page. */
  readonly requests: VisitorRequests;
  private readonly bots: ConversationDeps['bots'];

  constructor(id: string, ctx: ActorFactoryContext, readonly app: AppContext, deps: ConversationDeps) {
    super({ id, clock: ctx.clock, log: ctx.log, initialState: { conv: null, chat: null, chatGeneration: -1, reply: null, pendingReply: false, recent: null, voice: null, summarizing: null, summarySpend: null }, mailbox: { capacity: 200 } });
    this.db = app.records;
    this.hub = deps.hub;
    this.tools = deps.tools;
    this.requests = deps.requests;
    this.bots = deps.bots;
  }

  get conv(): ConversationRecord {
    if (!this.state.conv) throw new Error(`conversation ${this.id} is not loaded`);
    return this.state.conv;
  }
  get s(): ConversationState { return this.state; }

  /**
   * The bot as this conversation uses it (the config version it started with, the bot's status and brain now): read
   * again when the workspace's bots or provider connections changed since, so a rotated key answers the next reply.
   */
  async currentChat(): Promise<ChatBot | null> {
    if (this.state.chatGeneration !== this.bots.generation(this.conv.workspaceId)) await this.readChat();
    return this.state.chat;
  }

  private async readChat(): Promise<void> {
    const conv = this.conv;
    // Taken before the read: a change made while it runs makes the next reply read again.
    const generation = this.bots.generation(conv.workspaceId);
    this.state.chat = await loadBotForChat(this.app, conv.botId, conv.previewConfig ? { draft: conv.previewConfig } : { version: conv.configVersion });
    this.state.chatGeneration = generation;
  }

  protected override async onStart(): Promise<void> {
    const conv = await this.db.conversations.findOne({ _id: this.id }, { crossWorkspace: true });
    if (!conv) throw new Error(`conversation ${this.id} not found`);
    this.state.conv = conv;
    await this.readChat();
    if (conv.status === 'open' && this.hub.openCount(conv._id) === 0) {
      // No idle end while no widget has it open: the process stopped while one had. Count from the last message.
      if (conv.idleEndsAt === null) {
        conv.idleEndsAt = idleEndFromLastMessage(conv, this.state.chat?.config);
        await this.db.conversations.updateOne({ workspaceId: conv.workspaceId, _id: conv._id, idleEndsAt: null }, { $set: { idleEndsAt: conv.idleEndsAt } });
      }
      this.timers.set('idle', Math.max(0, conv.idleEndsAt - this.clock.now()), { type: 'idleCheck' });
    }
  }

  protected override async onStop(): Promise<void> {
    // A reply still running when the actor is passivated or the server stops: wait for it and store it.
    const running = this.state.reply;
    if (running) await finishReply(this, await running.done);
    // A summary made ahead is only a head start: it is dropped, not waited for.
    const job = this.state.summarizing;
    if (job) {
      stopSummary(this, 'conversation actor stopped');
      await finishSummary(this, await job.done);
    }
    await chargeSummarySpend(this);
  }

  protected async handle(msg: ConversationMsg): Promise<unknown> {
    switch (msg.type) {
      case 'visitorMessage': return this.onVisitorMessage(msg);
      case 'visitorTyping':
        this.app.events.publishVolatile(this.conv.workspaceId, 'visitor.typing', { botId: this.conv.botId, conversationId: this.id, active: msg.active });
        return undefined;
      case 'feedback': return handleFeedback(this, msg);
      case 'csat': return handleCsat(this, msg);
      case 'presence': return this.onPresence(msg.open);
      case 'close': return { ended: await this.end(msg.reason) };
      case 'takeover':
        stopSummary(this, 'taken over');
        return handleTakeover(this, msg);
      case 'release': return handleRelease(this, msg);
      case 'teamMessage': return handleTeamMessage(this, msg);
      case 'teamTyping':
        this.push({ t: 'typing', active: msg.active, authorName: msg.authorName });
        return undefined;
      case 'systemLine': return this.storeMessage({ role: 'system_event', text: msg.text });
      case 'agentReply': return requestReply(this);
      case 'replyDone': return finishReply(this, msg);
      case 'summaryDone': return finishSummary(this, msg);
      case 'idleCheck': return this.onIdleCheck();
      case 'forget':
        this.state.reply?.controller.abort(new Error('conversation deleted'));
        this.state.pendingReply = false;
        return undefined;
      case 'voiceAttach': return handleVoiceAttach(this, msg);
      case 'voiceDetach': return handleVoiceDetach(this, msg);
      case 'voiceTurn': return handleVoiceTurn(this, msg);
      case 'voiceUsage': return handleVoiceUsage(this, msg);
      default: return assertNever(msg);
    }
  }

  private async onVisitorMessage(msg: Extract<ConversationMsg, { type: 'visitorMessage' }>): Promise<VisitorMessageReply> {
    const conv = this.conv;
    const config = this.state.chat?.config;
    if (conv.status !== 'open' || !config) return { ok: false, code: 'ended', message: 'this conversation has ended' };
    if (msg.visitorId !== conv.visitorId) return { ok: false, code: 'forbidden', message: 'this conversation belongs to another visitor' };
    const text = msg.text.trim();
    if (text.length > config.security.maxMessageChars) {
      return { ok: false, code: 'invalid', message: `text: longer than ${config.security.maxMessageChars} characters (security.maxMessageChars)` };
    }
    if (!text && msg.attachments.length === 0) return { ok: false, code: 'invalid', message: 'text: empty message' };
    if (conv.messageCount >= 3 * config.security.maxTurnsPerConversation) {
      return { ok: false, code: 'session_limit', message: 'this conversation has reached its length limit; start a new conversation' };
    }
    const attachments = await this.claimAttachments(msg.attachments);
    if ('error' in attachments) return { ok: false, code: 'invalid', message: attachments.error };
    const stored = await this.storeMessage({ role: 'user', text, attachments: attachments.refs }, msg.clientId);
    // During a voice session the engine answers typed text too (in voice), so the session keeps one context.
    if (this.state.voice && !conv.takenOverBy) this.state.voice.sendText(text);
    else await requestReply(this);
    return { ok: true, message: stored };
  }

  private async claimAttachments(ids: string[]): Promise<{ refs: MessageRecord['attachments'] } | { error: string }> {
    if (!ids.length) return { refs: [] };
    const uploads = this.state.chat!.config.vision.uploads;
    const refs: MessageRecord['attachments'] = [];
    for (const id of new Set(ids)) {
      const a = await this.db.attachments.findById(this.conv.workspaceId, id);
      if (!a || a.visitorId !== this.conv.visitorId || a.botId !== this.conv.botId || (a.conversationId && a.conversationId !== this.id)) {
        return { error: `attachments: ${id} not found (upload it first with POST /widget/v1/uploads)` };
      }
      // Camera frames were checked against vision.webcam when they came (src/voice/camera.ts).
      refs.push({ id: a._id, mimeType: a.mimeType, width: a.width, height: a.height, ...(a.camera ? { camera: { shared: a.camera.shared, ...(a.camera.description ? { description: a.camera.description } : {}) } } : {}) });
    }
    const uploaded = refs.filter((r) => !r.camera).length;
    if (uploaded && (!uploads.enabled || !this.state.chat!.brain?.canSee)) return { error: 'attachments: this bot does not take images' };
    if (uploaded > uploads.maxPerMessage) return { error: `attachments: at most ${uploads.maxPerMessage} images per message (vision.uploads.maxPerMessage)` };
    await this.db.attachments.updateMany({ workspaceId: this.conv.workspaceId, _id: { $in: refs.map((r) => r.id) } }, { $set: { conversationId: this.id } });
    return { refs };
  }

  /** Messages after the current summary, oldest first (read from the store once, then kept up to date). */
  async recentMessages(): Promise<MessageRecord[]> {
    if (!this.state.recent) {
      const conv = this.conv;
      const upto = conv.summary?.uptoSeq ?? -1;
      this.state.recent = await this.db.messages.find({ workspaceId: conv.workspaceId, conversationId: conv._id, seq: { $gt: upto } }, { sort: [['seq', 1]] });
    }
    return this.state.recent.slice();
  }

  /** A new summary covers messages up to this seq: they are no longer sent to the model. */
  dropMessagesUpTo(seq: number): void {
    if (this.state.recent) this.state.recent = this.state.recent.filter((m) => m.seq > seq);
  }

  /** Stores a message with the next seq, publishes message.created (visible ones) and sends it to the widget. */
  async storeMessage(
    m: { role: MessageRecord['role']; text: string; attachments?: MessageRecord['attachments']; authorName?: string | null; visibility?: 'visible' | 'internal'; id?: string; extra?: Partial<MessageRecord> },
    clientId?: string,
  ): Promise<PublicMessage> {
    const conv = this.conv;
    const now = this.clock.now();
    const rec: MessageRecord = {
      _id: m.id ?? newId('msg', now), workspaceId: conv.workspaceId, conversationId: conv._id, botId: conv.botId, seq: conv.nextSeq,
      role: m.role, text: m.text, modality: 'text', createdAt: now, authorName: m.authorName ?? null,
      visibility: m.visibility ?? 'visible', attachments: m.attachments ?? [], ...m.extra,
    };
    await this.fence();
    await this.db.messages.insertOne(rec);
    this.state.recent?.push(rec);
    const cost = rec.costUsd ?? 0;
    conv.nextSeq += 1; conv.messageCount += 1; conv.lastMessageAt = now; conv.updatedAt = now; conv.costUsd += cost;
    if (conv.status === 'open' && this.hub.openCount(conv._id) === 0) this.armIdle();
    await this.db.conversations.updateOne({ workspaceId: conv.workspaceId, _id: conv._id }, {
      $inc: { nextSeq: 1, messageCount: 1, costUsd: cost }, $set: { lastMessageAt: now, updatedAt: now, idleEndsAt: conv.idleEndsAt },
    });
    const pub = publicMessage(rec);
    if (rec.visibility === 'visible') {
      this.push({ t: 'message', conversationId: conv._id, message: widgetMessage(rec), ...(clientId ? { clientId } : {}) });
      await this.app.events.publish(conv.workspaceId, 'message.created', { botId: conv.botId, conversationId: conv._id, message: pub });
    }
    return pub;
  }

  /** Sends a frame to the conversation's widgets; `replyId`: the reply a status frame is about. */
  push(frame: ServerFrame, replyId?: string): void {
    this.hub.push(this.id, frame, replyId);
  }

  /** Ends the conversation once; a running reply is dropped. Returns false when it had already ended. */
  async end(reason: EndReason): Promise<boolean> {
    const conv = this.conv;
    if (conv.status !== 'open') return false;
    await this.fence();
    this.state.reply?.controller.abort(new Error(`conversation ended: ${reason}`));
    this.state.pendingReply = false;
    stopSummary(this, `conversation ended: ${reason}`);
    this.state.voice?.end('conversation_ended');
    this.state.voice = null;
    this.timers.cancel('idle');
    const now = this.clock.now();
    Object.assign(conv, { status: 'ended', endReason: reason, endedAt: now, updatedAt: now, idleEndsAt: null });
    await this.db.conversations.updateOne({ workspaceId: conv.workspaceId, _id: conv._id }, { $set: { status: 'ended', endReason: reason, endedAt: now, updatedAt: now, idleEndsAt: null } });
    await chargeSummarySpend(this);
    await this.app.events.publish(conv.workspaceId, 'conversation.ended', { botId: conv.botId, conversationId: conv._id, reason });
    this.push({ t: 'ended', conversationId: conv._id, reason, askCsat: !!this.state.chat?.config.behavior.feedback.csat });
    return true;
  }

  private async onPresence(open: boolean): Promise<void> {
    if (this.conv.status !== 'open') return;
    if (open && this.hub.openCount(this.id) > 0) {
      this.timers.cancel('idle');
      if (this.conv.idleEndsAt !== null) {
        this.conv.idleEndsAt = null;
        await this.db.conversations.updateOne({ workspaceId: this.conv.workspaceId, _id: this.id }, { $set: { idleEndsAt: null } });
      }
    } else if (!open && this.hub.openCount(this.id) === 0) {
      this.armIdle();
      await this.db.conversations.updateOne({ workspaceId: this.conv.workspaceId, _id: this.id }, { $set: { idleEndsAt: this.conv.idleEndsAt } });
    }
  }

  /** behavior.endAfterIdleMinutes counts from the later of the last message and the last widget closing. */
  private armIdle(): void {
    const minutes = idleMinutes(this.state.chat?.config);
    const at = Math.max(this.conv.lastMessageAt, this.clock.now()) + minutes * 60_000;
    this.conv.idleEndsAt = at;
    this.timers.set('idle', at - this.clock.now(), { type: 'idleCheck' });
  }

  private async onIdleCheck(): Promise<void> {
    const conv = this.conv;
    if (conv.status !== 'open' || conv.idleEndsAt === null || this.hub.openCount(this.id) > 0) return;
    if (conv.idleEndsAt > this.clock.now()) { this.timers.set('idle', conv.idleEndsAt - this.clock.now(), { type: 'idleCheck' }); return; }
    // With a team member in charge, the conversation is theirs to close.
    if (conv.takenOverBy) return;
    await this.end('idle');
  }

  protected override async onHandlerError(err: unknown, msg: ConversationMsg): Promise<void> {
    if (msg.type !== 'visitorMessage') return;
    // Every socket of the conversation hears it; the socket that asked says nothing more (widget-socket.ts).
    if (err && typeof err === 'object') toldVisitors.add(err);
    // A full disk: the REST API's 507, said to the visitor (src/store/disk-full.ts).
    if (isDiskFull(err)) this.push({ t: 'error', ...diskFullFrame(this.app, err), clientId: msg.clientId });
    else this.push({ t: 'error', code: 'internal', message: 'the message could not be handled; please try again', clientId: msg.clientId });
  }
}
