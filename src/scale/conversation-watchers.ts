import type { ScaleNode } from './node.js';
import { CrossBatch } from './cross-batch.js';

/** How long the set of processes with a widget open on a conversation is kept in Redis after its last change. */
const WATCH_TTL_MS = 24 * 3600_000;
/**
 * How long a notice for a conversation not owned here is kept (between one and two of these): it waits for a
 * lease grant whose answer is on its way (milliseconds; a command fails after 2 s), or it came after this process
 * let the conversation go and will never be needed.
 */
const EARLY_MS = 5000;

/** A widget frame crossing to another process (r, on, n: what it says about a streaming reply, and who writes it). */
export interface CrossingFrame { c: string; t: string; x: string; r?: string; on?: boolean; n?: string }
/** A process's widgets opened (or closed the last of) a conversation: told to the conversation's owner. */
interface WatchNotice { w: string; open: boolean; n: string }

/**
 * Widget frames cross only to the processes with a widget open on their conversation, and what a process's
 * widgets open or close is told to the conversation's owner only (not broadcast to the group). Redis keeps, per
 * conversation, the set of processes with a widget open on it; a change and the notice to the owner named by the
 * lease are one step (WATCH_SCRIPTS), and the lease's grant returns the set, so the owner knows every watcher from
 * its grant on and sends the conversation's frames (batched per process: src/scale/cross-batch.ts) without asking Redis. A
 * frame sent by a process that does not own the conversation (a team member's typing through another process)
 * goes to the set in one script. Each process hears on a channel of its own.
 */
export class ConversationWatchers {
  /** Conversations owned here -> the other processes with a widget open on each. */
  private readonly owned = new Map<string, Set<string>>();
  /**
   * Notices heard for conversations not (yet) owned here: the lease's grant may come back after them. Two
   * generations, the older dropped every EARLY_MS, so those no grant follows do not pile up (and nothing walks them).
   */
  private early = new Map<string, Set<string>>();
  private earlier = new Map<string, Set<string>>();
  /** Conversations with a widget open here (told again when Redis comes back: it may have lost the sets). */
  private readonly open = new Set<string>();
  /** Frames waiting to cross, per process. */
  private readonly outbox = new Map<string, string[]>();
  private readonly batch = new CrossBatch(() => this.flush());
  private onFrame: ((f: CrossingFrame) => void) | null = null;

  constructor(private readonly node: ScaleNode) {
    node.heartbeat.every(EARLY_MS, () => { this.earlier = this.early; this.early = new Map(); });
  }

  /** The early notices of a conversation (taken out of the generations). */
  private takeEarly(conversationId: string): Set<string> | undefined {
    const set = this.early.get(conversationId) ?? this.earlier.get(conversationId);
    this.early.delete(conversationId);
    this.earlier.delete(conversationId);
    return set;
  }

  /** How many conversations have notices waiting for a grant (for the tests). */
  get earlyCount(): number { return this.early.size + this.earlier.size; }

  private get myChannel(): string { return `w:${this.node.id}`; }
  private get channelPrefix(): string { return `${this.node.prefix}w:`; }

  /** Starts hearing this process's frames and notices; `onFrame` gets each frame for a widget here. */
  async listen(onFrame: (f: CrossingFrame) => void): Promise<void> {
    this.onFrame = onFrame;
    this.node.onHealth((up) => { if (up) for (const c of this.open) this.tell(c, true); });
    await this.node.subscribeChannel(this.myChannel, (lines) => {
      for (const line of lines) {
        const m = JSON.parse(line) as CrossingFrame | WatchNotice;
        if ('w' in m) this.heard(m); else this.onFrame?.(m);
      }
    });
  }

  /** This process took the conversation's lease; `watchers`: the set in Redis at the grant. */
  ownedNow(conversationId: string, watchers: string[]): void {
    const set = this.owned.get(conversationId) ?? this.takeEarly(conversationId) ?? new Set<string>();
    for (const n of watchers) if (n !== this.node.id) set.add(n);
    this.owned.set(conversationId, set);
  }

  /** This process no longer owns the conversation (lost, released, handed over). */
  dropped(conversationId: string): void {
    this.owned.delete(conversationId);
    this.takeEarly(conversationId);
  }

  /** This process's first widget of a conversation opened (true) or its last closed (false). */
  watch(conversationId: string, open: boolean): void {
    if (open) this.open.add(conversationId); else this.open.delete(conversationId);
    this.tell(conversationId, open);
  }

  /** A frame for the conversation's widgets on other processes (`now`: without waiting for the batch's window). */
  send(conversationId: string, frame: CrossingFrame, now = false): void {
    const to = this.owned.get(conversationId);
    if (!to) {
      // Not owned here: the set in Redis says where (rare: most frames come from the conversation's owner).
      if (!this.node.healthy) return;
      this.node.cmd.convSend(this.key(conversationId), this.node.id, this.channelPrefix, `${this.node.id}\n${JSON.stringify(frame)}`).catch(() => {});
      return;
    }
    if (!to.size || !this.node.healthy) return;
    const line = JSON.stringify(frame);
    for (const n of to) {
      const lines = this.outbox.get(n);
      if (lines) lines.push(line); else this.outbox.set(n, [line]);
    }
    this.batch.due(now);
  }

  close(): void {
    this.batch.flush();
    this.owned.clear(); this.early.clear(); this.earlier.clear(); this.open.clear();
  }

  private flush(): void {
    for (const [n, lines] of this.outbox) {
      this.node.publishLines(`w:${n}`, lines).then((heard) => {
        // Nobody hears on its channel: the process is gone (its widgets reconnect elsewhere and say so there).
        if (heard === 0) for (const set of this.owned.values()) set.delete(n);
      }, () => { /* Redis away: frames do not cross meanwhile */ });
    }
    this.outbox.clear();
  }

  private tell(conversationId: string, open: boolean): void {
    if (!this.node.healthy) return; // told when Redis returns (listen)
    const notice: WatchNotice = { w: conversationId, open, n: this.node.id };
    this.node.cmd.convWatch(this.key(conversationId), `${this.node.prefix}lease:${conversationId}`, this.node.id, open ? '1' : '0', WATCH_TTL_MS, this.channelPrefix, `${this.node.id}\n${JSON.stringify(notice)}`).catch(() => {});
  }

  private heard(m: WatchNotice): void {
    const owned = this.owned.get(m.w);
    const set = owned ?? this.takeEarly(m.w) ?? new Set<string>();
    if (m.open) set.add(m.n); else set.delete(m.n);
    if (!owned && set.size) this.early.set(m.w, set);
  }

  private key(conversationId: string): string { return `${this.node.prefix}watch:${conversationId}`; }
}
