import type { AppContext } from '../app/context.js';
import type { RecordSpecs } from '../app/records.js';
import { newId } from '../store/ids.js';
import type { Collection, Doc } from '../store/types.js';
import { actorOf, type Principal } from './principal.js';

export interface AuditEntry extends Doc {
  at: number;
  actor: { kind: 'user' | 'token' | 'system'; id: string; name: string };
  action: string;
  target: { type: string; id: string } | null;
  detail?: Record<string, unknown>;
}

declare module '../app/records.js' {
  interface Records {
    audit: Collection<AuditEntry>;
  }
}
export const auditRecords = { audit: { name: 'audit', indexes: [{ fields: [['workspaceId', 1], ['at', -1]] }] } } satisfies RecordSpecs<'audit'>;

/** Appends one audit entry. Never holds secrets: callers pass names and ids, not values. */
export async function recordAudit(
  app: AppContext, workspaceId: string, principal: Principal | null,
  action: string, target: AuditEntry['target'], detail?: Record<string, unknown>,
): Promise<void> {
  const at = app.clock.now();
  await app.records.audit.insertOne({
    _id: newId('aud', at), workspaceId, at,
    actor: principal ? actorOf(principal) : { kind: 'system', id: 'system', name: 'system' },
    action, target, ...(detail ? { detail } : {}),
  });
}
