import type { Clock, TimerHandle } from '../kernel/clock.js';
import { SlotQueue } from '../kernel/slot-queue.js';

/** Requests in flight to one host, across every ingestion run of the server. */
export const HOST_CONCURRENCY = 2;
/** A robots.txt Crawl-delay is honoured up to this; a larger one would stall a crawl for hours. */
export const CRAWL_DELAY_CAP_MS = 10_000;

interface HostState { slots: SlotQueue; nextStart: number }

/**
 * Politeness across sources: at most HOST_CONCURRENCY requests to a host at once, and successive
 * request starts spaced by the host's crawl delay. Slots are handed out in arrival order.
 */
export class HostLimiter {
  private hosts = new Map<string, HostState>();

  constructor(private clock: Clock, private perHost = HOST_CONCURRENCY) {}

  async run<T>(host: string, delayMs: number, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    await this.acquire(host, Math.min(Math.max(0, delayMs), CRAWL_DELAY_CAP_MS), signal);
    try {
      return await fn();
    } finally {
      this.release(host);
    }
  }

  /** Requests to the host now in flight (for tests). */
  active(host: string): number {
    return this.hosts.get(host)?.slots.running ?? 0;
  }

  private state(host: string): HostState {
    let s = this.hosts.get(host);
    if (!s) { s = { slots: new SlotQueue(this.perHost), nextStart: 0 }; this.hosts.set(host, s); }
    return s;
  }

  private async acquire(host: string, delayMs: number, signal: AbortSignal | undefined): Promise<void> {
    const s = this.state(host);
    try {
      await s.slots.acquire(signal);
    } catch (err) {
      this.forgetIfIdle(host, s);
      throw err;
    }
    const now = this.clock.now();
    const startAt = Math.max(now, s.nextStart);
    s.nextStart = startAt + delayMs;
    if (startAt > now) {
      try {
        await this.sleep(startAt - now, signal);
      } catch (err) {
        this.release(host);
        throw err;
      }
    }
  }

  private release(host: string): void {
    const s = this.hosts.get(host);
    if (!s) return;
    s.slots.release();
    this.forgetIfIdle(host, s);
  }

  /** A host with nothing in flight or waiting, and no delay still to keep, is forgotten. */
  private forgetIfIdle(host: string, s: HostState): void {
    if (s.slots.running === 0 && s.slots.queued === 0 && s.nextStart <= this.clock.now()) this.hosts.delete(host);
  }

  private sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      let handle: TimerHandle | null = null;
      const onAbort = () => { if (handle) this.clock.clearTimeout(handle); reject(signal!.reason); };
      handle = this.clock.setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
