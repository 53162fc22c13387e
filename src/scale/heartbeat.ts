import type { Logger } from '../kernel/log.js';

/** A part of the heartbeat: issues its Redis commands (or its checks) at once, in the beat's turn of the event loop. */
export type BeatPart = () => void;

/**
 * One timer for a process's periodic coordination (issue 38's idle cost): each beat renews the process's
 * membership and runs the parts that are due (lease renewals, presence, the clock's sample, voice seats, checks
 * of replies streaming elsewhere, ...). Every command a beat issues goes in the same turn of the event loop, so
 * the Redis client's auto-pipelining sends them as one write and Redis answers them in one read: one wake-up and
 * one round trip a beat, whatever the number of parts, instead of a timer, a wake-up and a write each.
 */
export class Heartbeat {
  private readonly parts: Array<{ every: number; run: BeatPart }> = [];
  private timer: NodeJS.Timeout | null = null;
  private n = 0;

  constructor(
    /** How often a beat goes. */
    readonly beatMs: number,
    /** Called first on every beat (the membership and the probe of Redis). */
    private readonly first: () => void,
    private readonly log: Logger,
  ) {}

  /** Runs `part` on every beat that is at least `ms` after its last run (every beat when `ms` <= the beat). */
  every(ms: number, part: BeatPart): () => void {
    const entry = { every: Math.max(1, Math.floor(ms / this.beatMs)), run: part };
    this.parts.push(entry);
    return () => { const i = this.parts.indexOf(entry); if (i >= 0) this.parts.splice(i, 1); };
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.beat(), this.beatMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private beat(): void {
    const n = ++this.n;
    this.first();
    for (const part of [...this.parts]) {
      if (n % part.every !== 0) continue;
      try { part.run(); } catch (err) { this.log.error({ err }, 'a periodic scale-out task failed'); }
    }
  }
}
