/**
 * Tells holders of long-lived connections (the live socket) that a person's sessions ended or their rights
 * changed, so nothing keeps acting on a session the server no longer honours. Listeners register with
 * `AccessEndings.on`; `announce` runs them and never throws.
 */
import type { AppContext } from '../app/context.js';

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

/** This process's listeners (the composition root makes one; the live socket and the credential cache listen). */
export class AccessEndings {
  private readonly listeners: AccessEndedListener[] = [];

  constructor(private readonly app: AppContext) {}

  on(fn: AccessEndedListener): () => void {
    this.listeners.push(fn);
    return () => { const i = this.listeners.indexOf(fn); if (i >= 0) this.listeners.splice(i, 1); };
  }

  /** Runs the listeners here and (scale-out) on the group's other processes, whose sockets and caches hold it too. */
  announce(e: AccessEnded): void {
    this.app.scale?.broadcast('inv', { k: 'access', e });
    this.here(e);
  }

  /** The listeners of this process only (an announcement from another process of the group arrives here). */
  here(e: AccessEnded): void {
    for (const fn of this.listeners) {
      try { fn(e); } catch (err) { this.app.log.error({ err, workspaceId: e.workspaceId }, 'access-ended listener failed'); }
    }
  }
}
