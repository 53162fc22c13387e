/**
 * The one way a test waits for something to happen: poll `check` until it gives a truthy value (or, with `ok`,
 * a value `ok` accepts) and resolve with it; past `timeout` ms, fail with `message` and the last value seen.
 * A deadline bounds the wait; nothing here waits a fixed time. `interval: 0` polls on every turn of the event loop
 * (for waits on I/O under a fake clock).
 *
 *   await until(() => frames.some((f) => f.t === 'ready'), { message: 'the ready frame' });
 *   const row = await until(() => store.findById(ws, id), { timeout: 10_000, message: 'the stored record' });
 *   const hits = await until(() => search('rose'), { ok: (r) => r.length > 0, message: 'a search result' });
 */
export interface UntilOptions<T> {
  /** Milliseconds before giving up; 5000 unless told. */
  timeout?: number;
  /** Milliseconds between checks; 10 unless told; 0 checks again on the next turn of the event loop. */
  interval?: number;
  /** What is awaited, for the error: "timed out after 5000 ms waiting for <message>"; a function is asked at the
   * timeout (for a message naming the state then, e.g. the logs so far). */
  message?: string | (() => string);
  /** When set, the wait ends on the first value it accepts (instead of the first truthy one). */
  ok?: (value: T) => boolean;
}

export async function until<T>(check: () => T | Promise<T>, opts: UntilOptions<T> & { ok: (value: T) => boolean }): Promise<T>;
export async function until<T>(check: () => T | Promise<T>, opts?: Omit<UntilOptions<T>, 'ok'>): Promise<NonNullable<T>>;
export async function until<T>(check: () => T | Promise<T>, opts: UntilOptions<T> = {}): Promise<T> {
  const { timeout = 5000, interval = 10, message = 'the condition', ok = Boolean } = opts;
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await check();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${typeof message === 'function' ? message() : message} (last: ${shown(value)})`);
    await new Promise((r) => (interval > 0 ? setTimeout(r, interval) : setImmediate(r)));
  }
}

function shown(v: unknown): string {
  let s: string;
  try { s = JSON.stringify(v) ?? String(v); } catch { s = String(v); }
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

/**
 * The one way a test lets real time pass on purpose: a stretch in which something must NOT happen ("no second
 * webhook", "no reply while paused"), after which the caller asserts that nothing came; or, in a scenario about
 * time, a person's pause (a visitor reads the reply, then writes again). `why` names what must not happen or who
 * pauses (it reads as the comment at the call). Prefer a positive signal when there is one (a later event that
 * proves the earlier one was skipped); never use this to wait for something to happen: that is `until`.
 *
 *   await quietFor(500, 'a second delivery of the same event');
 *   assert.is(receiver.seen.length, 1);
 */
export function quietFor(ms: number, why: string): Promise<void> {
  if (!why) throw new Error('quietFor needs to say what must not happen');
  return new Promise((r) => setTimeout(r, ms));
}
