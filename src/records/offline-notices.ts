import { perApp, type AppContext } from '../app/context.js';
import type { Doc } from '../store/types.js';

/** One per conversation: the offline text goes out at most once an hour (behavior.hours.scope bot; actors/conversation/offline.ts). */
export interface OfflineNoticeRecord extends Doc {
  conversationId: string;
  sentAt: number;
}
export const offlineNotices = perApp((app: AppContext) => app.store.collection<OfflineNoticeRecord>('offline_notices'));
