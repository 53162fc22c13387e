/** Team presence (online, away, offline), stored on the member so every process and the handoff logic see it. */
import type { AppContext } from '../app/context.js';
import type { Role } from './roles.js';
import { type Presence } from './records.js';

export type { Presence } from './records.js';

export interface MemberPresence {
  userId: string;
  name: string;
  email: string;
  role: Role;
  presence: Presence;
  /** When the presence last changed (ms). */
  presenceAt: number;
}

/** Every member of the workspace with their presence (for handoff availability and the team list). */
export async function getPresence(app: AppContext, workspaceId: string): Promise<MemberPresence[]> {
  const list = await app.records.users.find({ workspaceId }, { sort: [['createdAt', 1]] });
  return list.map((u) => ({ userId: u._id, name: u.name, email: u.email, role: u.role, presence: u.presence, presenceAt: u.presenceAt }));
}

/**
 * Sets a member's presence (PUT /me/presence; the live socket calls it on open, close and its presence
 * message). Tells live sockets with a volatile `presence.changed` event. False when there is no such member.
 */
export async function setPresence(app: AppContext, workspaceId: string, userId: string, presence: Presence): Promise<boolean> {
  const now = app.clock.now();
  const u = await app.records.users.updateOne({ workspaceId, _id: userId }, { $set: { presence, presenceAt: now } });
  if (!u) return false;
  app.events.publishVolatile(workspaceId, 'presence.changed', { userId, presence });
  return true;
}
