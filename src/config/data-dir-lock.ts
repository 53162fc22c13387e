import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './data-dir-modes.js';
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './index.js';

/**
 * One server process per DATA_DIR: the embedded store, the lexical index and the stored files under it are
 * opened by exactly one process, so two `npm start`s can never write the same SQLite files. The lock is a
 * file holding the owner's pid; a lock left by a process that is gone (kill -9, a crash, a container
 * restart) is taken over. Scale-out (several processes sharing one host's store on purpose) replaces the
 * single call of lockDataDir in src/server.ts, and nothing else (docs/decisions.md).
 */
export const LOCK_FILE = 'server.lock';

interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
  /** The process's start time in clock ticks since boot (Linux), so a reused pid is not taken for the owner. */
  procStart: string | null;
  /** Scale-out: the group whose worker processes may share this folder with the holder (src/scale/supervisor.ts). */
  group?: string;
}

export interface DataDirLock {
  readonly file: string;
  /** Removes the lock file if it is still this process's. */
  release(): void;
}

/** Lock files this process holds: a second server in the same process is refused as well. */
const heldHere = new Set<string>();

/** Field 22 (starttime) and field 3 (state) of /proc/<pid>/stat; null where there is no /proc. */
function procStat(pid: number): { state: string; start: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // the name in parentheses may hold spaces
    return { state: fields[0], start: fields[19] };
  } catch {
    return null;
  }
}

/** Whether the process that wrote the lock still runs (a zombie or a new process under the same pid does not count). */
export function lockHolderAlive(info: Pick<LockInfo, 'pid' | 'procStart'>): boolean {
  try {
    process.kill(info.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false; // ESRCH: no such process
  }
  const stat = procStat(info.pid);
  if (!stat) return true;
  if (stat.state === 'Z') return false;
  return !info.procStart || stat.start === info.procStart;
}

function parse(raw: string): LockInfo | null {
  try {
    const o = JSON.parse(raw);
    return Number.isInteger(o?.pid) && typeof o.host === 'string' ? o : null;
  } catch {
    return null;
  }
}

function readRaw(file: string): string | null {
  try { return readFileSync(file, 'utf8'); } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function refusal(dir: string, file: string, holder: LockInfo): ConfigError {
  const who = `process ${holder.pid}${holder.host !== hostname() ? ` on host ${holder.host}` : ''}, started ${holder.startedAt}`;
  const also = holder.host !== hostname()
    ? ` If no server runs there any more, delete ${file}.`
    : '';
  return new ConfigError(
    `DATA_DIR ${dir} is in use by another server (${who}). Two servers must not open the same data folder: ` +
    `stop the other one first, or give this one its own DATA_DIR (and PORT).${also}`,
  );
}

/** Takes the lock on `dir` (created if missing) or throws a ConfigError naming the folder and the process holding it. */
export function lockDataDir(dir: string, now: Date = new Date(), group?: string): DataDirLock {
  try {
    return takeLock(dir, now, group);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
      throw new ConfigError(`DATA_DIR ${dir} cannot be written (${code}): give the server's user write access to it, or set DATA_DIR to a folder it can write.`);
    }
    throw err;
  }
}

/**
 * A worker of a scale-out group shares the folder its supervisor locked: allowed only while the lock is held by
 * a running process and names this worker's group (a secret handed down by the supervisor), so the lock still
 * refuses every server that is not a member.
 */
export function joinDataDirLock(dir: string, group: string): DataDirLock {
  const file = join(dir, LOCK_FILE);
  const holder = parse(readRaw(file) ?? '');
  if (!holder || holder.group !== group || !lockHolderAlive(holder)) {
    throw new ConfigError(`DATA_DIR ${dir} is not held by this worker's supervisor; start the server with WORKERS (npm start), not its workers one by one.`);
  }
  return { file, release() { /* the supervisor's lock */ } };
}

function takeLock(dir: string, now: Date, group?: string): DataDirLock {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const file = join(dir, LOCK_FILE);
  if (heldHere.has(file)) {
    throw new ConfigError(`DATA_DIR ${dir} is already open in this process; stop the first server before starting another on the same folder.`);
  }
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), startedAt: now.toISOString(), procStart: procStat(process.pid)?.start ?? null, ...(group ? { group } : {}) } satisfies LockInfo) + '\n';
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, mine, { flag: 'wx', mode: PRIVATE_FILE_MODE }); // the data folder is the server's alone (data-dir-modes.ts)
      heldHere.add(file);
      return {
        file,
        release() {
          heldHere.delete(file);
          if (readRaw(file) === mine) unlinkSync(file);
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let raw = readRaw(file);
    // Unreadable: another starter is between creating and writing it (wait a moment), or one crashed there.
    if (raw !== null && !parse(raw)) { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100); raw = readRaw(file); }
    if (raw === null) continue; // released meanwhile
    const holder = parse(raw);
    // This pid but not held here: written by an earlier process that had the same pid (a restarted container).
    const earlierSelf = holder?.pid === process.pid && holder.host === hostname();
    if (holder && !earlierSelf && (holder.host !== hostname() || lockHolderAlive(holder))) throw refusal(dir, file, holder);
    // Stale: move it aside, and make sure it is the one judged stale (another starter may have replaced it).
    const aside = `${file}.stale-${process.pid}`;
    try { renameSync(file, aside); } catch { continue; }
    if (readRaw(aside) === raw) unlinkSync(aside);
    else renameSync(aside, file);
  }
  const holder = parse(readRaw(file) ?? '');
  if (holder) throw refusal(dir, file, holder);
  throw new ConfigError(`could not lock DATA_DIR ${dir}: ${file} keeps changing; is another server starting on the same folder?`);
}
