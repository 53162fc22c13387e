/**
 * The data folder: check it, back it up while the server runs, restore it while the server is stopped.
 * Databases are copied with SQLite's online backup (a consistent snapshot even while the server writes), then
 * the stored files: every file a record in the snapshot names was written before the snapshot, so it is there.
 */
import { looseModes, looseModesAdvice } from '../config/data-dir-modes.js';
import { accessSync, constants, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { LOCK_FILE, lockDataDir, lockHolderAlive } from '../config/data-dir-lock.js';
import { ConfigError, SERVER_VERSION, type Config } from '../config/index.js';
import { SQLITE_DRIVER } from '../store/sqlite.js';
import { CommandError, UsageError } from './context.js';

const require = createRequire(import.meta.url);
/** The embedded adapters' databases; lexical.db and vectors.db exist once knowledge was indexed. */
const DATABASES = ['service.db', 'lexical.db', 'vectors.db'];
const MANIFEST = 'backup.json';

function embeddedOnly(config: Config, what: string): void {
  if (config.mongodbUrl) throw new CommandError(`${what} covers the embedded store only; with MONGODB_URL back up MongoDB with mongodump/mongorestore (docs/operations.md)`);
}

/** The server that holds the folder's lock, if one runs. */
function runningServer(dir: string): { pid: number; host: string; startedAt: string } | null {
  try {
    const info = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'));
    return lockHolderAlive(info) ? info : null;
  } catch { return null; }
}

async function sqliteBackup(from: string, to: string): Promise<void> {
  if (SQLITE_DRIVER === 'better-sqlite3') {
    const Database = require('better-sqlite3');
    const db = new Database(from, { readonly: true, fileMustExist: true });
    try { await db.backup(to); } finally { db.close(); }
    return;
  }
  const sqlite = require('node:sqlite') as { DatabaseSync: new (f: string, o?: object) => { close(): void }; backup(db: unknown, path: string): Promise<number> };
  const db = new sqlite.DatabaseSync(from, { readOnly: true });
  try { await sqlite.backup(db, to); } finally { db.close(); }
}

function quickCheck(file: string): string {
  const Database = SQLITE_DRIVER === 'better-sqlite3' ? require('better-sqlite3') : null;
  if (!Database) return 'ok (not checked on this Node version)';
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try { return String(db.pragma('quick_check', { simple: true })); } finally { db.close(); }
}

/** Checks the folder; returns the problems found (empty when all is well). */
export function checkDataDir(config: Config, out: (line: string) => void): string[] {
  const dir = config.dataDir;
  const problems: string[] = [];
  const line = (ok: boolean, text: string) => { out(`${ok ? 'ok  ' : 'FAIL'}  ${text}`); if (!ok) problems.push(text); };
  if (!existsSync(dir)) { line(false, `${dir} does not exist: set DATA_DIR (or --data-dir) to the server's data folder`); return problems; }
  try { accessSync(dir, constants.W_OK | constants.R_OK); line(true, `${dir} is readable and writable`); } catch { line(false, `${dir} is not writable by this user: the server must own it`); }
  const free = statfsSync(dir);
  const freeMb = Math.floor((free.bavail * free.bsize) / 1024 / 1024);
  line(freeMb >= 512, `${freeMb} MB free on its disk${freeMb < 512 ? ' (under 512 MB: free space or move DATA_DIR)' : ''}`);
  const server = runningServer(dir);
  out(`info  ${server ? `a server runs on it (pid ${server.pid}, started ${server.startedAt})` : 'no server runs on it now'}`);
  const secret = join(dir, 'secret.key');
  if (config.secretKey) out('info  the server secret comes from SECRET_KEY');
  else if (existsSync(secret)) {
    const mode = statSync(secret).mode & 0o777;
    line((mode & 0o077) === 0, `secret.key is present${(mode & 0o077) ? ` but readable by others (mode ${mode.toString(8)}): chmod 600 ${secret}` : ''}`);
  } else out('info  no secret.key yet (made at the first start)');
  const loose = looseModes(dir);
  out(loose.length ? `warn  ${looseModesAdvice(dir, loose)}` : 'ok    only this user can read the data folder (folders 700, files 600)');
  if (config.mongodbUrl) { out('info  documents are in MongoDB (MONGODB_URL): the folder holds only the lock'); return problems; }
  for (const name of DATABASES) {
    const file = join(dir, name);
    if (!existsSync(file)) { out(`info  ${name} not there yet`); continue; }
    const result = quickCheck(file);
    line(result === 'ok' || result.startsWith('ok '), `${name} (${Math.round(statSync(file).size / 1024)} KB) integrity: ${result}`);
  }
  return problems;
}

export async function backup(config: Config, outDir: string | undefined, out: (line: string) => void): Promise<void> {
  embeddedOnly(config, 'backup');
  if (!outDir) throw new UsageError('backup needs --out <folder> (a new or empty folder)');
  const dir = config.dataDir;
  const target = resolve(outDir);
  if (!existsSync(join(dir, 'service.db'))) throw new CommandError(`no database in ${dir} (service.db is missing): point DATA_DIR or --data-dir at the server's data folder`);
  if (existsSync(target) && readdirSync(target).length) throw new CommandError(`${target} is not empty: back up into a new folder`);
  mkdirSync(target, { recursive: true });
  const t0 = Date.now();
  const copied: string[] = [];
  for (const name of DATABASES) {
    if (!existsSync(join(dir, name))) continue;
    await sqliteBackup(join(dir, name), join(target, name));
    copied.push(name);
  }
  if (existsSync(join(dir, 'files'))) { cpSync(join(dir, 'files'), join(target, 'files'), { recursive: true }); copied.push('files/'); }
  if (existsSync(join(dir, 'secret.key'))) { copyFileSync(join(dir, 'secret.key'), join(target, 'secret.key')); copied.push('secret.key'); }
  writeFileSync(join(target, MANIFEST), JSON.stringify({ version: SERVER_VERSION, createdAt: new Date().toISOString(), from: dir, contents: copied }, null, 2) + '\n');
  out(`backed up ${copied.join(', ')} to ${target} in ${Date.now() - t0} ms`);
  if (copied.includes('secret.key')) out('the backup holds secret.key (it decrypts stored provider keys): keep it as safe as the server');
  else if (config.secretKey) out('the server secret comes from SECRET_KEY: keep it with the backup, or stored provider keys cannot be read after a restore');
}

export async function restore(config: Config, fromDir: string | undefined, out: (line: string) => void): Promise<void> {
  embeddedOnly(config, 'restore');
  if (!fromDir) throw new UsageError('restore needs --from <backup folder>');
  const source = resolve(fromDir);
  if (!existsSync(join(source, MANIFEST)) || !existsSync(join(source, 'service.db'))) throw new CommandError(`${source} is not a backup made by service-chat backup (no ${MANIFEST} or service.db)`);
  const dir = config.dataDir;
  mkdirSync(dir, { recursive: true });
  let lock;
  try { lock = lockDataDir(dir); } catch (err) {
    if (err instanceof ConfigError) throw new CommandError(`stop the server before restoring: ${err.message}`);
    throw err;
  }
  try {
    // What is there now is kept aside, not deleted: a restore can be undone by moving it back.
    const aside = join(dir, `before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    const present = [...DATABASES.flatMap((d) => [d, `${d}-wal`, `${d}-shm`]), 'files', 'secret.key'].filter((n) => existsSync(join(dir, n)));
    if (present.length) {
      mkdirSync(aside);
      for (const n of present) renameSync(join(dir, n), join(aside, n));
      out(`kept the current ${present.join(', ')} in ${aside}`);
    }
    const manifest = JSON.parse(readFileSync(join(source, MANIFEST), 'utf8')) as { contents: string[]; createdAt: string };
    for (const name of manifest.contents) {
      const from = join(source, name.replace(/\/$/, ''));
      if (name.endsWith('/')) cpSync(from, join(dir, name.slice(0, -1)), { recursive: true });
      else copyFileSync(from, join(dir, name));
    }
    out(`restored the backup of ${manifest.createdAt} into ${dir}; start the server`);
  } finally {
    lock.release();
  }
}
