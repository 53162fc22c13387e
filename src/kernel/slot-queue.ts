/**
 * A fixed number of slots handed out in arrival order. A caller takes a slot with `acquire` (waiting in line when
 * none is free) and gives it back with `release`; a freed slot goes straight to the first in line, so a newcomer
 * never overtakes a waiter. A waiter whose signal aborts leaves the line (its promise rejects with the signal's
 * reason) and holds nothing. Used by the knowledge crawler's per-host limit (src/knowledge/host-limiter.ts) and
 * the worker pool's isolated lane (workers/process-lane.ts).
 */
interface Waiter { resolve(): void; reject(reason: unknown): void }

export class SlotQueue {
  private taken = 0;
  /** A Set keeps arrival order and lets an aborted waiter leave in O(1). */
  private readonly line = new Set<Waiter>();

  constructor(readonly slots: number) {
    if (!(slots >= 1)) throw new RangeError(`a slot queue needs at least one slot (got ${slots})`);
  }

  /** Slots held now. */
  get running(): number { return this.taken; }
  /** Callers waiting for a slot. */
  get queued(): number { return this.line.size; }

  /** Resolves once the caller holds a slot; rejects with the signal's reason if it aborts first (then nothing is held). */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.taken < this.slots) { this.taken++; return Promise.resolve(); }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => { this.line.delete(waiter); reject(signal!.reason); };
      const waiter: Waiter = {
        resolve: () => { signal?.removeEventListener('abort', onAbort); resolve(); },
        reject: (reason) => { signal?.removeEventListener('abort', onAbort); reject(reason); },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.line.add(waiter);
    });
  }

  /** Gives a slot back: to the first in line, or free. */
  release(): void {
    const [next] = this.line;
    if (next) { this.line.delete(next); next.resolve(); return; }
    if (this.taken === 0) throw new Error('SlotQueue.release: no slot is held');
    this.taken--;
  }

  /** Runs fn in a slot; the slot is given back however fn ends. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try { return await fn(); } finally { this.release(); }
  }

  /** Sends every waiter away with `reason` (the owner is closing); slots held stay held until released. */
  rejectWaiting(reason: unknown): void {
    const waiting = [...this.line];
    this.line.clear();
    for (const w of waiting) w.reject(reason);
  }
}
