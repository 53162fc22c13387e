/**
 * Tells holders of long-lived connections (the live socket) that a person's sessions ended or their rights
 * changed, so nothing keeps acting on a session the server no longer honours. Listeners register with
 * `onAccessEnded`; `announceAccessEnded` runs them and never throws.
 */
import type { AppContext } from '../app/context.js';
import { perApp } from '../app/context.js';

/**
 * Which sessions are affected: every session of the workspace, narrowed to one user and/or one session;
 * `keepSessionId` spares the session that made the change (a password change). `sessionEnded` false means
 * the sessions still work but their rights changed (a role change): connections should be re-opened.
 */
export interface AccessEnded {
  workspaceId: string;
  userId?: string;
  sessionId?: string;
  keepSessionId?: string;
  sessionEnded: boolean;
  reason: string;
}

export type AccessEndedListener = (e: AccessEnded) => void;

const listeners = perApp((): AccessEndedListener[] => []);

export function onAccessEnded(app: AppContext, fn: AccessEndedListener): () => void {
  const list = listeners(app);
  list.push(fn);
  return () => { const i = list.indexOf(fn); if (i >= 0) list.splice(i, 1); };
}

/** Runs the listeners here and (scale-out) on the group's other processes, whose sockets and caches hold it too. */
export function announceAccessEnded(app: AppContext, e: AccessEnded): void {
  app.scale?.broadcast('inv', { k: 'access', e });
  accessEndedHere(app, e);
}

/** The listeners of this process only (an announcement from another process of the group arrives here). */
export function accessEndedHere(app: AppContext, e: AccessEnded): void {
  for (const fn of listeners(app)) {
    try { fn(e); } catch (err) { app.log.error({ err, workspaceId: e.workspaceId }, 'access-ended listener failed'); }
  }
}
