import type { AppContext } from '../../src/app/context.js';
import { renderField, contextFromIdentity } from '../../src/bots/config/index.js';
import { loadBotForChat, type ChatBot } from '../../src/bots/bot-source.js';
import type { ChatHub } from '../../src/conversation/hub.js';
import type { ServerFrame } from '../../src/conversation/protocol.js';
import { RateLimiter } from '../../src/security/rate-limiter.js';
import { type ConversationRecord, type EndReason } from '../../src/records/conversations.js';
import { newId } from '../../src/store/ids.js';
import { takeShared, type SharedLimits } from '../../src/scale/limits.js';
import { ConversationRouter } from '../../src/scale/ownership.js';
import { nodeOf } from '../../src/scale/node-of.js';
import { ActorRegistry, isMailboxFullError } from '../runtime/index.js';
import { ConversationActor, idleEndFromLastMessage, type ConversationDeps } from './actor.js';
import type { ConversationMsg, ConversationReplies } from './messages.js';

/** A passivated conversation is rebuilt from the store; idle ends of passivated ones are found by the sweep. */
const ACTOR_IDLE_MS = 10 * 60_000;
const SWEEP_EVERY_MS = 60_000;

export interface StartConversationInput {
  chat: ChatBot;
  visitorId: string;
  verified: boolean;
  ip: string;
  page: { url: string; title: string };
  visitor: { name?: string; email?: string };
}

/**
 * The conversation engine's front door, one per app (the composition root makes it and hands it to who uses it).
 * Sockets, REST routes and other areas (takeover, handoff) reach a conversation only through `send`/`ask`, so its
 * actor is the one writer.
 */
export class ConversationService {
  readonly registry: ActorRegistry<ConversationActor>;
  readonly hub: ChatHub;
  /** security.rateLimits.conversationsPerIpPerHour, per bot and IP. */
  private readonly newConversations: RateLimiter;
  private sweepTimer: ReturnType<AppContext['clock']['setTimeout']> | null = null;
  /** Scale-out only: which process owns which conversation. */
  private readonly router: ConversationRouter | null;
  private closed = false;

  constructor(private readonly app: AppContext, deps: ConversationDeps, private readonly sharedLimits: SharedLimits | null) {
    this.hub = deps.hub;
    this.registry = new ActorRegistry<ConversationActor>({
      factory: (id, ctx) => {
        const actor = new ConversationActor(id, ctx, app, deps);
        if (app.scale) actor.fence = () => this.fence(id);
        return actor;
      },
      clock: app.clock, log: app.log, idleMs: ACTOR_IDLE_MS, kind: 'conversation',
    });
    this.newConversations = new RateLimiter(app.clock, 3600_000);
    const node = nodeOf(app);
    this.router = node ? new ConversationRouter(app, node, this.registry, deps.readiness) : null;
    this.hub.onPresence = (conversationId, open) => this.trySend(conversationId, { type: 'presence', open });
  }

  /** At shutdown (the composition root calls it): the sweep stops, every actor drains, the router lets go. */
  async stop(): Promise<void> {
    this.closed = true;
    if (this.sweepTimer) this.app.clock.clearTimeout(this.sweepTimer);
    await this.registry.stopAll();
    await this.router?.close();
  }

  /**
   * Enqueues a message for the conversation's actor (created on demand). Throws MailboxFullError when flooded.
   * In a scale-out group the actor may live on another process: the message is sent there (src/scale/ownership.ts).
   */
  send(conversationId: string, msg: ConversationMsg): void {
    if (!this.router || this.router.holds(conversationId)) return this.registry.get(conversationId).send(msg);
    this.router.route(conversationId, msg, false).catch((err) => this.app.log.warn({ err, conversationId, type: msg.type }, 'conversation message not delivered to its owner'));
  }

  /** Enqueues a message and waits for the actor's answer (from the owning process, in a group). */
  ask<M extends ConversationMsg>(conversationId: string, msg: M): Promise<M['type'] extends keyof ConversationReplies ? ConversationReplies[M['type']] : unknown> {
    if (!this.router || this.router.holds(conversationId)) return this.registry.get(conversationId).ask(msg) as never;
    return this.router.route(conversationId, msg, true) as never;
  }

  /** Scale-out: throws LeaseLostError when this process no longer owns the conversation (checked before writes). */
  async fence(conversationId: string): Promise<void> {
    await this.router?.fence(conversationId);
  }

  /** Sends a frame to every widget socket that has the conversation open (team typing, custom notices). */
  pushToVisitor(conversationId: string, frame: ServerFrame): number {
    return this.hub.push(conversationId, frame);
  }

  close(conversationId: string, reason: EndReason): Promise<{ ended: boolean }> {
    return this.ask(conversationId, { type: 'close', reason });
  }

  /** Stops the conversation's actor without storing anything more (before deleting the conversation). */
  async forget(conversationId: string): Promise<void> {
    const actor = this.registry.peek(conversationId);
    if (!actor) return;
    // The actor drops its running reply itself (urgent: ahead of what is queued), then stops without handling the rest.
    await actor.ask({ type: 'forget' }, { priority: 'urgent' }).catch(() => { /* already stopping: nothing runs */ });
    await actor.stop({ drain: false });
  }

