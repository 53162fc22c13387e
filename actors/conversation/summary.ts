import { compactionAhead, summarize } from '../../src/conversation/compaction.js';
import { utcDay, type ConversationRecord, type MessageRecord, type UsageDayRecord } from '../../src/records/conversations.js';
import { usageDayId } from '../../src/conversation/usage.js';
import { estimateCostUsd } from '../../src/providers/index.js';
import { newId } from '../../src/store/ids.js';
import type { ConversationActor } from './actor.js';
import type { ConversationMsg } from './messages.js';

type SummaryDone = Extract<ConversationMsg, { type: 'summaryDone' }>;
type Summary = NonNullable<ConversationRecord['summary']>;
export type SpendOf = { usage: { inputTokens: number; outputTokens: number }; costUsd: number };

/** A summary being made beside the mailbox, at most one per conversation. */
export interface RunningSummary {
  id: string;
  controller: AbortController;
  /** The summary, or null when it failed or was stopped: a reply waiting for it then compacts inline. */
  ready: Promise<Summary | null>;
  /** Settles with the summaryDone message (also sent to the mailbox). */
  done: Promise<SummaryDone>;
}

/**
 * The older messages to condense now, ahead of need (docs/decisions.md, "Compaction ahead of need"), or null: the
 * history is under the watermark, a summary is already being made, or nobody may call the model for this
 * conversation now.
 */
export async function dueForSummary(a: ConversationActor): Promise<MessageRecord[] | null> {
  const { conv } = a;
  const chat = a.s.chat;
  if (a.status !== 'running' || a.s.summarizing || conv.status !== 'open' || conv.takenOverBy || !chat?.brain || chat.bot.status === 'paused') return null;
  return compactionAhead(await a.recentMessages(), chat.config.brain.compactAtTokens);
}

/** Starts condensing `older` (from dueForSummary) beside the mailbox; the result comes back as summaryDone. */
export function summarizeAhead(a: ConversationActor, older: MessageRecord[]): void {
  const brain = a.s.chat!.brain!;
  const controller = new AbortController();
  const id = newId('sum', a.app.clock.now());
  const uptoSeq = older[older.length - 1].seq;
  const done: Promise<SummaryDone> = summarize(brain, a.conv.summary?.text ?? null, older, controller.signal).then(
    (s) => ({
      type: 'summaryDone', id, aborted: controller.signal.aborted, spent: { usage: s.usage, costUsd: estimateCostUsd(brain.model, s.usage) },
      ...(s.text ? { summary: { text: s.text, uptoSeq } } : { error: new Error('the model returned an empty summary') }),
    }),
    (error: unknown) => ({ type: 'summaryDone', id, error, aborted: controller.signal.aborted }),
  );
  const ready = done.then((m) => (m.summary && !m.aborted ? m.summary : null));
  a.s.summarizing = { id, controller, ready, done };
  // Handled by the actor's own loop; once it is stopping, onStop handles it instead.
  void done.then((msg) => { if (a.status === 'running') { try { a.send(msg, { priority: 'urgent' }); } catch { /* onStop finishes it */ } } });
}

/** A takeover, the end or the actor stopping: the summary being made is dropped (the next reply falls back). */
export function stopSummary(a: ConversationActor, reason: string): void {
  a.s.summarizing?.controller.abort(new Error(reason));
}

/** Counts what the summary cost and stores it when it is still news: a failure is only logged. */
export async function finishSummary(a: ConversationActor, msg: SummaryDone): Promise<void> {
  if (a.s.summarizing?.id !== msg.id) return; // already handled (onStop and the mailbox both saw it)
  a.s.summarizing = null;
  const { conv } = a;
  if (msg.spent) {
    const prev = a.s.summarySpend;
    a.s.summarySpend = prev ? addSpend(prev, msg.spent) : msg.spent;
    if (conv.status !== 'open') await chargeSummarySpend(a);
  }
  if (msg.error && !msg.aborted) {
    a.app.log.warn({ err: msg.error, conversationId: conv._id }, 'background summary failed; the next reply that needs one makes it inline');
  }
  if (msg.aborted || !msg.summary || conv.status !== 'open' || conv.takenOverBy) return;
  await applySummary(a, msg.summary);
}

/** Stores a summary unless the conversation already has one covering as much: a summary covers every message up to its seq. */
export async function applySummary(a: ConversationActor, summary: Summary): Promise<void> {
  const { conv } = a;
  if (summary.uptoSeq <= (conv.summary?.uptoSeq ?? -1)) return;
  conv.summary = summary;
  a.dropMessagesUpTo(summary.uptoSeq);
  await a.db.conversations.updateOne({ workspaceId: conv.workspaceId, _id: conv._id }, { $set: { summary } });
}

/**
 * Background summaries ride on the next stored reply (its usage and cost, so analytics and caps count them as they
 * count an inline summary): this takes what they spent so far.
 */
export function takeSummarySpend(a: ConversationActor): SpendOf | null {
  const spent = a.s.summarySpend;
  a.s.summarySpend = null;
  return spent;
}

/** With no reply to ride on (the conversation ended, the actor stops): the spend goes to the conversation and the day's usage. */
export async function chargeSummarySpend(a: ConversationActor): Promise<void> {
  const spent = takeSummarySpend(a);
  if (!spent || spent.costUsd <= 0) return;
  const { conv } = a;
  conv.costUsd += spent.costUsd;
  await a.db.conversations.updateOne({ workspaceId: conv.workspaceId, _id: conv._id }, { $inc: { costUsd: spent.costUsd } });
  const day = utcDay(a.app.clock.now());
  await a.db.usage.updateOne(
    { workspaceId: conv.workspaceId, _id: usageDayId(conv.botId, day) },
    { $inc: { costUsd: spent.costUsd, replies: 0 }, $setOnInsert: { botId: conv.botId, day } satisfies Partial<UsageDayRecord> },
    { upsert: true },
  );
}

export function addSpend(x: SpendOf, y: SpendOf): SpendOf {
  return { usage: { inputTokens: x.usage.inputTokens + y.usage.inputTokens, outputTokens: x.usage.outputTokens + y.usage.outputTokens }, costUsd: x.costUsd + y.costUsd };
}
