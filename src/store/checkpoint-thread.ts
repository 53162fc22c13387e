import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../kernel/thread-priority.js';
import { openSqlite } from './sqlite.js';

/**
 * The embedded store's checkpoint thread (src/store/embedded-checkpoint.ts): with a connection of its own, a
 * PASSIVE checkpoint every `everyMs` (it never blocks the writer; busy: the next round tries again), and a last
 * one when told to stop. Background work: its nice value goes up by 10, so the event loop gets a core first.
 */
lowerThreadPriority(10);
const { file, everyMs } = workerData as { file: string; everyMs: number };
const port = parentPort!;
const db = openSqlite(file);
db.pragma('busy_timeout = 1000');
const checkpoint = () => { try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy: next round */ } };
const timer = setInterval(checkpoint, everyMs);
port.on('message', () => { clearInterval(timer); checkpoint(); db.close(); port.close(); });
