/** Team records of conversations: their handoffs (src/records/handoffs.ts) and offline notices (src/records/offline-notices.ts). */
import type { AppContext } from '../app/context.js';
import { handoffs } from '../records/handoffs.js';
import { offlineNotices } from '../records/offline-notices.js';

/** Deletes the team records of these conversations (they hold the visitor's words in handoff summaries). */
export async function deleteTeamRecordsOf(app: AppContext, workspaceId: string, conversationIds: string[]): Promise<void> {
  if (!conversationIds.length) return;
  await handoffs(app).deleteMany({ workspaceId, conversationId: { $in: conversationIds } });
  await offlineNotices(app).deleteMany({ workspaceId, conversationId: { $in: conversationIds } });
}
