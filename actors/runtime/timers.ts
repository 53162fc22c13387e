import type { Clock, TimerHandle } from '../../src/kernel/clock.js';

/**
 * Named timers owned by one actor. A due timer does not call back into the actor: it delivers a message into
 * the actor's mailbox, so state is still only touched by the drain loop.
 */
export class ActorTimers<Msg> {
  private readonly active = new Map<string, TimerHandle>();
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly deliver: (msg: Msg) => void,
  ) {}

  /** Delivers `msg` after `ms`. Replaces a pending timer of the same name. Ignored once the actor is stopping. */
  set(name: string, ms: number, msg: Msg): void {
    if (this.closed) return;
    this.cancel(name);
    const handle = this.clock.setTimeout(() => {
      // A replaced or cancelled timer whose callback still ran (a clock that cannot clear) must not deliver.
      if (this.active.get(name) !== handle) return;
      this.active.delete(name);
      this.deliver(msg);
    }, ms);
    this.active.set(name, handle);
  }

  /** Cancels a pending timer; returns whether one was pending. */
  cancel(name: string): boolean {
    const handle = this.active.get(name);
    if (!handle) return false;
    this.clock.clearTimeout(handle);
    this.active.delete(name);
    return true;
  }

  has(name: string): boolean { return this.active.has(name); }
  get size(): number { return this.active.size; }

  /** Cancels every timer and refuses new ones; called when the actor stops. */
  close(): void {
    this.closed = true;
    for (const name of [...this.active.keys()]) this.cancel(name);
  }
}
