import type { Clock } from '../clock.js';

/**
 * Sliding-window counter per key (an IP, an account): at most `limit` hits within `windowMs`.
 * In memory, per process: sign-in limits are a brake on guessing, not an accounting record.
 */
export class RateLimiter {
  private hits = new Map<string, number[]>();

  constructor(private clock: Clock, readonly limit: number, readonly windowMs: number, private maxKeys = 50_000) {}

  /** Milliseconds until this key may be used again; 0 when it may be used now. */
  waitMs(key: string): number {
    const list = this.recent(key);
    if (list.length < this.limit) return 0;
    return list[list.length - this.limit] + this.windowMs - this.clock.now();
  }

  hit(key: string): void {
    const list = this.recent(key);
    list.push(this.clock.now());
    this.hits.set(key, list);
    if (this.hits.size > this.maxKeys) this.sweep();
  }

  /** Takes back the newest hit (an attempt that turned out to be legitimate). */
  forgive(key: string): void {
    const list = this.hits.get(key);
    if (!list) return;
    list.pop();
    if (!list.length) this.hits.delete(key);
  }

  reset(key: string): void {
    this.hits.delete(key);
  }

  private recent(key: string): number[] {
    const since = this.clock.now() - this.windowMs;
    const list = (this.hits.get(key) ?? []).filter((t) => t > since);
    if (list.length) this.hits.set(key, list); else this.hits.delete(key);
    return list;
  }

  /** Drops keys with no hit inside the window, so a flood of distinct IPs cannot grow memory without bound. */
  private sweep(): void {
    const since = this.clock.now() - this.windowMs;
    for (const [k, list] of this.hits) if (list[list.length - 1] <= since) this.hits.delete(k);
  }
}
