/**
 * How long what crosses to another process (a reply's status, text and stored answer, typing) may wait after a
 * send to go with what follows: a chat turn's events come a few ms apart, each from its own turn of the event loop.
 */
export const CROSS_BATCH_MS = 5;

/**
 * When what is due to cross to other processes is sent (issue 38's round trips, issue 25's crossing latency):
 * the first thing after a quiet spell goes at once (at the end of this turn of the event loop, with whatever the
 * turn adds); what streams within CROSS_BATCH_MS of a send waits for the window's end and goes with the rest as
 * one. What must not wait (a team member's message: `due(true)`) goes at the end of this turn of the loop
 * whatever the window, taking what waits with it. So a lone event or a team member's message crosses without
 * waiting, and a chat turn's burst of events, each from its own loop turn, costs a publish or two instead of one each.
 */
export class CrossBatch {
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private sentAt = -Infinity;

  constructor(private readonly send: () => void, private readonly windowMs = CROSS_BATCH_MS) {}

  /** Something was queued (`now`: it goes at the end of this loop turn, whatever the window): arranges its sending. */
  due(now = false): void {
    if (this.immediate) return;
    if (this.timer) {
      if (!now) return;
      clearTimeout(this.timer);
      this.timer = null;
    }
    const wait = now ? 0 : this.sentAt + this.windowMs - performance.now();
    if (wait <= 0) this.immediate = setImmediate(this.run);
    else this.timer = setTimeout(this.run, wait);
  }

  /** Sends what waits now (at close). */
  flush(): void {
    if (!this.timer && !this.immediate) return;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.run();
  }

  private readonly run = (): void => {
    this.timer = null;
    this.immediate = null;
    this.sentAt = performance.now();
    this.send();
  };
}
