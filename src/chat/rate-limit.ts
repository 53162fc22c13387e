import type { Clock } from '../clock.js';

/**
 * Sliding-log rate limiter: at most `limit` hits per key in any window of `windowMs`. Keys are dropped when
 * their window empties (swept on use), so memory follows the number of active keys. Most keys (an address
 * that opened one chat, a visitor who sent one message) hold a single hit: that is kept as the bare time, and
 * a list is made only for a second hit.
 */
export class RateLimiter {
  private hits = new Map<string, number | number[]>();
  private lastSweep = 0;

  constructor(private readonly clock: Clock, private readonly windowMs: number) {}

  /** Records a hit if allowed; returns 0 when allowed, else the milliseconds until one is allowed. */
  take(key: string, limit: number): number {
    // A limit of 0 (uploadsPerHour may be 0) allows nothing: a whole window's wait.
    if (limit < 1) return this.windowMs;
    const now = this.clock.now();
    this.sweep(now);
    const from = now - this.windowMs;
    const kept = this.hits.get(key);
    if (kept === undefined || (typeof kept === 'number' && kept <= from)) {
      this.hits.set(key, now);
      return 0;
    }
    const list = (kept === undefined ? [] : typeof kept === 'number' ? [kept] : kept).filter((t) => t > from);
    if (list.length >= limit) {
      this.hits.set(key, list);
      return Math.max(1, list[list.length - limit] + this.windowMs - now);
    }
    list.push(now);
    this.hits.set(key, list);
    return 0;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    const from = now - this.windowMs;
    for (const [k, kept] of this.hits) if (typeof kept === 'number' ? kept <= from : !kept.some((t) => t > from)) this.hits.delete(k);
  }
}
