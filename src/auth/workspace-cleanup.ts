/**
 * Deleting a workspace. Areas that keep data outside the document store (vector collections, actors in
 * memory) register a cleanup step with `WorkspaceDeletion.onDelete`; the store's records and files go last.
 */
import type { AppContext } from '../app/context.js';
import type { AccessEndings } from './access-ended.js';
import { forgetWorkspaceCredentials, type CredentialCache } from './credential-cache.js';

export type WorkspaceCleanup = (workspaceId: string) => Promise<void> | void;

/** Deletes workspaces, with the cleanup steps of the areas that keep data outside the store (the root makes one). */
export class WorkspaceDeletion {
  private readonly cleanups: WorkspaceCleanup[] = [];

  constructor(private readonly app: AppContext, private readonly endings: AccessEndings, private readonly credentials: CredentialCache) {}

  onDelete(fn: WorkspaceCleanup): void {
    this.cleanups.push(fn);
  }

  async delete(workspaceId: string): Promise<void> {
    this.endings.announce({ workspaceId, sessionEnded: true, reason: 'workspace deleted' });
    for (const fn of this.cleanups) {
      try { await fn(workspaceId); } catch (err) { this.app.log.error({ err, workspaceId }, 'workspace cleanup step failed'); }
    }
    // Sessions, tokens, members, invitations, settings and the setup lock all carry the workspaceId.
    await this.app.store.dropWorkspace(workspaceId);
    // A request during the cleanups may have read a session or token again before the drop.
    forgetWorkspaceCredentials(this.credentials, workspaceId);
  }
}
