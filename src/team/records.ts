/** Team records of conversations: their handoffs (src/records/handoffs.ts) and offline notices (src/records/offline-notices.ts). */
import type { AppContext } from '../app/context.js';

/** Deletes the team records of these conversations (they hold the visitor's words in handoff summaries). */
export async function deleteTeamRecordsOf(app: AppContext, workspaceId: string, conversationIds: string[]): Promise<void> {
  if (!conversationIds.length) return;
  await app.records.handoffs.deleteMany({ workspaceId, conversationId: { $in: conversationIds } });
  await app.records.offlineNotices.deleteMany({ workspaceId, conversationId: { $in: conversationIds } });
}
