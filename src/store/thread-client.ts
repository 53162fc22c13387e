import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { StoreReply, WireError } from './embedded-wire.js';

const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/**
 * Answers settled per turn of the event loop. One message can carry a whole transaction's answers (256 during a
 * burst of widget connects), and every caller's continuation runs when its answer settles: in slices, timers and
 * sockets get their turn between them. Answers settle only in the loop's check phase (setImmediate), one slice a
 * turn, whatever number of messages arrived together: a thread's messages waiting when the loop polls are all
 * delivered in that one poll.
 */
const SETTLE_SLICE = 16;

type Pending = { resolve(v: unknown): void; reject(e: Error): void };

/**
 * Starts the thread whose file in this folder is `name` (without extension). Under tsx (tests, `npm run dev`) the
 * thread runs the .ts source: a worker's entry does not go through the loader hooks inherited from the parent, so
 * the thread registers tsx's require hook itself.
 */
export function startThread(name: string, workerData: unknown): Worker {
  const entry = new URL(`./${name}${EXT}`, import.meta.url);
  return EXT === '.ts'
    ? new Worker(`require(${JSON.stringify(createRequire(import.meta.url).resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(fileURLToPath(entry))});`, { eval: true, workerData })
    : new Worker(entry, { workerData });
}

/**
 * The client side of a thread that owns a SQLite connection (the embedded store's, src/store/embedded-thread.ts;
 * the lexical index's writer, lexical-thread.ts): numbered requests, answers matched by number, sent in arrays
 * (one message per committed transaction). `name` is the thread's file in this folder, without extension.
 */
export class ThreadClient<Req extends { op: string; id: number }> {
  private worker: Worker;
  private pending = new Map<number, Pending>();
  private nextId = 1;
  private closed: Promise<void> | null = null;
  private broken: Error | null = null;
  /** Answers received and not yet settled, oldest first; `head` is the next one's index in `queue[0]`. */
  private queue: StoreReply[][] = [];
  private head = 0;
  private settling: NodeJS.Immediate | null = null;

  constructor(private name: string, private what: string, private workerData: unknown, private toError: (e: WireError) => Error) {
    this.worker = this.spawn();
  }

  private spawn(): Worker {
    const w = startThread(this.name, this.workerData);
    w.unref();
    let answered = false;
    w.on('message', (replies: StoreReply[]) => { answered = true; if (replies.length) this.queue.push(replies); this.settleSoon(); });
    // A thread that dies fails what it had not answered; a new one takes the next requests (unless it died
    // before answering anything: then the database cannot be opened and every request fails with the reason).
    const fail = (why: string) => {
      this.settle(Infinity); // what it answered before it stopped
      const err = new Error(`the ${this.what} thread stopped (${why}); the request was not applied`);
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      if (this.worker !== w || this.closed) return;
      if (answered) this.worker = this.spawn();
      else this.broken = err;
    };
    w.on('error', (err) => fail(err.message));
    w.on('exit', (code) => { if (code !== 0 || this.pending.size) fail(`exit ${code}`); });
    return w;
  }

  private settleSoon(): void {
    this.settling ??= setImmediate(() => { this.settling = null; this.settle(); });
  }

  private settle(budget = SETTLE_SLICE): void {
    while (budget > 0 && this.queue.length) {
      const replies = this.queue[0];
      const r = replies[this.head++];
      if (this.head === replies.length) { this.queue.shift(); this.head = 0; }
      const p = this.pending.get(r.id);
      if (!p) continue;
      budget--;
      this.pending.delete(r.id);
      if (r.ok) p.resolve(r.value);
      else p.reject(this.toError(r.error));
    }
    if (this.queue.length) { this.settleSoon(); return; }
    // The thread keeps the process alive only while it owes answers.
    if (this.pending.size === 0) this.worker.unref();
  }

  /** Shared memory in the request (SharedArrayBuffer views) reaches the thread without a copy. */
  request(req: Req extends infer R ? R extends { id: number } ? Omit<R, 'id'> : never : never): Promise<unknown> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.closed) return Promise.reject(new Error(`the ${this.what} is closed`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...req, id });
    });
  }

  /** Asks the thread to finish (op 'close': it answers what it holds, closes its database and exits). */
  close(): Promise<void> {
    if (this.closed) return this.closed;
    if (this.broken) return (this.closed = Promise.resolve());
    const id = this.nextId++;
    this.closed = new Promise<void>((resolve) => {
      const w = this.worker;
      w.ref();
      this.pending.set(id, { resolve: () => resolve(), reject: () => resolve() });
      w.once('exit', () => resolve());
      w.postMessage({ op: 'close', id });
    });
    return this.closed;
  }
}
