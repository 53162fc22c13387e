import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SQLITE_DRIVER } from './sqlite.js';

/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever commit crosses
 * wal_autocheckpoint pages, on the caller's thread: it copies pages into the database file and fsyncs it,
 * which stalls the event loop for tens of milliseconds under load. After enough writes the store turns the
 * automatic checkpoint off and this worker, with its own connection, runs PASSIVE checkpoints (they never
 * block the writer) every few hundred milliseconds. Durability is unchanged: commits still go to the WAL
 * exactly as before; only the copy into the main file moves.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// Background work: this thread's nice value goes up by 10 (Linux: per thread), as src/kernel/thread-priority.ts does.
if (process.platform === 'linux') { try { const os = require('node:os'); os.setPriority(Math.min(19, os.getPriority() + 10)); } catch {} }
// The same driver as the main connection (src/store/sqlite.ts): better-sqlite3, or node:sqlite on Node 24+.
const db = workerData.driver === 'node:sqlite' ? new (require('node:sqlite').DatabaseSync)(workerData.file) : new (require(workerData.driver))(workerData.file);
db.exec('PRAGMA busy_timeout = 1000');
const checkpoint = () => { try { db.exec('PRAGMA wal_checkpoint(PASSIVE)'); } catch { /* busy: next round */ } };
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', () => { clearInterval(timer); checkpoint(); db.close(); parentPort.close(); });
`;

export interface Checkpointer { stop(): Promise<void> }

export function startCheckpointer(file: string, everyMs = 250): Checkpointer {
  const driver = SQLITE_DRIVER === 'node:sqlite' ? 'node:sqlite' : createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, everyMs } });
  // The checkpointer never keeps the process alive; close() stops it.
  worker.unref();
  worker.on('error', () => { /* the main connection's own checkpoint at close still runs */ });
  let stopped: Promise<void> | null = null;
  return {
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        const done = setTimeout(() => { void worker.terminate().then(() => resolve()); }, 2000);
        worker.once('exit', () => { clearTimeout(done); resolve(); });
        worker.postMessage('stop');
      });
      return stopped;
    },
  };
}
