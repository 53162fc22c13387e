/**
 * The data folder is the server's alone (docs/operations.md): folders 700, files 600. New ones get these modes
 * from the process's umask (SQLite databases, their -wal/-shm files, stored files, vectors) set when the server
 * starts; `service-chat check` and the start-up log name anything looser.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
const MAX_ENTRIES = 20_000;

/** Everything this process creates from now on is for its own user only (umask 077); main thread only. */
export function restrictNewFiles(): void {
  if (isMainThread) process.umask(0o077);
}

/** Paths under dir (dir included) that group or others may read, write or enter, with their modes; a bounded walk. */
export function looseModes(dir: string): Array<{ path: string; mode: number; dir: boolean }> {
  const loose: Array<{ path: string; mode: number; dir: boolean }> = [];
  const queue = [dir];
  let seen = 0;
  while (queue.length && seen < MAX_ENTRIES) {
    const path = queue.shift()!;
    seen++;
    let st;
    try { st = lstatSync(path); } catch { continue; }
    if (st.isSymbolicLink()) continue;
    const mode = st.mode & 0o777;
    if (mode & 0o077) loose.push({ path, mode, dir: st.isDirectory() });
    if (st.isDirectory()) {
      try { for (const name of readdirSync(path)) queue.push(join(path, name)); } catch { /* unreadable: reported by the access check */ }
    }
  }
  return loose;
}

/** A line for a person: what is loose and the command that fixes it. */
export function looseModesAdvice(dir: string, loose: ReturnType<typeof looseModes>): string {
  const shown = loose.slice(0, 5).map((l) => `${l.path} (${l.mode.toString(8)})`).join(', ');
  const more = loose.length > 5 ? ` and ${loose.length - 5} more` : '';
  return `${loose.length} item(s) in the data folder can be read by other local users: ${shown}${more}. Fix: chmod -R go-rwx ${dir}`;
}
