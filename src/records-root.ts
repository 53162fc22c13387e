/**
 * The record collections of the server, opened once at start-up into `app.records` (src/server.ts; the command
 * line's context too). Each area keeps its collections' store names and indexes beside its records and declares
 * them in `Records` (src/app/records.ts); this lists them all, and the type checker fails when a declared one is
 * missing here. docs/development.md ("Composition") says how to add one.
 */
import { openCollections, type RecordSpecs, type Records } from './app/records.js';
import { analyticsRecords } from './analytics/rollup.js';
import { auditRecords } from './auth/audit.js';
import { authRecords } from './auth/records.js';
import { signInLinkRecords } from './auth/signin-links.js';
import { botHealthRecords } from './bots/health.js';
import { reportingWrites } from './bots/list-cache.js';
import { botRecords } from './bots/records.js';
import { leadRecords } from './leads/service.js';
import { conversationRecords } from './records/conversations.js';
import { handoffRecords } from './records/handoffs.js';
import { offlineNoticeRecords } from './records/offline-notices.js';
import type { DocumentStore } from './store/types.js';
import { erasedVisitorRecords } from './visitors/erased.js';

const specs: RecordSpecs = {
  ...authRecords, ...auditRecords, ...signInLinkRecords,
  ...botRecords, ...botHealthRecords,
  ...conversationRecords, ...handoffRecords, ...offlineNoticeRecords,
  ...leadRecords, ...analyticsRecords, ...erasedVisitorRecords,
};

export interface RecordHooks {
  /** A write to the bots collection finished (null: bots of several workspaces): the bot lists forget the workspace's. */
  botsChanged(workspaceId: string | null): Promise<void>;
}

/** Opens every record collection of the server (each creates its table and indexes if missing). */
export function openRecords(store: DocumentStore, hooks: RecordHooks): Records {
  const records = openCollections(store, specs);
  return { ...records, bots: reportingWrites(records.bots, hooks.botsChanged) };
}
