import type { SqliteDatabase } from './sqlite.js';
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileMeta, FileStore } from './types.js';

const SAFE = /^[A-Za-z0-9_-]{1,128}$/;

/** Files under DATA_DIR/files/<workspace>/<id>; metadata in the SQLite file. Written to a temp file, synced, renamed. */
export class EmbeddedFileStore implements FileStore {
  constructor(private db: SqliteDatabase, private dir: string) {
    db.exec('CREATE TABLE IF NOT EXISTS files (id TEXT PRIMARY KEY, ws TEXT NOT NULL, meta TEXT NOT NULL) WITHOUT ROWID');
    db.exec('CREATE INDEX IF NOT EXISTS files__ws ON files (ws)');
  }

  private path(workspaceId: string, id: string): string {
    if (!SAFE.test(workspaceId) || !SAFE.test(id)) throw new Error('bad file id');
    return join(this.dir, workspaceId, id);
  }

  async put(id: string, data: Buffer, meta: FileMeta): Promise<void> {
    const target = this.path(meta.workspaceId, id);
    await mkdir(join(this.dir, meta.workspaceId), { recursive: true });
    // A unique temp name: two puts of one id at once must not write into the same temp file.
    const tmp = `${target}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
    try {
      const fh = await open(tmp, 'w');
      try { await fh.writeFile(data); await fh.sync(); } finally { await fh.close(); }
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    // An id names one file: if it lived in another workspace before, that copy goes.
    const prev = this.db.prepare('SELECT ws FROM files WHERE id = ?').get(id) as { ws: string } | undefined;
    if (prev && prev.ws !== meta.workspaceId) await rm(this.path(prev.ws, id), { force: true });
    this.db.prepare('INSERT INTO files (id, ws, meta) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET ws = excluded.ws, meta = excluded.meta')
      .run(id, meta.workspaceId, JSON.stringify({ ...meta, size: data.length }));
  }

  async get(workspaceId: string, id: string) {
    const row = this.db.prepare('SELECT meta FROM files WHERE id = ? AND ws = ?').get(id, workspaceId) as { meta: string } | undefined;
    if (!row) return null;
    try {
      return { data: await readFile(this.path(workspaceId, id)), meta: JSON.parse(row.meta) as FileMeta };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const r = this.db.prepare('DELETE FROM files WHERE id = ? AND ws = ?').run(id, workspaceId);
    await rm(this.path(workspaceId, id), { force: true });
    return r.changes > 0;
  }

  async deleteWorkspace(workspaceId: string): Promise<number> {
    if (!SAFE.test(workspaceId)) throw new Error('bad workspace id');
    const r = this.db.prepare('DELETE FROM files WHERE ws = ?').run(workspaceId);
    await rm(join(this.dir, workspaceId), { recursive: true, force: true });
    return r.changes;
  }
}
