import type { Clock } from '../clock.js';

/**
 * Sliding-log rate limiter: at most `limit` hits per key in any window of `windowMs`. Keys are dropped when
 * their window empties (swept on use), so memory follows the number of active keys.
 */
export class RateLimiter {
  private hits = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(private readonly clock: Clock, private readonly windowMs: number) {}

  /** Records a hit if allowed; returns 0 when allowed, else the milliseconds until one is allowed. */
  take(key: string, limit: number): number {
    const now = this.clock.now();
    this.sweep(now);
    const from = now - this.windowMs;
    const list = (this.hits.get(key) ?? []).filter((t) => t > from);
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
    for (const [k, list] of this.hits) if (!list.some((t) => t > from)) this.hits.delete(k);
  }
}
