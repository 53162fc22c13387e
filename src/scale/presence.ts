import type { AppContext } from '../app/context.js';
import type { ScaleNode } from './node.js';
import { nodeOf } from './node-of.js';

/** What presence reads of this process's live sockets (src/team/live-hub.ts's LiveHub, handed in). */
export interface OpenSockets {
  /** Open sockets per user of a workspace. */
  openUsers(workspaceId: string): Map<string, number>;
  workspaces(): Iterable<string>;
  /** Told when a workspace's sockets change; presence adds itself. */
  readonly onChange: Set<(workspaceId: string) => void>;
}

/** How long a process's word that a person has the panel open holds without being repeated. */
const ENTRY_TTL_MS = 15_000;
const REFRESH_MS = 5_000;
/** The sorted set of who has a live socket open in a workspace (also read to know where its events are watched). */
export const presenceKey = (node: ScaleNode, workspaceId: string) => `${node.prefix}open:${workspaceId}`;

/**
 * Who has a live socket open in a workspace, over the whole group: each process writes its own people into a
 * Redis sorted set per workspace (member "<process>|<user>", score = until when it holds), on every change and
 * every few seconds (with the heartbeat); a dead process's entries lapse on their own. Readers add the other
 * processes' entries to this process's own sockets (always current here).
 */
export function startGroupPresence(app: AppContext, node: ScaleNode, hub: OpenSockets): void {
  const published = new Map<string, Set<string>>();
  const publish = async (workspaceId: string) => {
    if (!node.healthy) return;
    const now = app.clock.now();
    const users = new Set(hub.openUsers(workspaceId).keys());
    const before = published.get(workspaceId) ?? new Set<string>();
    const gone = [...before].filter((u) => !users.has(u)).map((u) => `${node.id}|${u}`);
    // Issued in this turn of the event loop, so they go out in one write (with the heartbeat's, on a refresh). No
    // transaction is needed: each process writes only its own entries, and lapsed ones may go in any order.
    const key = presenceKey(node, workspaceId);
    await Promise.all([
      users.size ? node.cmd.zadd(key, ...[...users].flatMap((u) => [now + ENTRY_TTL_MS, `${node.id}|${u}`])) : null,
      gone.length ? node.cmd.zrem(key, ...gone) : null,
      node.cmd.zremrangebyscore(key, '-inf', now),
      node.cmd.pexpire(key, ENTRY_TTL_MS * 4),
    ]);
    if (users.size) published.set(workspaceId, users); else published.delete(workspaceId);
  };
  const changed = (workspaceId: string) => { publish(workspaceId).catch(() => { /* the next refresh tries again */ }); };
  hub.onChange.add(changed);
  const stop = node.heartbeat.every(REFRESH_MS, () => {
    for (const ws of new Set([...hub.workspaces(), ...published.keys()])) publish(ws).catch(() => {});
  });
  app.onClose(async () => {
    stop();
    hub.onChange.delete(changed);
    for (const [ws, users] of published) await node.cmd.zrem(presenceKey(node, ws), ...[...users].map((u) => `${node.id}|${u}`)).catch(() => {});
  });
}

/** Open live sockets per user of a workspace: this process's, plus (scale-out) the other processes' of the group. */
export async function openUsersEverywhere(app: AppContext, hub: OpenSockets, workspaceId: string): Promise<Map<string, number>> {
  const counts = hub.openUsers(workspaceId);
  const node = nodeOf(app);
  if (!node?.healthy) return counts;
  try {
    const members = await node.cmd.zrangebyscore(presenceKey(node, workspaceId), app.clock.now(), '+inf');
    for (const m of members) {
      const at = m.lastIndexOf('|');
      if (m.slice(0, at) === node.id) continue; // this process's own sockets are counted above, as they are now
      const user = m.slice(at + 1);
      counts.set(user, (counts.get(user) ?? 0) + 1);
    }
  } catch { /* Redis away: this process's sockets only */ }
  return counts;
}
