/**
 * A bounded FIFO with one drain loop, after xstate's Mailbox: items are processed one at a time, each awaited
 * to completion before the next, and a flag guarantees the processor never re-enters (an item enqueued while
 * one is being processed waits its turn).
 *
 * Overflow policy: reject-newest. When a lane is full, `enqueue` throws `MailboxFullError` and the queue is
 * left untouched, so the caller can answer `rate_limited` instead of the server silently dropping work.
 */

export type Priority = 'normal' | 'urgent';

export interface EnqueueOptions {
  /** 'urgent' items are processed before every 'normal' item (FIFO among urgent ones); barge-in uses this. */
  priority?: Priority;
  /** Skip the capacity check. For runtime-internal deliveries that are already bounded (one per timer name). */
  bypassLimit?: boolean;
}

export interface MailboxOptions {
  /** Largest number of queued normal items. Default 1000. */
  capacity?: number;
  /** Largest number of queued urgent items, counted apart so a flood of normal items cannot block them. Default 16. */
  urgentCapacity?: number;
}

export class MailboxFullError extends Error {
  readonly code = 'mailbox_full' as const;
  constructor(readonly capacity: number, readonly priority: Priority) {
    super(`mailbox is full (${capacity} ${priority} messages queued)`);
    this.name = 'MailboxFullError';
  }
}

export const isMailboxFullError = (err: unknown): err is MailboxFullError => err instanceof MailboxFullError;

const DEFAULTS = Object.freeze({ capacity: 1000, urgentCapacity: 16 });

function positiveInt(value: number, field: string): number {
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`mailbox option ${field} must be a positive integer, got ${value}`);
  return value;
}

export class Mailbox<T> {
  private readonly normal: T[] = [];
  private readonly urgent: T[] = [];
  private readonly capacity: number;
  private readonly urgentCapacity: number;
  private started = false;
  private draining = false;
  private idleWaiters: Array<() => void> = [];
  /** drain, bound once: scheduling it makes no closure per message. */
  private readonly drainLater = () => this.drain();

  /**
   * @param process handles one item; the loop awaits it before taking the next.
   * @param onError receives anything `process` throws; the loop then continues with the next item.
   */
  constructor(
    private readonly process: (item: T) => Promise<void> | void,
    private readonly onError: (err: unknown, item: T) => void,
    options: MailboxOptions = {},
  ) {
    const o = { ...DEFAULTS, ...options };
    this.capacity = positiveInt(o.capacity, 'capacity');
    this.urgentCapacity = positiveInt(o.urgentCapacity, 'urgentCapacity');
  }

  /** Items waiting (not counting the one being processed). */
  get size(): number { return this.normal.length + this.urgent.length; }
  /** True while an item is being processed. */
  get busy(): boolean { return this.draining; }

  /** Queues an item. Throws MailboxFullError (and queues nothing) when its lane is full. */
  enqueue(item: T, options: EnqueueOptions = {}): void {
    const priority = options.priority ?? 'normal';
    const lane = priority === 'urgent' ? this.urgent : this.normal;
    const limit = priority === 'urgent' ? this.urgentCapacity : this.capacity;
    if (!options.bypassLimit && lane.length >= limit) throw new MailboxFullError(limit, priority);
    lane.push(item);
    this.schedule();
  }

  /** Begins processing; items enqueued before this wait until it is called. */
  start(): void {
    this.started = true;
    this.schedule();
  }

  /** Removes and returns every queued item (the one being processed, if any, runs to completion). */
  clear(): T[] {
    return [...this.urgent.splice(0), ...this.normal.splice(0)];
  }

  /** Resolves when nothing is queued and nothing is being processed. */
  whenIdle(): Promise<void> {
    if (!this.draining && (this.size === 0 || !this.started)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
    // A microtask, not a direct call: a sender never runs the handler inside its own call stack.
    if (this.started && !this.draining && this.size > 0) {
      this.draining = true;
      queueMicrotask(this.drainLater);
    }
  }

  /**
   * Takes items until none is left. A handler that finishes synchronously is followed at once by the next item
   * (no promise or microtask per item: the voice relay's 50 frames a second per session would each allocate
   * them); one that returns a promise resumes the loop when it settles.
   */
  private drain(): void {
    while (this.size > 0) {
      const item = (this.urgent.length > 0 ? this.urgent.shift() : this.normal.shift()) as T;
      let pending: Promise<void> | void;
      try {
        pending = this.process(item);
      } catch (err) {
        this.onError(err, item);
        continue;
      }
      if (pending && typeof (pending as Promise<void>).then === 'function') {
        (pending as Promise<void>).then(() => this.drain(), (err) => { this.onError(err, item); this.drain(); });
        return;
      }
    }
    this.draining = false;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
