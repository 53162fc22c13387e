import { runReply, type ReplyResult } from '../../src/conversation/agent-loop.js';
import { botStatus } from '../../src/bots/bot-source.js';
import { utcDay, type UsageDayRecord } from '../../src/records/conversations.js';
import { newId } from '../../src/store/ids.js';
import { capReached, usageDayId, usageToday } from '../../src/conversation/usage.js';
import { botOffline } from './offline.js';
import { startSpokenReply } from '../../src/voice/spoken-replies.js';
import { m, metricsEnabled } from '../../src/metrics/registry.js';
import { LeaseLostError } from '../../src/scale/ownership.js';
import type { ConversationActor } from './actor.js';
import type { ConversationMsg } from './messages.js';
import { addSpend, applySummary, dueForSummary, summarizeAhead, takeSummarySpend } from './summary.js';

export interface RunningReply {
  controller: AbortController;
  messageId: string;
  responseId: string;
  /** Settles with the replyDone message (also sent to the mailbox). */
  done: Promise<Extract<ConversationMsg, { type: 'replyDone' }>>;
}

/** Visitor-facing lines when the agent does not call the model (document: docs/widget-protocol.md). */
export const LINES = {
  cap: "Sorry, I can't answer any more messages today. Please try again tomorrow.",
  paused: "This assistant is paused and can't answer right now.",
  noBrain: "This assistant isn't set up to answer yet.",
  failed: "Sorry, something went wrong while answering. Please try again.",
  /** The model's last round gave no text (e.g. it kept asking for tools). */
  empty: "Sorry, I couldn't put an answer together. Please try asking in another way.",
} as const;

/** Starts a reply unless one is running (then it answers again afterwards) or the team is in charge. */
export async function requestReply(a: ConversationActor): Promise<void> {
  const began = performance.now();
  const { conv } = a;
  if (conv.status !== 'open' || conv.takenOverBy) return;
  if (a.s.reply) { a.s.pendingReply = true; return; }
  const chat = await a.currentChat();
  if (!chat) return;
  // Pausing takes effect at once for conversations already under way.
  const live = await botStatus(a.app, conv.botId);
  if (live) chat.bot.status = live;
  if (chat.bot.status === 'paused') { await a.storeMessage({ role: 'system_event', text: LINES.paused }); return; }
  // Outside opening hours with hours.scope bot the AI is offline too: the offline text (at most once an hour)
  // and the lead form, and no model call.
  const offline = await botOffline(a.app, conv, chat.config);
  if (offline) {
    if (offline.notice) await a.storeMessage({ role: 'system_event', text: offline.notice });
    if (offline.leadForm) a.push(offline.leadForm);
    return;
  }
  if (!chat.brain) { await a.storeMessage({ role: 'system_event', text: LINES.noBrain }); return; }
  if (await overCap(a)) { await a.storeMessage({ role: 'system_event', text: LINES.cap }); return; }

  const history = await a.recentMessages();
  const controller = new AbortController();
  const messageId = newId('msg', a.app.clock.now());
  const responseId = newId('rsp', a.app.clock.now());
  const base = { workspaceId: conv.workspaceId, botId: conv.botId, conversationId: conv._id };
  const events = a.app.events;
  const requests = a.requests;
  // textReplies speak: read aloud as it streams, beside the mailbox (its cost comes back as voiceUsage).
  const spoken = a.s.voice ? null : startSpokenReply(a.app, a.hub, {
    conversationId: conv._id, workspaceId: conv.workspaceId, config: chat.config, messageId, log: a.app.log,
    charge: (costUsd) => { if (a.status === 'running') { try { a.send({ type: 'voiceUsage', costUsd, voiceSeconds: 0 }); } catch { /* stopping */ } } },
  });
  let firstDelta = true;
  const done = runReply({
    pageTools: requests.pageToolsFor(conv._id),
    confirm: (tool, args) => requests.confirm(conv._id, tool, args),
    app: a.app, tools: a.tools, config: chat.config, brain: chat.brain, conversation: { ...conv }, history, messageId, signal: controller.signal,
    summaryReady: a.s.summarizing?.ready,
    onDelta: (delta) => {
      if (firstDelta) { firstDelta = false; if (metricsEnabled()) m.turnFirstDelta.observe((performance.now() - began) / 1000); }
      spoken?.push(delta);
      a.push({ t: 'delta', conversationId: conv._id, messageId, responseId, delta });
      events.publishVolatile(base.workspaceId, 'message.delta', { conversationId: conv._id, messageId, responseId, delta });
    },
    onStatus: (state, tool) => {
      a.push({ t: 'status', conversationId: conv._id, state, ...(tool ? { tool } : {}) }, messageId);
      events.publishVolatile(base.workspaceId, 'agent.status', { conversationId: conv._id, state, ...(tool ? { tool } : {}) });
    },
    onMood: (mood) => a.push({ t: 'face', mood }),
    onToolCalled: (rec) => {
      void a.db.toolCalls.insertOne(rec).catch((err) => a.app.log.error({ err, conversationId: conv._id }, 'storing a tool call failed'));
      void events.publish(base.workspaceId, 'tool.called', { botId: conv.botId, conversationId: conv._id, name: rec.name, isError: rec.isError, durationMs: rec.durationMs })
        .catch((err) => a.app.log.error({ err }, 'publishing tool.called failed'));
    },
  }).then(
    (result) => { if (controller.signal.aborted) spoken?.cancel(); else spoken?.end(); return { type: 'replyDone' as const, messageId, responseId, result, aborted: controller.signal.aborted }; },
    (error) => { spoken?.cancel(); return { type: 'replyDone' as const, messageId, responseId, error, aborted: controller.signal.aborted }; },
  );
  a.s.reply = { controller, messageId, responseId, done };
  // The result is handled by the actor's own loop; once it is stopping, onStop handles it instead.
  void done.then((msg) => { if (a.status === 'running') { try { a.send(msg, { priority: 'urgent' }); } catch { /* onStop finishes it */ } } });
}

