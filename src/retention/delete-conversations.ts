/**
 * Deleting conversations with everything that belongs to them, through the store ports (so on both adapters):
 * their actors stop first, then messages, tool calls, attachments and their files (camera frames included, they
 * are attachments of the conversation), feedback, handoffs and offline notices, knowledge gap asks, and stored
 * events that carry their words. Leads, visitors and the analytics counters stay: counters are anonymous history,
 * and leads and visitors are records of their own (erased with DELETE /visitors/{id}).
 */
import type { ConversationService } from '../../actors/conversation/index.js';
import type { AppContext } from '../app/context.js';
import { forgetGapAsks } from '../knowledge/gaps.js';
import { deleteTeamRecordsOf } from '../team/records.js';

export interface DeletedCounts { conversations: number; messages: number; attachments: number }

/** `conversations` stops their actors (the root's conversation service). */
export async function deleteConversations(
  app: AppContext, conversations: Pick<ConversationService, 'forget'>, workspaceId: string, ids: string[],
): Promise<DeletedCounts> {
  if (!ids.length) return { conversations: 0, messages: 0, attachments: 0 };
  // An actor still in memory would write again after the records are gone.
  for (const id of ids) await conversations.forget(id);
  const db = app.records;
  const inIds = { $in: ids };
  const files = await db.attachments.find({ workspaceId, conversationId: inIds });
  for (const f of files) await app.store.files.delete(workspaceId, f._id);
  await db.attachments.deleteMany({ workspaceId, conversationId: inIds });
  const messages = await db.messages.deleteMany({ workspaceId, conversationId: inIds });
  await db.toolCalls.deleteMany({ workspaceId, conversationId: inIds });
  await db.feedback.deleteMany({ workspaceId, conversationId: inIds });
  await deleteTeamRecordsOf(app, workspaceId, ids);
  await forgetGapAsks(app, workspaceId, { conversationIds: ids });
  await app.events.collection.deleteMany({ workspaceId, 'data.conversationId': inIds });
  // Last, so a run cut short leaves the conversation to be found and finished by the next one.
  const deleted = await db.conversations.deleteMany({ workspaceId, _id: inIds });
  return { conversations: deleted, messages, attachments: files.length };
}

/** Images uploaded before `before` that no message ever claimed: they belong to no conversation, so go by age. */
export async function deleteUnclaimedAttachments(app: AppContext, workspaceId: string, before: number): Promise<number> {
  const db = app.records;
  const stale = await db.attachments.find({ workspaceId, conversationId: null, createdAt: { $lt: before } }, { limit: 1000 });
  for (const a of stale) await app.store.files.delete(workspaceId, a._id);
  if (stale.length) await db.attachments.deleteMany({ workspaceId, _id: { $in: stale.map((a) => a._id) } });
  return stale.length;
}
