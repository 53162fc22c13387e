import type { SqliteDatabase } from './sqlite.js';

/**
 * Group commit for the embedded store. The first write of an event-loop turn opens a transaction, every
 * write of that turn joins it, and one COMMIT at setImmediate ends it. Writes run at once (later reads on
 * this connection see them), but a write's promise settles only after the commit, so an acknowledged write
 * survives a crash exactly as before; many actors writing in one turn share one commit instead of paying
 * one each (a commit costs about as much as the write itself).
 *
 * A failing statement rolls back alone (SQLite's statement-level ABORT) and rejects only its own write;
 * multi-statement writes wrap themselves in a nested transaction (a savepoint). A failed COMMIT rejects
 * every write of the turn.
 */
export class GroupCommit {
  private pending: { done: Promise<void>; resolve(): void; reject(err: unknown): void } | null = null;

  constructor(private db: SqliteDatabase) {}

  /** Runs fn inside this turn's transaction and resolves with its result once that transaction commits. */
  run<R>(fn: () => R): Promise<R> {
    const done = this.join();
    let out: R;
    try { out = fn(); } catch (err) { return Promise.reject(err); }
    return done.then(() => out);
  }

  /** Commits the open transaction now (before closing the database). */
  flush(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    try {
      this.db.exec('COMMIT');
      p.resolve();
    } catch (err) {
      try { this.db.exec('ROLLBACK'); } catch { /* already rolled back */ }
      p.reject(err);
    }
  }

  private join(): Promise<void> {
    if (this.pending) return this.pending.done;
    this.db.exec('BEGIN');
    let resolve!: () => void, reject!: (err: unknown) => void;
    const done = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
    done.catch(() => { /* every writer observes it; a write that failed on its own must not leave it unhandled */ });
    this.pending = { done, resolve, reject };
    setImmediate(() => this.flush());
    return done;
  }
}
