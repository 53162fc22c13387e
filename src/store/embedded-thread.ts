import { parentPort, workerData } from 'node:worker_threads';
import { startCheckpointer, type Checkpointer } from './embedded-checkpoint.js';
import { EmbeddedCollection } from './embedded-collection.js';
import { openSqlite } from './sqlite.js';
import { DuplicateKeyError, UnscopedQueryError, type CollectionSpec } from './types.js';
import type { StoreReply, StoreRequest, WireError } from './embedded-wire.js';

/**
 * The embedded store's thread: the only connection that writes documents, so SQLite's work (statements,
 * WAL appends) never sits on the event loop. Requests run in arrival order, each atomic; the requests that
 * arrive in one turn of this thread's loop share one transaction (group commit), and their answers are sent
 * only after its COMMIT, so an acknowledged write is in the WAL (synchronous=NORMAL keeps it across kill -9).
 * A request that fails rolls back alone (statement or savepoint); the others in its transaction still commit.
 */
const { file } = workerData as { file: string };
const port = parentPort!;
const db = openSqlite(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
// Deleted records are overwritten with zeros, not just marked free: erasure must not leave words in the file.
db.pragma('secure_delete = ON');

/** Calls that only read (everything else counts as a write). */
const READS = new Set(['findById', 'findOne', 'find', 'findFields', 'count']);
/** Requests answered per message at most; a longer burst commits and answers in parts. */
const MAX_BATCH = 256;
/** Writes after which checkpoints move to their own worker (small stores, such as tests', never start one). */
const CHECKPOINT_WORKER_AFTER_WRITES = 2000;

let writes = 0;
let checkpointer: Checkpointer | null = null;
const wrote = () => {
  if (checkpointer || ++writes < CHECKPOINT_WORKER_AFTER_WRITES) return;
  checkpointer = startCheckpointer(file);
  db.pragma('wal_autocheckpoint = 0');
};
const collections = new Map<string, EmbeddedCollection>();
const collection = (name: string, spec: CollectionSpec = {}) => {
  let c = collections.get(name);
  if (!c) { c = new EmbeddedCollection(db, name, spec, wrote); collections.set(name, c); }
  else if (spec.indexes?.length || spec.listFields?.length) c.ensureIndexes(spec);
  return c;
};

function wireError(err: unknown): WireError {
  if (err instanceof DuplicateKeyError) return { kind: 'duplicate', message: err.message, collection: err.collection };
  if (err instanceof UnscopedQueryError) return { kind: 'unscoped', message: err.message, collection: err.collection };
  const code = (err as { code?: unknown })?.code;
  return { kind: 'error', message: (err as Error)?.message ?? String(err), ...(typeof code === 'string' ? { code } : {}) };
}

/**
 * A fault drill (tests, `EmbeddedStore.injectWriteFault`): while set, every write fails before it runs with
 * this SQLite code and SQLite's own message, as on a full disk; reads still work, as they do on a full disk.
 */
let fault: string | null = null;
const FAULT_MESSAGES: Record<string, string> = { SQLITE_FULL: 'database or disk is full', SQLITE_IOERR: 'disk I/O error' };

function run(req: StoreRequest, write: boolean): unknown {
  if (fault && write) throw Object.assign(new Error(FAULT_MESSAGES[fault] ?? fault), { code: fault });
  switch (req.op) {
    case 'call': {
      const c = collection(req.collection) as unknown as Record<string, (...a: unknown[]) => unknown>;
      return c[req.method](...req.args);
    }
    case 'ensure': collection(req.collection, req.spec); return null;
    case 'drop': {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'c\\_%' ESCAPE '\\'").all() as { name: string }[];
      db.transaction(() => { for (const t of tables) db.prepare(`DELETE FROM "${t.name}" WHERE ws = ?`).run(req.workspaceId); })();
      return null;
    }
    case 'fault': fault = req.code; return null;
    default: throw new Error(`unknown store request ${(req as { op: string }).op}`);
  }
}

/**
 * How long a scrub keeps trying. A TRUNCATE checkpoint waits (busy_timeout) for writers and for readers on an
 * older snapshot, but not for another connection's checkpoint: while one runs (the checkpoint worker's, or the
 * file metadata connection's automatic one) SQLite answers busy at once. So it tries again after a pause.
 */
const SCRUB_DEADLINE_MS = 15_000;
const SCRUB_PAUSE_MS = 20;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * After deletes for erasure: the WAL still holds the pages as they were before (with the erased words), so it
 * is checkpointed into the database file (where the zeroed pages overwrite the old ones) and truncated.
 */
function scrub(): null {
  const deadline = Date.now() + SCRUB_DEADLINE_MS;
  for (;;) {
    const [r] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
    if (!r?.busy) return null;
    if (Date.now() >= deadline) break;
    Atomics.wait(pause, 0, 0, SCRUB_PAUSE_MS);
  }
  throw new Error(`the embedded store could not empty its write-ahead log within ${SCRUB_DEADLINE_MS / 1000} s (another connection kept reading or checkpointing); the erased records are deleted but may still be in service.db-wal until the next checkpoint: run the erasure again, or stop the server once (closing empties the log)`);
}

let batch: StoreReply[] = [];
let open = false;
/** The open transaction holds the write lock (BEGIN IMMEDIATE). */
let writing = false;

/**
 * Ends the open transaction and answers its requests. If SQLite rolled the transaction back by itself (disk
 * full, I/O error) or COMMIT fails, every write in it is lost, so each write is answered with that error.
 */
function commit(): void {
  if (!open) return;
  open = false;
  let lost: WireError | null = null;
  if (!db.inTransaction) lost = batch.find((r) => !r.ok)?.error ?? { kind: 'error', message: 'transaction rolled back' };
  else {
    try { db.exec('COMMIT'); } catch (err) { lost = wireError(err); }
    if (db.inTransaction) { try { db.exec('ROLLBACK'); } catch { /* already rolled back */ } }
  }
  const out = lost ? batch.map((r): StoreReply => (r.write && r.ok ? { id: r.id, ok: false, write: true, error: lost } : r)) : batch;
  batch = [];
  if (out.length) port.postMessage(out);
}

port.on('message', (req: StoreRequest) => {
  if (req.op === 'close') {
    commit();
    void (async () => {
      await checkpointer?.stop();
      db.close(); // the last connection to close checkpoints what is left
      port.postMessage([{ id: req.id, ok: true, value: null }]);
      port.close();
    })();
    return;
  }
  if (req.op === 'scrub') {
    commit(); // the deletes sent before it are committed first; a checkpoint cannot run inside a transaction
    let reply: StoreReply;
    try { reply = { id: req.id, ok: true, value: scrub() }; } catch (err) { reply = { id: req.id, ok: false, error: wireError(err) }; }
    port.postMessage([reply]);
    return;
  }
  const write = req.op !== 'fault' && (req.op !== 'call' || !READS.has(req.method));
  let reply: StoreReply;
  try {
    // A write in a batch begun by reads: those are answered first, and the write starts its own transaction.
    if (open && write && !writing) commit();
    // IMMEDIATE for writes: the transaction holds the write lock from its start, so a write by another
    // connection in between (the file metadata connection, or another process of a scale-out group sharing
    // the file) cannot leave it on a stale snapshot (SQLITE_BUSY without waiting). Reads alone begin a
    // deferred transaction: in WAL mode they never wait for a writer, so the processes of a group only queue
    // for the write lock when they write.
    if (!open) { db.exec(write ? 'BEGIN IMMEDIATE' : 'BEGIN'); open = true; writing = write; setImmediate(commit); }
    reply = { id: req.id, ok: true, write, value: run(req, write) };
  } catch (err) { reply = { id: req.id, ok: false, write, error: wireError(err) }; }
  batch.push(reply);
  if (!open) { open = true; commit(); } // BEGIN itself failed: answered at once
  else if (!db.inTransaction || batch.length >= MAX_BATCH) commit();
});
