/** Time source and timers, injectable so tests advance time instead of sleeping. All durations in ms. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}
export type TimerHandle = { readonly id: number };

let nextId = 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    const h = { id: nextId++, t };
    return h;
  },
  clearTimeout(handle) {
    clearTimeout((handle as unknown as { t: NodeJS.Timeout }).t);
  },
};

/** A clock for tests: time moves only when `advance` is called; due timers run in order. */
export class FakeClock implements Clock {
  private timers: { id: number; at: number; fn: () => void }[] = [];
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now() { return this.current; }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const t = { id: nextId++, at: this.current + Math.max(0, ms), fn };
    this.timers.push(t);
    return { id: t.id };
  }
  clearTimeout(handle: TimerHandle) { this.timers = this.timers.filter((t) => t.id !== handle.id); }
  get pending() { return this.timers.length; }
  /** Moves time forward, running every timer that falls due (including ones scheduled by them), in time order. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.timers[0];
      if (!next || next.at > target) break;
      this.timers.shift();
      this.current = next.at;
      next.fn();
      await flushMicrotasks();
    }
    this.current = target;
    await flushMicrotasks();
  }
}

export async function flushMicrotasks(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}
