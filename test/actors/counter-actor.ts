// A small actor used by the runtime tests: it records what it handled and how many handlers ran at once.
import { Actor, assertNever, type ActorLogger, type ActorOptions } from '../../actors/runtime/index.js';
import type { Clock } from '../../src/kernel/clock.js';

export type CounterMsg =
  | { type: 'add'; n: number }
  | { type: 'get' }
  | { type: 'fail'; reason: string }
  | { type: 'wait'; until: Promise<void>; label: string }
  | { type: 'sendToSelf' }
  | { type: 'note'; label: string }
  | { type: 'arm'; name: string; ms: number; label: string }
  | { type: 'disarm'; name: string };

export interface CounterState { total: number; handled: string[] }

export class CounterActor extends Actor<CounterMsg, CounterState, { get: number; add: number }> {
  concurrent = 0;
  maxConcurrent = 0;
  starts = 0;
  stops = 0;

  constructor(options: Omit<ActorOptions<CounterState>, 'initialState'>, private readonly store?: Map<string, number>) {
    super({ ...options, initialState: { total: 0, handled: [] } });
  }

  get handled(): string[] { return this.state.handled; }
  get total(): number { return this.state.total; }

  protected override onStart(): void {
    this.starts++;
    this.state.total = this.store?.get(this.id) ?? 0;
  }

  protected override onStop(): void {
    this.stops++;
    this.store?.set(this.id, this.state.total);
  }

  protected override async handle(msg: CounterMsg): Promise<unknown> {
    this.concurrent++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.concurrent);
    try {
      // A real await in every handler, so overlapping handlers would show up in maxConcurrent.
      await new Promise<void>((r) => setImmediate(r));
      switch (msg.type) {
        case 'add':
          this.state.total += msg.n;
          this.state.handled.push(`add:${msg.n}`);
          return this.state.total;
        case 'get':
          return this.state.total;
        case 'fail':
          this.state.handled.push(`fail:${msg.reason}`);
          throw new Error(msg.reason);
        case 'wait':
          await msg.until;
          this.state.handled.push(`wait:${msg.label}`);
          return undefined;
        case 'sendToSelf':
          this.send({ type: 'note', label: 'from-self' });
          await new Promise<void>((r) => setImmediate(r));
          this.state.handled.push('sendToSelf:done');
          return undefined;
        case 'note':
          this.state.handled.push(`note:${msg.label}`);
          return undefined;
        case 'arm':
          this.timers.set(msg.name, msg.ms, { type: 'note', label: msg.label });
          return undefined;
        case 'disarm':
          return this.timers.cancel(msg.name);
        default:
          return assertNever(msg);
      }
    } finally {
      this.concurrent--;
    }
  }
}

export function captureLog(): ActorLogger & { errors: Array<{ obj: Record<string, unknown>; msg: string }> } {
  const errors: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  return {
    errors,
    error: (obj, msg) => { errors.push({ obj: obj as Record<string, unknown>, msg }); },
    warn: () => {},
  };
}

export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

export const makeCounter = (id: string, clock: Clock, log: ActorLogger, capacity = 100) =>
  new CounterActor({ id, clock, log, mailbox: { capacity, urgentCapacity: 4 } });

/** Awaits a promise that must reject and returns its error (uvu/assert has no `rejects`). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject, but it resolved');
}
