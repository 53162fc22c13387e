import { parentPort, workerData } from 'node:worker_threads';
import type { StoreReply } from './embedded-wire.js';
import { lexicalWrites } from './lexical-writes.js';
import { openSqlite } from './sqlite.js';
import { lowerThreadPriority } from '../kernel/thread-priority.js';

/**
 * The lexical index's writer (src/store/lexical-embedded.ts): the one connection that writes lexical.db in this
 * process, so FTS5's work for a large document (seconds for 20,000 passages) never sits on the event loop, which
 * keeps its own connection for searches (WAL: a search never waits for this writer, and sees a document's old
 * entries or its new ones). Requests run in arrival order, each one transaction, answered after its commit.
 */
export type LexicalRequest = (
  | { op: 'upsert'; args: Parameters<ReturnType<typeof lexicalWrites>['upsert']> }
  | { op: 'replaceDocument'; args: Parameters<ReturnType<typeof lexicalWrites>['replaceDocument']> }
  | { op: 'deleteWhere'; args: Parameters<ReturnType<typeof lexicalWrites>['deleteWhere']> }
  | { op: 'setStamp'; args: Parameters<ReturnType<typeof lexicalWrites>['setStamp']> }
  | { op: 'splitHeadings'; args: [] }
  | { op: 'close' }
) & { id: number };

const { file } = workerData as { file: string };
const port = parentPort!;
// Indexing a large document is background work: the event loop (which keeps its own connection for searches)
// gets the core first. The same increment as the worker pool's ingest lane.
lowerThreadPriority(10);
const db = openSqlite(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000'); // the processes of a scale-out group on one machine share the file
const writes = lexicalWrites(db);

port.on('message', (req: LexicalRequest) => {
  let reply: StoreReply;
  if (req.op === 'close') {
    db.close();
    port.postMessage([{ id: req.id, ok: true, value: null }]);
    port.close();
    return;
  }
  try {
    const fn = writes[req.op] as (...a: unknown[]) => number;
    reply = { id: req.id, ok: true, value: fn(...req.args) };
  } catch (err) {
    const code = (err as { code?: unknown })?.code;
    reply = { id: req.id, ok: false, error: { kind: 'error', message: (err as Error)?.message ?? String(err), ...(typeof code === 'string' ? { code } : {}) } };
  }
  port.postMessage([reply]);
});
