import type { ScaleNode } from './node.js';

/** How long a workspace stays watched after this process's last live socket of it closed (a reload reopens it). */
const UNWATCH_AFTER_MS = 10_000;
/** How long a process waits for the group's lists after asking (a start, Redis back) before trusting what it has. */
const SYNC_TIMEOUT_MS = 2000;

type InterestMsg =
  /** Process n began (on) or stopped watching workspace w. */
  | { n: string; w: string; on: boolean }
  /** Process n watches exactly these workspaces (replaces what was known of it). */
  | { n: string; all: string[] }
  /** Process n asks every process for its list (it started, or Redis came back). */
  | { n: string; hello: true };

/**
 * Which processes of the group watch which workspace (hold live sockets of it), so a workspace's events cross
 * to those processes only, on a channel of the workspace's own that only they subscribe to (as Socket.IO's Redis
 * adapter and Centrifugo route a room's messages), rather than to every process.
 *
 * A process starts watching before its first live socket of a workspace is greeted: it subscribes to the
 * workspace's channel, then tells the group and waits until every process has heard it (an acknowledged
 * broadcast), so no event stored after the greeting misses it. It stops watching some seconds after its last
 * socket of the workspace closed. A process that starts, or finds Redis back after an outage (whose messages
 * are lost), asks every process for its list, and until all have answered (or a moment passed) it counts every
 * workspace as watched. A dead process's watches are forgotten when a publish to the workspace is heard by no
 * other process (for publishes Redis does not answer: when the workspace's channel has no other listener).
 */
export class WorkspaceInterest {
  /** workspace -> the other processes that watch it, each with when it was learnt (see published). */
  private readonly others = new Map<string, Map<string, number>>();
  private learnt = 0;
  /** Workspaces this process watches (subscribed), with a pending stop when its last socket closed. */
  private readonly mine = new Map<string, { stop: NodeJS.Timeout | null }>();
  private readonly starting = new Map<string, Promise<void>>();
  /** False until the group answered this process's hello: meanwhile every workspace counts as watched. */
  private synced = false;
  private syncTimer: NodeJS.Timeout | null = null;
  private answered = new Set<string>();
  private awaited = Infinity;

  constructor(
    private readonly node: ScaleNode,
    /** Called with each batch of lines published to a workspace this process watches, and the workspace. */
    private readonly onLines: (workspaceId: string, lines: string[]) => void,
    /** How many live sockets of the workspace this process holds now. */
    private readonly localCount: (workspaceId: string) => number,
  ) {
    node.on('int', (m: InterestMsg) => this.heard(m));
    node.onHealth((up) => { if (up) void this.hello(); });
  }

  /** Asks the group for its lists (at start; again when Redis comes back) and tells it this process's. */
  async hello(): Promise<void> {
    this.synced = false;
    this.answered = new Set();
    this.awaited = Infinity;
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = setTimeout(() => { this.synced = true; }, SYNC_TIMEOUT_MS);
    this.syncTimer.unref();
    try {
      // A watch begun while Redis was away could not subscribe: every one is subscribed again (a repeat is a no-op).
      for (const w of this.mine.keys()) await this.node.subscribeChannel(channel(w), (lines) => this.onLines(w, lines));
      this.node.broadcast('int', { n: this.node.id, all: [...this.mine.keys()] });
      const heard = await this.node.publishTopic('int', { n: this.node.id, hello: true });
      this.awaited = heard - 1; // this process's own subscription heard it too
      this.checkSynced();
    } catch { /* Redis away: asked again when it returns */ }
  }

  /** Whether another process may watch the workspace (its events are then published to its channel). */
  othersWatch(workspaceId: string): boolean {
    return !this.synced || (this.others.get(workspaceId)?.size ?? 0) > 0;
  }

  /** What is known now, for `published`: taken when a publish is sent. */
  mark(): number { return this.learnt; }

  /**
   * After publishing to a workspace's channel (sent at `mark`): `heard` processes got it, this one included when it
   * watches. Heard by no other process: the watchers known when it was sent are gone (a process that died
   * watching). One learnt since may have subscribed after that publish, so it is kept.
   */
  published(workspaceId: string, heard: number, mark: number): void {
    if (!this.synced || heard > (this.mine.has(workspaceId) ? 1 : 0)) return;
    const set = this.others.get(workspaceId);
    if (!set) return;
    for (const [n, at] of set) if (at <= mark) set.delete(n);
    if (!set.size) this.others.delete(workspaceId);
  }

  /** Before greeting a live socket of the workspace: resolves once every process knows this one watches it. */
  watch(workspaceId: string): Promise<void> {
    const had = this.mine.get(workspaceId);
    if (had) {
      if (had.stop) { clearTimeout(had.stop); had.stop = null; }
      return this.starting.get(workspaceId) ?? Promise.resolve();
    }
    this.mine.set(workspaceId, { stop: null });
    const started = (async () => {
      try {
        await this.node.subscribeChannel(channel(workspaceId), (lines) => this.onLines(workspaceId, lines));
        await this.node.broadcastAcked('int', { n: this.node.id, w: workspaceId, on: true });
      } catch { /* Redis away: no event crosses meanwhile; the hello when it returns tells the group */ }
    })().finally(() => this.starting.delete(workspaceId));
    this.starting.set(workspaceId, started);
    return started;
  }

  /** This process's live sockets of the workspace changed: with none left, it stops watching a little later. */
  changed(workspaceId: string): void {
    const had = this.mine.get(workspaceId);
    if (!had || had.stop || this.localCount(workspaceId) > 0) return;
    had.stop = setTimeout(() => {
      had.stop = null;
      if (this.localCount(workspaceId) > 0 || this.mine.get(workspaceId) !== had) return;
      this.mine.delete(workspaceId);
      this.node.broadcast('int', { n: this.node.id, w: workspaceId, on: false });
      this.node.unsubscribeChannel(channel(workspaceId)).catch(() => {});
    }, UNWATCH_AFTER_MS);
    had.stop.unref();
  }

  close(): void {
    if (this.syncTimer) clearTimeout(this.syncTimer);
    for (const m of this.mine.values()) if (m.stop) clearTimeout(m.stop);
  }

  private heard(m: InterestMsg): void {
    if (m.n === this.node.id) return;
    if ('hello' in m) { this.node.broadcast('int', { n: this.node.id, all: [...this.mine.keys()] }); return; }
    if ('all' in m) {
      for (const [w, set] of this.others) { set.delete(m.n); if (!set.size) this.others.delete(w); }
      for (const w of m.all) this.add(w, m.n);
      this.answered.add(m.n);
      this.checkSynced();
      return;
    }
    if (m.on) this.add(m.w, m.n);
    else { const set = this.others.get(m.w); set?.delete(m.n); if (set && !set.size) this.others.delete(m.w); }
  }

  private add(workspaceId: string, n: string): void {
    const set = this.others.get(workspaceId) ?? new Map<string, number>();
    set.set(n, ++this.learnt);
    this.others.set(workspaceId, set);
  }

  private checkSynced(): void {
    if (this.synced || this.answered.size < this.awaited) return;
    this.synced = true;
    if (this.syncTimer) clearTimeout(this.syncTimer);
  }
}

/** A workspace's own channel (under the installation's prefix). */
export const channel = (workspaceId: string) => `ev:${workspaceId}`;