async function overCap(a: ConversationActor): Promise<boolean> {
  const caps = a.s.chat!.config.security.caps;
  if (caps.dailyUsd === null && caps.dailyMessages === null) return false;
  return capReached(caps, await usageToday(a.app, a.conv.workspaceId, a.conv.botId)) !== null;
}

/** Stores the finished reply (or drops a cancelled one), counts usage, then answers again if asked meanwhile. */
export async function finishReply(a: ConversationActor, msg: Extract<ConversationMsg, { type: 'replyDone' }>): Promise<void> {
  const running = a.s.reply;
  if (running?.messageId !== msg.messageId) return; // already handled (onStop and the mailbox both saw it)
  a.s.reply = null;
  const { conv } = a;
  const idle = () => {
    a.push({ t: 'status', conversationId: conv._id, state: 'idle' }, msg.messageId);
    a.app.events.publishVolatile(conv.workspaceId, 'agent.status', { conversationId: conv._id, state: 'idle' });
  };
  if (msg.aborted || msg.error || !msg.result) {
    if (msg.error && !msg.aborted) a.app.log.warn({ err: msg.error, conversationId: conv._id }, 'agent reply failed');
    // Stopped because another process owns the conversation now (this one was frozen past its lease): it is cut
    // off, not withdrawn, so the widget keeps what it showed and offers to ask again.
    const cut = running.controller.signal.reason instanceof LeaseLostError;
    a.push({ t: cut ? 'interrupted' : 'delta_reset', conversationId: conv._id, messageId: msg.messageId });
    idle();
    if (msg.error && !msg.aborted && conv.status === 'open') await a.storeMessage({ role: 'system_event', text: LINES.failed });
  } else {
    await storeReply(a, msg.messageId, msg.result);
    idle();
    if (msg.result.endConversation) await a.end('agent_goodbye');
    else await startSummaryIfDue(a);
  }
  if (a.s.pendingReply && conv.status === 'open') {
    a.s.pendingReply = false;
    await requestReply(a);
  }
}

/** Past the watermark, the next turn's summary is made now, beside the mailbox, so that turn need not wait for it. */
async function startSummaryIfDue(a: ConversationActor): Promise<void> {
  const older = await dueForSummary(a);
  if (older && !(await overCap(a))) summarizeAhead(a, older);
}

async function storeReply(a: ConversationActor, messageId: string, reply: ReplyResult): Promise<void> {
  const { conv } = a;
  const model = a.s.chat?.brain?.model ?? '';
  // What summaries made in the background spent rides on this reply, as an inline summary's would.
  const spent = takeSummarySpend(a);
  const r = spent ? { ...reply, ...addSpend({ usage: reply.usage, costUsd: reply.costUsd }, spent) } : reply;
  if (r.summary) await applySummary(a, r.summary);
  if (r.text.trim()) {
    await a.storeMessage({
      id: messageId, role: 'assistant', text: r.text,
      extra: { model, usage: r.usage, costUsd: r.costUsd, ...(r.citations.length && a.s.chat?.config.behavior.citations ? { citations: r.citations } : {}) },
    });
  } else {
    if (r.costUsd > 0) {
      conv.costUsd += r.costUsd;
      await a.db.conversations.updateOne({ workspaceId: conv.workspaceId, _id: conv._id }, { $inc: { costUsd: r.costUsd } });
    }
    // The visitor always gets an answer; a silent goodbye (end_conversation) needs none.
    if (!r.endConversation) await a.storeMessage({ role: 'system_event', text: LINES.empty });
  }
  const day = utcDay(a.app.clock.now());
  await a.db.usage.updateOne(
    { workspaceId: conv.workspaceId, _id: usageDayId(conv.botId, day) },
    { $inc: { costUsd: r.costUsd, replies: 1 }, $setOnInsert: { botId: conv.botId, day } satisfies Partial<UsageDayRecord> },
    { upsert: true },
  );
}
