/**
 * Visitor data requests (service-api.md, Visitors): find a visitor by e-mail or by the customer's own user id,
 * export everything stored about them, erase them and everything of theirs.
 */
import type { ConversationService } from '../../actors/conversation/index.js';
import type { AppContext } from '../app/context.js';
import { publicMessage, type VisitorRecord } from '../records/conversations.js';
import { notFound } from '../kernel/errors.js';
import { forgetGapAsks, gapAsksOf } from '../knowledge/gaps.js';
import { leadView, type LeadRecord } from '../leads/service.js';
import { deleteTeamRecordsOf } from '../team/records.js';
import { rememberErased } from './erased.js';

const visitorView = (v: VisitorRecord) => ({
  id: v._id, userId: v.userId ?? null, name: v.name, email: v.email, createdAt: v.createdAt, lastSeenAt: v.lastSeenAt,
});

/**
 * Everyone a data request names: visitors whose verified identity carries this e-mail (or user id), visitors who
 * left this e-mail in a lead, and leads holding the e-mail that belong to no visitor (added by hand or by API):
 * those are answered with `leads` beside `items` (export them as they are, erase them with DELETE /leads/{id}).
 * E-mails match whatever their case (a lead keeps the address as it was typed).
 */
export async function findVisitors(app: AppContext, workspaceId: string, q: { email?: string; userId?: string }) {
  const db = app.records;
  const found = new Map<string, VisitorRecord>();
  const loose: LeadRecord[] = [];
  if (q.userId) for (const v of await db.visitors.find({ workspaceId, userId: q.userId }, { limit: 100 })) found.set(v._id, v);
  if (q.email) {
    const email = q.email.trim().toLowerCase();
    const variants = [...new Set([email, q.email.trim()])];
    for (const v of await db.visitors.find({ workspaceId, email: { $in: variants } }, { limit: 100 })) found.set(v._id, v);
    const withEmail = await app.records.leads.find({ workspaceId, 'fields.email': { $exists: true } });
    for (const lead of withEmail.filter((l) => l.fields.email?.trim().toLowerCase() === email)) {
      const v = lead.visitorId ? found.get(lead.visitorId) ?? await db.visitors.findById(workspaceId, lead.visitorId) : null;
      if (v) found.set(v._id, v);
      else loose.push(lead);
    }
  }
  return { items: [...found.values()].map(visitorView), leads: loose.map(leadView) };
}

/** Everything stored about a visitor, as one JSON document; images are included as base64. */
export async function exportVisitor(app: AppContext, workspaceId: string, visitorId: string) {
  const db = app.records;
  const visitor = await db.visitors.findById(workspaceId, visitorId);
  if (!visitor) throw notFound('visitor');
  const convs = await db.conversations.find({ workspaceId, visitorId }, { sort: [['createdAt', 1]] });
  const conversations = [];
  for (const c of convs) {
    const messages = await db.messages.find({ workspaceId, conversationId: c._id }, { sort: [['seq', 1]] });
    const toolCalls = await db.toolCalls.find({ workspaceId, conversationId: c._id }, { sort: [['createdAt', 1]] });
    conversations.push({
      id: c._id, botId: c.botId, status: c.status, endReason: c.endReason, tags: c.tags, page: c.page, createdAt: c.createdAt,
      endedAt: c.endedAt, csat: c.csat, messages: messages.map(publicMessage),
      toolCalls: toolCalls.map((t) => ({ name: t.name, arguments: t.arguments, result: t.result, isError: t.isError, createdAt: t.createdAt })),
      handoffs: (await app.records.handoffs.find({ workspaceId, conversationId: c._id })).map((h) => ({
        id: h._id, state: h.state, reason: h.reason, summary: h.summary, requestedAt: h.requestedAt, acceptedBy: h.acceptedBy,
      })),
    });
  }
  const attachments = [];
  for (const a of await db.attachments.find({ workspaceId, visitorId }, { sort: [['createdAt', 1]] })) {
    const file = await app.store.files.get(workspaceId, a._id);
    attachments.push({
      id: a._id, conversationId: a.conversationId, mimeType: a.mimeType, width: a.width, height: a.height, size: a.size,
      createdAt: a.createdAt, dataBase64: file ? file.data.toString('base64') : null,
    });
  }
  const convIds = convs.map((c) => c._id);
  const feedback = convIds.length ? await db.feedback.find({ workspaceId, conversationId: { $in: convIds } }) : [];
  const leads = await app.records.leads.find({ workspaceId, $or: [{ visitorId }, ...(convIds.length ? [{ conversationId: { $in: convIds } }] : [])] });
  return {
    exportedAt: new Date(app.clock.now()).toISOString(),
    visitor: visitorView(visitor),
    conversations,
    attachments,
    leads: leads.map(leadView),
    knowledgeGapQuestions: await gapAsksOf(app, workspaceId, visitorId),
    feedback: feedback.map((f) => ({ conversationId: f.conversationId, messageId: f.messageId, kind: f.kind, value: f.value, comment: f.comment ?? null, createdAt: f.createdAt })),
  };
}

/**
 * Erases the visitor and everything of theirs: conversations (open ones are closed first, so their actor stops
 * writing), messages, tool calls, attachments and their files, feedback, leads, handoffs, their questions in
 * the knowledge gaps, and stored events that carry their words. Anonymous analytics counters stay. The erasure
 * is physical (the store scrubs what was deleted from its files), and the erased id is remembered by its hash so
 * the visitor's old token cannot bring it back.
 */
export async function eraseVisitor(
  app: AppContext, service: Pick<ConversationService, 'close'>, workspaceId: string, visitorId: string,
): Promise<{ conversations: number; messages: number; leads: number; attachments: number }> {
  const db = app.records;
  const visitor = await db.visitors.findById(workspaceId, visitorId);
  if (!visitor) throw notFound('visitor');
  // First, so a reconnect while the records go cannot re-create this id.
  await rememberErased(app, workspaceId, visitorId);
  const convs = await db.conversations.find({ workspaceId, visitorId });
  for (const c of convs) if (c.status === 'open') await service.close(c._id, 'closed_by_team').catch(() => undefined);
  const convIds = convs.map((c) => c._id);
  const inConvs = { $in: convIds };
  let messages = 0, attachments = 0;
  if (convIds.length) {
    messages = await db.messages.deleteMany({ workspaceId, conversationId: inConvs });
    await db.toolCalls.deleteMany({ workspaceId, conversationId: inConvs });
    await db.feedback.deleteMany({ workspaceId, conversationId: inConvs });
    await deleteTeamRecordsOf(app, workspaceId, convIds);
    await app.events.collection.deleteMany({ workspaceId, 'data.conversationId': inConvs });
  }
  for (const a of await db.attachments.find({ workspaceId, visitorId })) {
    await app.store.files.delete(workspaceId, a._id);
    attachments++;
  }
  await db.attachments.deleteMany({ workspaceId, visitorId });
  const leads = await app.records.leads.deleteMany({ workspaceId, $or: [{ visitorId }, ...(convIds.length ? [{ conversationId: inConvs }] : [])] });
  await app.events.collection.deleteMany({ workspaceId, 'data.visitorId': visitorId });
  await forgetGapAsks(app, workspaceId, { visitorId, conversationIds: convIds });
  const conversations = convIds.length ? await db.conversations.deleteMany({ workspaceId, _id: inConvs }) : 0;
  await db.visitors.deleteOne({ workspaceId, _id: visitorId });
  await app.store.scrub();
  return { conversations, messages, leads, attachments };
}
