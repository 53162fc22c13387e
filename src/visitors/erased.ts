import { createHash } from 'node:crypto';
import type { AppContext } from '../app/context.js';
import { perApp } from '../app/context.js';
import type { Doc } from '../store/types.js';

/**
 * Erased visitors, remembered by a hash of their id only: an erased visitor's widget still holds a signed
 * visitor token, and that token must not bring a record with the erased id back (it starts a new visitor).
 */
interface ErasedVisitor extends Doc {
  erasedAt: number;
}

const erasedVisitors = perApp((app: AppContext) => app.store.collection<ErasedVisitor>('erased_visitors'));

const key = (visitorId: string) => `erv_${createHash('sha256').update(visitorId).digest('base64url')}`;

export async function rememberErased(app: AppContext, workspaceId: string, visitorId: string): Promise<void> {
  await erasedVisitors(app).updateOne({ workspaceId, _id: key(visitorId) }, { $set: { erasedAt: app.clock.now() } }, { upsert: true });
}

export async function wasErased(app: AppContext, workspaceId: string, visitorId: string): Promise<boolean> {
  return (await erasedVisitors(app).findById(workspaceId, key(visitorId))) !== null;
}
