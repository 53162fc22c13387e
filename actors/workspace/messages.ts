import type { Presence } from '../../src/auth/presence.js';

/** Everything a workspace actor handles: team presence, live sockets, handoff wait timers. */
export type WorkspaceMsg =
  /** A live socket of this user opened or closed (the hub already counts it). */
  | { type: 'socketOpened'; userId: string }
  | { type: 'socketClosed'; userId: string }
  /** The live socket's presence message. */
  | { type: 'presence'; userId: string; presence: Exclude<Presence, 'offline'> }
  /** Who can take a handoff right now. */
  | { type: 'available' }
  | { type: 'armHandoff'; conversationId: string; handoffId: string; dueAt: number }
  | { type: 'cancelHandoff'; conversationId: string }
  | { type: 'handoffDue'; conversationId: string; handoffId: string };

export interface WorkspaceReplies {
  available: { userIds: string[] };
}
