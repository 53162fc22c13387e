/**
 * Deleting a workspace. Areas that keep data outside the document store (vector collections, actors in
 * memory) register a cleanup step with `onWorkspaceDelete`; the store's records and files go last.
 */
import type { AppContext } from '../app/context.js';
import { perApp } from '../app/context.js';
import { announceAccessEnded } from './access-ended.js';
import { forgetWorkspaceCredentials } from './credential-cache.js';

export type WorkspaceCleanup = (workspaceId: string) => Promise<void> | void;

const cleanups = perApp((): WorkspaceCleanup[] => []);

/** Registers a step to run when a workspace is deleted, e.g. `(ws) => app.vectors.deleteByFilter('knowledge', { workspaceId: ws })`. */
export function onWorkspaceDelete(app: AppContext, fn: WorkspaceCleanup): void {
  cleanups(app).push(fn);
}

/** Closes the workspace's live sockets, runs every registered cleanup (a failing one is logged, not fatal), then drops all records and files. */
export async function deleteWorkspace(app: AppContext, workspaceId: string): Promise<void> {
  announceAccessEnded(app, { workspaceId, sessionEnded: true, reason: 'workspace deleted' });
  for (const fn of cleanups(app)) {
    try { await fn(workspaceId); } catch (err) { app.log.error({ err, workspaceId }, 'workspace cleanup step failed'); }
  }
  // Sessions, tokens, members, invitations, settings and the setup lock all carry the workspaceId.
  await app.store.dropWorkspace(workspaceId);
  // A request during the cleanups may have read a session or token again before the drop.
  forgetWorkspaceCredentials(app, workspaceId);
}
