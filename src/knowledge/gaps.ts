import { createHash } from 'node:crypto';
import type { AppContext } from '../app.js';
import { COLLECTIONS } from './indexer.js';
import type { KnowledgeGap } from './types.js';

/**
 * Knowledge gaps: questions the knowledge base could not answer. The same question asked again (same
 * words, case, spacing and end punctuation aside) counts on one record, so the list reads as a to-do.
 */
export const normalizeQuestion = (q: string) => q.toLowerCase().replace(/\s+/g, ' ').trim().replace(/[\s?!.,;:]+$/, '');

const gaps = (app: AppContext) => app.store.collection<KnowledgeGap>(COLLECTIONS.gaps, { indexes: [{ fields: [['workspaceId', 1], ['lastAskedAt', -1]] }] });

export async function recordGap(app: AppContext, workspaceId: string, question: string, botId: string | null): Promise<void> {
  const normalized = normalizeQuestion(question).slice(0, 500);
  if (!normalized) return;
  const _id = `kgap_${createHash('sha256').update(`${workspaceId}\n${normalized}`).digest('hex').slice(0, 24)}`;
  const now = app.clock.now();
  const rec = await gaps(app).updateOne({ workspaceId, _id }, {
    $set: { question: question.trim().slice(0, 500), lastAskedAt: now },
    $inc: { count: 1 },
    $setOnInsert: { normalized, firstAskedAt: now, botIds: [] },
  }, { upsert: true });
  if (botId && rec && !rec.botIds.includes(botId)) await gaps(app).updateOne({ workspaceId, _id }, { $push: { botIds: { value: botId, slice: 50 } } });
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
