/**
 * Open live sockets (/api/v1/live) per workspace, and the fan-out of bus events to them. Each event is encoded
 * once; a slow socket only fills its own buffer (the transport closes it past maxBackpressureBytes), so it never
 * slows the others or the publisher.
 */
import type { EventRecord } from '../app/event-bus.js';
import type { SocketConn } from '../http/types.js';
import type { Role } from '../auth/roles.js';
import type { AccessEnded } from '../auth/access-ended.js';
import type { LiveEventData, LiveEventType } from '../../protocol/live.js';

/** Close code when the socket's session ended (signed out, password changed, removed, workspace deleted): sign in again. */
export const LIVE_CLOSE_SESSION_ENDED = 4401;
/** Close code when the person's role changed: reconnect, the new socket carries the new rights. */
export const LIVE_CLOSE_ROLE_CHANGED = 4403;

export interface LiveConnData {
  workspaceId: string;
  userId: string;
  /** The session the socket was opened with: it closes when that session ends. */
  sessionId: string;
  userName: string;
  role: Role;
}
export type LiveConn = Pick<SocketConn<LiveConnData>, 'id' | 'data' | 'send' | 'close' | 'closed'>;

/**
 * Events of the live socket table (service-api.md, Live socket) and the data fields each carries, optional ones
 * included when present. Publishers may add fields for their own use; the socket sends exactly these plus
 * workspaceId. presence.changed (userId, presence) is the one addition: the team list needs it. The compiler checks
 * each list against the frame types the admin panel reads (protocol/live.ts): no field missing, none unknown.
 */
export const LIVE_EVENT_FIELDS = {
  'conversation.started': ['botId', 'conversationId', 'visitorId'],
  'conversation.updated': ['conversationId', 'patch'],
  'conversation.ended': ['botId', 'conversationId', 'reason'],
  'message.created': ['botId', 'conversationId', 'message'],
  'message.delta': ['conversationId', 'messageId', 'responseId', 'delta'],
  'agent.status': ['conversationId', 'state', 'tool', 'error'],
  'visitor.typing': ['conversationId', 'active'],
  'lead.captured': ['botId', 'conversationId', 'leadId', 'fields'],
  'handoff.requested': ['botId', 'conversationId', 'handoffId', 'reason', 'summary'],
  'handoff.accepted': ['botId', 'conversationId', 'handoffId', 'userId', 'userName'],
  'handoff.resolved': ['botId', 'conversationId', 'handoffId', 'by'],
  'feedback.received': ['botId', 'conversationId', 'messageId', 'kind', 'value', 'comment'],
  'bot.published': ['botId', 'version'],
  'tool.called': ['conversationId', 'name', 'isError', 'durationMs'],
  'presence.changed': ['userId', 'presence'],
} as const satisfies { readonly [K in LiveEventType]: readonly (keyof LiveEventData[K])[] };
type Unlisted = { [K in LiveEventType]: Exclude<keyof LiveEventData[K], (typeof LIVE_EVENT_FIELDS)[K][number]> }[LiveEventType];
const everyFieldListed: [Unlisted] extends [never] ? true : false = true;
void everyFieldListed;

/** The frame a live socket receives for a bus event, or null for events it does not carry. */
export function liveFrame(event: Pick<EventRecord, 'type' | 'data' | 'workspaceId'>): string | null {
  const fields = (LIVE_EVENT_FIELDS as Readonly<Record<string, readonly string[]>>)[event.type];
  if (!fields) return null;
  const data: Record<string, unknown> = {};
  for (const f of fields) if (event.data[f] !== undefined) data[f] = event.data[f];
  data.workspaceId = event.workspaceId;
  return JSON.stringify({ type: event.type, data });
}

export class LiveHub {
  private byWorkspace = new Map<string, Set<LiveConn>>();
  /** Frames not sent because a socket was over its buffer limit (or closing). */
  dropped = 0;
  /**
   * Scale-out: told when a workspace's open sockets change, to share who is online with the group
   * (src/scale/presence.ts) and to stop receiving its events once none is left (src/scale/interest.ts).
   */
  readonly onChange = new Set<(workspaceId: string) => void>();
  /**
   * Scale-out: awaited before a socket of the workspace is greeted, so the group sends this process that
   * workspace's events from then on (src/scale/interest.ts).
   */
  beforeOpen: ((workspaceId: string) => Promise<void>) | null = null;

  /** Resolves when the socket of this workspace about to open will receive every event from then on. */
  async prepare(workspaceId: string): Promise<void> {
    await this.beforeOpen?.(workspaceId);
  }

  add(conn: LiveConn): void {
    let set = this.byWorkspace.get(conn.data.workspaceId);
    if (!set) { set = new Set(); this.byWorkspace.set(conn.data.workspaceId, set); }
    set.add(conn);
    for (const fn of this.onChange) fn(conn.data.workspaceId);
  }

  remove(conn: LiveConn): void {
    const set = this.byWorkspace.get(conn.data.workspaceId);
    if (!set?.delete(conn)) return;
    if (set.size === 0) this.byWorkspace.delete(conn.data.workspaceId);
    for (const fn of this.onChange) fn(conn.data.workspaceId);
  }

  /** Workspaces with an open socket here. */
  workspaces(): Iterable<string> {
    return this.byWorkspace.keys();
  }

  /** Open sockets per user of a workspace. */
  openUsers(workspaceId: string): Map<string, number> {
    const counts = new Map<string, number>();
    for (const c of this.byWorkspace.get(workspaceId) ?? []) counts.set(c.data.userId, (counts.get(c.data.userId) ?? 0) + 1);
    return counts;
  }

  count(workspaceId?: string): number {
    if (workspaceId) return this.byWorkspace.get(workspaceId)?.size ?? 0;
    let n = 0;
    for (const s of this.byWorkspace.values()) n += s.size;
    return n;
  }

  /** Sends a bus event to every open socket of its workspace; returns how many took it. */
  broadcast(event: EventRecord): number {
    if (!this.byWorkspace.get(event.workspaceId)?.size) return 0;
    const frame = liveFrame(event);
    return frame ? this.sendFrame(event.workspaceId, frame) : 0;
  }

  /** Sends an encoded frame (liveFrame) to every open socket of a workspace (scale-out: one another process encoded). */
  sendFrame(workspaceId: string, frame: string): number {
    const set = this.byWorkspace.get(workspaceId);
    if (!set?.size) return 0;
    let n = 0;
    for (const c of set) {
      if (c.closed) continue;
      if (c.send(frame) === 'dropped') this.dropped++;
      else n++;
    }
    return n;
  }

  /** Closes the sockets whose session ended or whose person's rights changed; returns how many. */
  closeFor(e: AccessEnded): number {
    const code = e.sessionEnded ? LIVE_CLOSE_SESSION_ENDED : LIVE_CLOSE_ROLE_CHANGED;
    let n = 0;
    for (const c of [...(this.byWorkspace.get(e.workspaceId) ?? [])]) {
      if (e.userId !== undefined && c.data.userId !== e.userId) continue;
      if (e.sessionId !== undefined && c.data.sessionId !== e.sessionId) continue;
      if (e.keepSessionId !== undefined && c.data.sessionId === e.keepSessionId) continue;
      // Out of the hub first, so not a single further event reaches it while the close completes.
      this.remove(c);
      c.close(code, e.reason);
      n++;
    }
    return n;
  }

  /** Closes every socket (server shutdown, 1001 going away). */
  closeAll(): void {
    for (const set of this.byWorkspace.values()) for (const c of [...set]) c.close(1001, 'server stopping');
  }
}