  /** Creates a conversation record (the first visitor message then starts it). Refuses past conversationsPerIpPerHour. */
  async start(input: StartConversationInput): Promise<{ ok: true; conversation: ConversationRecord } | { ok: false; retryAfterMs: number }> {
    const { chat } = input;
    // Redis lost (scale-out): no new conversation until it returns; the open ones owned here go on.
    if (this.app.scale && !this.app.scale.healthy) return { ok: false, retryAfterMs: 5000 };
    const wait = await takeShared(this.sharedLimits, this.newConversations, 'conv', `${chat.bot._id}|${input.ip}`, chat.config.security.rateLimits.conversationsPerIpPerHour, 3600_000);
    if (wait > 0) return { ok: false, retryAfterMs: wait };
    const now = this.app.clock.now();
    const ctx = contextFromIdentity(chat.config.identity, { page: input.page, visitor: { ...input.visitor, verified: input.verified } });
    const conversation: ConversationRecord = {
      _id: newId('conv', now), workspaceId: chat.bot.workspaceId, botId: chat.bot._id, visitorId: input.visitorId, verified: input.verified,
      status: 'open', endReason: null, tags: [], takenOverBy: null, configVersion: chat.version,
      // A preview keeps the draft it started with, whatever happens to the draft or the bot's versions later.
      ...(chat.preview ? { previewConfig: chat.config } : {}),
      prompt: {
        instructions: renderField('identity.instructions', chat.config.identity.instructions, ctx),
        guardrails: renderField('identity.guardrails', chat.config.identity.guardrails, ctx),
      },
      page: input.page, summary: null, nextSeq: 1, messageCount: 0, costUsd: 0, ip: input.ip,
      createdAt: now, updatedAt: now, lastMessageAt: now, idleEndsAt: null, endedAt: null, csat: null,
    };
    await this.app.records.conversations.insertOne(conversation);
    // Whatever opens it (a first message, a lead form, a handoff request, voice), a conversation starts once.
    await this.app.events.publish(conversation.workspaceId, 'conversation.started', { botId: conversation.botId, conversationId: conversation._id, visitorId: conversation.visitorId });
    return { ok: true, conversation };
  }

  /** The open conversation a returning visitor continues (behavior.persistence.resumeWindowHours), if any. */
  async resumable(chat: ChatBot, visitorId: string): Promise<ConversationRecord | null> {
    const hours = chat.config.behavior.persistence.resumeWindowHours;
    if (hours <= 0) return null;
    // A preview resumes only preview conversations (configVersion 0), and a visitor of the published bot never those.
    const conv = await this.app.records.conversations.findOne(
      { workspaceId: chat.bot.workspaceId, botId: chat.bot._id, visitorId, status: 'open', configVersion: chat.preview ? 0 : { $gt: 0 } }, { sort: [['lastMessageAt', -1]] },
    );
    if (!conv || conv.lastMessageAt < this.app.clock.now() - hours * 3600_000) return null;
    return conv;
  }

  /** Starts the sweep that ends idle conversations whose actors were passivated (or the server restarted). */
  startSweeper(): void {
    if (this.closed || this.sweepTimer) return;
    let first = true;
    const tick = async () => {
      this.sweepTimer = null;
      if (this.closed) return;
      try {
        if (first) { await this.repairIdleEnds(); first = false; }
        const due = await this.app.records.conversations.find(
          { status: 'open', idleEndsAt: { $lte: this.app.clock.now() } }, { crossWorkspace: true, limit: 200, sort: [['idleEndsAt', 1]] },
        );
        for (const c of due) if (this.hub.openCount(c._id) === 0 && !this.registry.peek(c._id)) this.trySend(c._id, { type: 'idleCheck' });
      } catch (err) {
        this.app.log.error({ err }, 'idle conversation sweep failed');
      }
      if (!this.closed) this.sweepTimer = this.app.clock.setTimeout(() => void tick(), SWEEP_EVERY_MS);
    };
    this.sweepTimer = this.app.clock.setTimeout(() => void tick(), SWEEP_EVERY_MS);
  }

  /**
   * Open conversations without an idle end that no widget of this process has open: the process stopped while
   * a widget had them open. They end endAfterIdleMinutes after their last message (actors set their own).
   */
  private async repairIdleEnds(): Promise<void> {
    const col = this.app.records.conversations;
    const configs = new Map<string, Promise<ChatBot | null>>();
    let after = '';
    for (;;) {
      const page = await col.find({ status: 'open', idleEndsAt: null, _id: { $gt: after } }, { crossWorkspace: true, limit: 200, sort: [['_id', 1]] });
      for (const c of page) {
        if (this.hub.openCount(c._id) > 0 || this.registry.peek(c._id)) continue;
        const key = `${c.botId}:${c.previewConfig ? c._id : c.configVersion}`;
        if (!configs.has(key)) configs.set(key, loadBotForChat(this.app, c.botId, c.previewConfig ? { draft: c.previewConfig } : { version: c.configVersion }));
        const at = idleEndFromLastMessage(c, (await configs.get(key))?.config);
        await col.updateOne({ workspaceId: c.workspaceId, _id: c._id, idleEndsAt: null }, { $set: { idleEndsAt: at } });
      }
      if (page.length < 200) return;
      after = page[page.length - 1]._id;
    }
  }

  private trySend(conversationId: string, msg: ConversationMsg): void {
    if (this.closed) return;
    try { this.send(conversationId, msg); } catch (err) {
      if (!isMailboxFullError(err)) this.app.log.warn({ err, conversationId, type: msg.type }, 'conversation message not delivered');
    }
  }
}
