import type { RecordSpecs } from '../app/records.js';
import type { Collection, Doc } from '../store/types.js';

/** One per conversation: the offline text goes out at most once an hour (behavior.hours.scope bot; actors/conversation/offline.ts). */
export interface OfflineNoticeRecord extends Doc {
  conversationId: string;
  sentAt: number;
}
declare module '../app/records.js' {
  interface Records {
    offlineNotices: Collection<OfflineNoticeRecord>;
  }
}
export const offlineNoticeRecords = { offlineNotices: { name: 'offline_notices' } } satisfies RecordSpecs<'offlineNotices'>;
