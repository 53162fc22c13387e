import type { Clock } from '../kernel/clock.js';

/**
 * The one rate limiter (sign-in, password checks, widget connections, messages, frames, uploads, new
 * conversations): a sliding log per key, at most `limit` hits in any window of `windowMs`. In memory, per process
 * (src/scale/limits.ts counts across the group). Memory is bounded both ways: a key holds at most `limit + 1` times
 * (the newest; an older one can no longer decide anything), and keys whose window emptied are swept once a window.
 * Most keys (an address that opened one chat, a visitor who sent one message) hold a single hit: that is kept as the
 * bare time, and a list is made only for a second hit.
 */
export class RateLimiter {
  private hits = new Map<string, number | number[]>();
  private lastSweep = 0;

  constructor(private readonly clock: Clock, readonly windowMs: number) {}

  /** Records a hit if allowed; returns 0 when allowed, else the milliseconds until one is allowed. */
  take(key: string, limit: number): number {
    const wait = this.waitMs(key, limit);
    if (wait === 0) this.hit(key, limit);
    return wait;
  }

  /** Milliseconds until `key` may be used again under `limit`; 0 when it may be used now. Records nothing. */
  waitMs(key: string, limit: number): number {
    // A limit of 0 (uploadsPerHour may be 0) allows nothing: a whole window's wait.
    if (limit < 1) return this.windowMs;
    const list = this.recent(key);
    if (list.length < limit) return 0;
    return Math.max(1, list[list.length - limit] + this.windowMs - this.clock.now());
  }

  /** Hits inside the window (at most the `limit + 1` newest are kept). */
  count(key: string): number {
    return this.recent(key).length;
  }

  /**
   * Records a hit whether or not it is allowed (a failed sign-in is counted even while refused). Only the newest
   * `limit + 1` are kept: the one past the limit keeps the key full when `forgive` takes one back.
   */
  hit(key: string, limit: number): void {
    const now = this.clock.now();
    this.sweep(now);
    const list = this.recent(key);
    list.push(now);
    if (list.length > limit + 1) list.splice(0, list.length - limit - 1);
    this.hits.set(key, list.length === 1 ? list[0] : list);
  }

  /** Takes back the newest hit (an attempt that turned out to be legitimate). */
  forgive(key: string): void {
    const list = this.recent(key);
    list.pop();
    this.store(key, list);
  }

  reset(key: string): void {
    this.hits.delete(key);
  }

  /** How many hit times are held over all keys (the memory bound; for tests and metrics). */
  held(): number {
    let n = 0;
    for (const kept of this.hits.values()) n += typeof kept === 'number' ? 1 : kept.length;
    return n;
  }

  /** The key's hits inside the window, oldest first; the caller may change the list and `store` it. */
  private recent(key: string): number[] {
    const kept = this.hits.get(key);
    if (kept === undefined) return [];
    const from = this.clock.now() - this.windowMs;
    const list = (typeof kept === 'number' ? [kept] : kept).filter((t) => t > from);
    this.store(key, list);
    return list;
  }

  private store(key: string, list: number[]): void {
    if (!list.length) this.hits.delete(key);
    else this.hits.set(key, list.length === 1 ? list[0] : list);
  }

  /** Drops keys with no hit inside the window, at most once a window, so a flood of distinct keys cannot pile up. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    const from = now - this.windowMs;
    for (const [k, kept] of this.hits) if (typeof kept === 'number' ? kept <= from : kept[kept.length - 1] <= from) this.hits.delete(k);
  }
}
