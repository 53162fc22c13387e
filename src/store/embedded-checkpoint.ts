import { startThread } from './thread-client.js';

/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever commit crosses
 * wal_autocheckpoint pages, on the caller's thread: it copies pages into the database file and fsyncs it,
 * which stalls the event loop for tens of milliseconds under load. After enough writes the store turns the
 * automatic checkpoint off and a thread of its own (checkpoint-thread.ts), with its own connection, runs PASSIVE
 * checkpoints (they never block the writer) every few hundred milliseconds. Durability is unchanged: commits still go to the WAL
 * exactly as before; only the copy into the main file moves.
 */
export interface Checkpointer { stop(): Promise<void> }

export function startCheckpointer(file: string, everyMs = 250): Checkpointer {
  const worker = startThread('checkpoint-thread', { file, everyMs });
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
