/** The workspace actors of this process, one per workspace (made by the composition root, handed as `WorkspaceActors`). */
import { WorkspaceActor, type HandoffDueHandler } from '../../actors/workspace/actor.js';
import { ActorRegistry } from '../../actors/runtime/index.js';
import type { AppContext } from '../app/context.js';
import type { LiveHub } from './live-hub.js';
import type { HandoffRecord } from '../records/handoffs.js';

/**
 * Longer than the longest handoff wait (acceptTimeoutSec up to 3600 s), so a pending timer is normally kept;
 * a passivated actor re-arms pending handoffs from the store anyway.
 */
const WORKSPACE_IDLE_MS = 2 * 3600_000;

/** The registry of this process's workspace actors. */
export type WorkspaceActors = ActorRegistry<WorkspaceActor>;

/**
 * The registry of workspace actors (the composition root makes it and stops it at shutdown). `onHandoffDue` runs
 * when a handoff's wait ends (the root hands src/team/handoff.ts's handoffTimedOut with the team's services).
 */
export function createWorkspaceActors(app: AppContext, hub: LiveHub, onHandoffDue: HandoffDueHandler): WorkspaceActors {
  return new ActorRegistry<WorkspaceActor>({
    factory: (id, ctx) => new WorkspaceActor(id, ctx, app, hub, onHandoffDue),
    clock: app.clock, log: app.log, idleMs: WORKSPACE_IDLE_MS, kind: 'workspace',
  });
}

/** Requested handoffs read per page. */
const WAITING_PAGE = 1000;

/** Every handoff of the server still waiting for acceptance, read page by page (every workspace). */
export async function* waitingHandoffs(app: AppContext): AsyncGenerator<HandoffRecord> {
  let after = '';
  for (;;) {
    const page = await app.records.handoffs.find({ state: 'requested', _id: { $gt: after } }, { crossWorkspace: true, sort: [['_id', 1]], limit: WAITING_PAGE });
    yield* page;
    if (page.length < WAITING_PAGE) return;
    after = page[page.length - 1]._id;
  }
}

/**
 * At start-up: handoffs still waiting for acceptance were armed in a process that is gone. Starting each such
 * workspace's actor re-arms their timers from the store (an overdue one fires at once), so the visitor is told.
 */
export async function wakeWaitingHandoffs(app: AppContext, actors: WorkspaceActors): Promise<number> {
  const woken = new Set<string>();
  for await (const h of waitingHandoffs(app)) {
    if (woken.has(h.workspaceId)) continue;
    woken.add(h.workspaceId);
    actors.get(h.workspaceId);
  }
  return woken.size;
}

/** Team members who can take a handoff now: agents or higher, online, with the admin panel (live socket) open. */
export async function availableAgents(actors: WorkspaceActors, workspaceId: string): Promise<string[]> {
  return (await actors.get(workspaceId).ask({ type: 'available' })).userIds;
}
