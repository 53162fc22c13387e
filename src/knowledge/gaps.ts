import { createHash } from 'node:crypto';
import type { AppContext } from '../app/context.js';
import { newId } from '../store/ids.js';
import type { Doc } from '../store/types.js';
import { COLLECTIONS } from './collections.js';
import type { KnowledgeGap } from './types.js';

/**
 * Knowledge gaps: questions the knowledge base could not answer. The same question asked again (same
 * words, case, spacing and end punctuation aside) counts on one record, so the list reads as a to-do.
 * Each ask is also kept with the visitor and conversation it came from, so erasing a visitor (or deleting a
 * conversation) takes their asks, and their wording, out of the list.
 */
export const normalizeQuestion = (q: string) => q.toLowerCase().replace(/\s+/g, ' ').trim().replace(/[\s?!.,;:]+$/, '');

const gaps = (app: AppContext) => app.store.collection<KnowledgeGap>(COLLECTIONS.gaps, { indexes: [{ fields: [['workspaceId', 1], ['lastAskedAt', -1]] }] });

/** One ask of a gap: the visitor's own wording and where it came from. */
export interface GapAsk extends Doc {
  gapId: string;
  question: string;
  botId: string | null;
  conversationId: string | null;
  visitorId: string | null;
  askedAt: number;
}

export const gapAsks = (app: AppContext) => app.store.collection<GapAsk>('knowledge_gap_asks', {
  indexes: [
    { fields: [['workspaceId', 1], ['visitorId', 1]] },
    { fields: [['workspaceId', 1], ['conversationId', 1]] },
    { fields: [['workspaceId', 1], ['gapId', 1], ['askedAt', -1]] },
  ],
});

/** Where an unanswered question came from (a tool or context call carries all three). */
export interface GapOrigin {
  botId: string | null;
  conversationId?: string | null;
  visitorId?: string | null;
}

export async function recordGap(app: AppContext, workspaceId: string, question: string, origin: GapOrigin): Promise<void> {
  const normalized = normalizeQuestion(question).slice(0, 500);
  if (!normalized) return;
  const _id = `kgap_${createHash('sha256').update(`${workspaceId}\n${normalized}`).digest('hex').slice(0, 24)}`;
  const now = app.clock.now();
  const wording = question.trim().slice(0, 500);
  const rec = await gaps(app).updateOne({ workspaceId, _id }, {
    $set: { question: wording, lastAskedAt: now },
    $inc: { count: 1 },
    $setOnInsert: { normalized, firstAskedAt: now, botIds: [] },
  }, { upsert: true });
  const { botId } = origin;
  if (botId && rec && !rec.botIds.includes(botId)) await gaps(app).updateOne({ workspaceId, _id }, { $push: { botIds: { value: botId, slice: 50 } } });
  await gapAsks(app).insertOne({
    _id: newId('kgask', now), workspaceId, gapId: _id, question: wording, botId,
    conversationId: origin.conversationId ?? null, visitorId: origin.visitorId ?? null, askedAt: now,
  });
}

/**
 * Takes out the asks of a visitor or of these conversations. A gap nobody else asked is deleted; one others
 * asked too keeps their count and shows the newest remaining wording.
 */
export async function forgetGapAsks(app: AppContext, workspaceId: string, of: { visitorId?: string; conversationIds?: string[] }): Promise<number> {
  const alternatives = [
    ...(of.visitorId ? [{ visitorId: of.visitorId }] : []),
    ...(of.conversationIds?.length ? [{ conversationId: { $in: of.conversationIds } }] : []),
  ];
  if (!alternatives.length) return 0;
  const asks = await gapAsks(app).find({ workspaceId, $or: alternatives });
  if (!asks.length) return 0;
  await gapAsks(app).deleteMany({ workspaceId, _id: { $in: asks.map((a) => a._id) } });
  const removedByGap = new Map<string, number>();
  for (const a of asks) removedByGap.set(a.gapId, (removedByGap.get(a.gapId) ?? 0) + 1);
  for (const [gapId, removed] of removedByGap) {
    const left = await gapAsks(app).find({ workspaceId, gapId }, { sort: [['askedAt', -1]] });
    if (!left.length) { await gaps(app).deleteOne({ workspaceId, _id: gapId }); continue; }
    await gaps(app).updateOne({ workspaceId, _id: gapId }, {
      $set: { question: left[0].question, lastAskedAt: left[0].askedAt, firstAskedAt: left[left.length - 1].askedAt },
      $inc: { count: -removed },
    });
  }
  return asks.length;
}

/** A visitor's asks, for their data export. */
export async function gapAsksOf(app: AppContext, workspaceId: string, visitorId: string): Promise<Array<{ question: string; conversationId: string | null; askedAt: number }>> {
  const asks = await gapAsks(app).find({ workspaceId, visitorId }, { sort: [['askedAt', 1]] });
  return asks.map((a) => ({ question: a.question, conversationId: a.conversationId, askedAt: a.askedAt }));
}

export interface GapView { question: string; count: number; firstAskedAt: number; lastAskedAt: number; botIds: string[] }

/**
 * Newest first (by the last time asked); `before` is a lastAskedAt value from nextBefore, which is a string
 * like every list's nextBefore (the API's one paging envelope).
 */
export async function listGaps(app: AppContext, workspaceId: string, opts: { limit: number; before?: number }): Promise<{ items: GapView[]; nextBefore: string | null }> {
  const filter = { workspaceId, ...(opts.before !== undefined ? { lastAskedAt: { $lt: opts.before } } : {}) };
  const rows = await gaps(app).find(filter, { sort: [['lastAskedAt', -1]], limit: opts.limit + 1 });
  const items = rows.slice(0, opts.limit).map((g) => ({ question: g.question, count: g.count, firstAskedAt: g.firstAskedAt, lastAskedAt: g.lastAskedAt, botIds: g.botIds }));
  return { items, nextBefore: rows.length > opts.limit ? String(items[items.length - 1].lastAskedAt) : null };
}
