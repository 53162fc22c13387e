import type { AppContext } from '../../src/app/context.js';
import { roleRank } from '../../src/auth/roles.js';
import { getPresence, setPresence } from '../../src/auth/presence.js';
import { openUsersEverywhere, type OpenSockets } from '../../src/scale/presence.js';
import { Actor, assertNever, type ActorFactoryContext } from '../runtime/index.js';
import type { WorkspaceMsg, WorkspaceReplies } from './messages.js';

/** What to do when a handoff's wait for acceptance ends (src/team/handoff.ts). */
export type HandoffDueHandler = (app: AppContext, workspaceId: string, conversationId: string, handoffId: string) => Promise<void>;

/**
 * One workspace: presence of its team (an open live socket means online; the last one closing means offline),
 * who is available for a handoff, and the handoff wait timers. Open sockets are counted by the live hub (the
 * transport's truth), so a passivated and rebuilt actor loses nothing; pending handoff timers are re-armed
 * from the store on start. Presence changes run one at a time here, so an open racing a close cannot leave
 * a user marked wrongly.
 */
export class WorkspaceActor extends Actor<WorkspaceMsg, null, WorkspaceReplies> {
  constructor(id: string, ctx: ActorFactoryContext, private app: AppContext, private hub: OpenSockets, private onDue: HandoffDueHandler) {
    super({ id, clock: ctx.clock, log: ctx.log, initialState: null, mailbox: { capacity: 2000 } });
  }

  protected override async onStart(): Promise<void> {
    const pending = await this.app.records.handoffs.find({ workspaceId: this.id, state: 'requested' });
    for (const h of pending) this.arm(h.conversationId, h._id, h.deadlineAt);
  }

  protected override async handle(msg: WorkspaceMsg): Promise<unknown> {
    switch (msg.type) {
      case 'socketOpened':
      {
        // An open socket marks its user online; a second tab keeps what they chose (away stays away).
        const user = await this.app.records.users.findById(this.id, msg.userId);
        if (user && user.presence === 'offline' && (await openUsersEverywhere(this.app, this.hub, this.id)).has(msg.userId)) await setPresence(this.app, this.id, msg.userId, 'online');
        return undefined;
      }
      case 'socketClosed':
        if (((await openUsersEverywhere(this.app, this.hub, this.id)).get(msg.userId) ?? 0) === 0) await setPresence(this.app, this.id, msg.userId, 'offline');
        return undefined;
      case 'presence':
        await setPresence(this.app, this.id, msg.userId, msg.presence);
        return undefined;
      case 'available': return { userIds: await this.available() };
      case 'armHandoff': this.arm(msg.conversationId, msg.handoffId, msg.dueAt); return undefined;
      case 'cancelHandoff': this.timers.cancel(timerName(msg.conversationId)); return undefined;
      case 'handoffDue': return this.onDue(this.app, this.id, msg.conversationId, msg.handoffId);
      default: return assertNever(msg);
    }
  }

  /** Agents (or higher) with an open live socket whose presence is online. */
  private async available(): Promise<string[]> {
    const open = await openUsersEverywhere(this.app, this.hub, this.id);
    if (open.size === 0) return [];
    const team = await getPresence(this.app, this.id);
    return team.filter((m) => open.has(m.userId) && m.presence === 'online' && roleRank(m.role) >= roleRank('agent')).map((m) => m.userId);
  }

  private arm(conversationId: string, handoffId: string, dueAt: number): void {
    this.timers.set(timerName(conversationId), Math.max(0, dueAt - this.clock.now()), { type: 'handoffDue', conversationId, handoffId });
  }
}

const timerName = (conversationId: string) => `handoff:${conversationId}`;
