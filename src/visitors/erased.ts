import { createHash } from 'node:crypto';
import type { AppContext } from '../app/context.js';
import type { RecordSpecs } from '../app/records.js';
import type { Collection, Doc } from '../store/types.js';

/**
 * Erased visitors, remembered by a hash of their id only: an erased visitor's widget still holds a signed
 * visitor token, and that token must not bring a record with the erased id back (it starts a new visitor).
 */
interface ErasedVisitor extends Doc {
  erasedAt: number;
}

declare module '../app/records.js' {
  interface Records {
    erasedVisitors: Collection<ErasedVisitor>;
  }
}
export const erasedVisitorRecords = { erasedVisitors: { name: 'erased_visitors' } } satisfies RecordSpecs<'erasedVisitors'>;

const key = (visitorId: string) => `erv_${createHash('sha256').update(visitorId).digest('base64url')}`;

export async function rememberErased(app: AppContext, workspaceId: string, visitorId: string): Promise<void> {
  await app.records.erasedVisitors.updateOne({ workspaceId, _id: key(visitorId) }, { $set: { erasedAt: app.clock.now() } }, { upsert: true });
}

export async function wasErased(app: AppContext, workspaceId: string, visitorId: string): Promise<boolean> {
  return (await app.records.erasedVisitors.findById(workspaceId, key(visitorId))) !== null;
}
