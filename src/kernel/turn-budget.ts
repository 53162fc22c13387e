/**
 * Work that comes in bursts (hundreds of widgets connecting at once) done a few milliseconds per turn of the event
 * loop, so timers, sockets and everyone else's work get their turn between the slices (issue 37). A step awaits
 * `take()` before it runs: it runs in this turn's check phase while the slice has time left, else in a later turn,
 * first come first served. A step is not cut: it runs to its next await that waits, so steps must be short; a
 * slice lasts the budget plus its last step.
 */
export class TurnBudget {
  /** When the current slice began (performance.now()). */
  private sliceStart = 0;
  private readonly waiting: Array<() => void> = [];
  /** A drain is due (an immediate) or under way: the waiting steps will be let through. */
  private letting = false;

  constructor(readonly sliceMs: number) {}

  /**
   * Resolves when the step may run: in this turn's check phase (setImmediate) while the slice has time left, else
   * in a later turn. Steps are let through one at a time, each once the one before reached an await that waits
   * (the microtask queue is empty), so the clock is read between any two steps.
   */
  take(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      if (!this.letting) { this.letting = true; setImmediate(this.drain); }
    });
  }

  /** Steps waiting for their turn (for tests and metrics). */
  get queued(): number {
    return this.waiting.length;
  }

  private readonly drain = () => {
    this.sliceStart = performance.now();
    this.next();
  };

  /**
   * Lets one waiting step run, then the next once the microtask queue is empty: a microtask queued behind the step's
   * continuation queues a tick, and Node runs ticks only after the microtasks (runNextTicks, processTicksAndRejections).
   */
  private readonly next = () => {
    const step = this.waiting.shift();
    if (!step) { this.letting = false; return; }
    if (performance.now() - this.sliceStart >= this.sliceMs) { this.waiting.unshift(step); setImmediate(this.drain); return; }
    step();
    queueMicrotask(this.afterStep);
  };

  private readonly afterStep = () => { process.nextTick(this.next); };
}
