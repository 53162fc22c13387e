import { GridFSBucket, ObjectId, type Db, type GridFSFile } from 'mongodb';
import type { FileMeta, FileStore } from './types.js';

const BATCH = 500;

/**
 * Files in GridFS (bucket `files`). Each put uploads a new GridFS file named after our id and then removes
 * the older versions, so a reader always sees a whole file, old or new. GridFS ObjectIds grow over time,
 * so "newest version" is the highest `_id`, and concurrent puts of one id never delete each other's upload.
 */
export class MongoFileStore implements FileStore {
  private bucket: GridFSBucket;
  private ready: Promise<unknown>;

  constructor(private db: Db) {
    this.bucket = new GridFSBucket(db, { bucketName: 'files', writeConcern: { w: 'majority' } });
    // GridFS creates its own (filename, uploadDate) index; deleteWorkspace needs the workspace one.
    this.ready = db.collection('files.files').createIndex({ 'metadata.workspaceId': 1 }, { name: 'metadata_ws' });
    this.ready.catch(() => undefined);
  }

  private versions(workspaceId: string | null, id: string) {
    const q: Record<string, unknown> = { filename: id };
    if (workspaceId !== null) q['metadata.workspaceId'] = workspaceId;
    return this.bucket.find(q).sort({ _id: -1 });
  }

  async put(id: string, data: Buffer, meta: FileMeta): Promise<void> {
    await this.ready;
    const fileId = new ObjectId();
    await new Promise<void>((resolve, reject) => {
      const up = this.bucket.openUploadStreamWithId(fileId, id, { metadata: { ...meta, size: data.length } });
      up.once('error', reject);
      up.once('finish', () => resolve());
      up.end(data);
    });
    // Older versions, in any workspace: an id names one file, as in the embedded adapter.
    const older = await this.bucket.find({ filename: id, _id: { $lt: fileId } }).project({ _id: 1 }).toArray();
    await this.remove(older.map((f) => f._id as ObjectId));
  }

  async get(workspaceId: string, id: string): Promise<{ data: Buffer; meta: FileMeta } | null> {
    // A concurrent put removes the version being read; look up the newest one again (a few times at most).
    for (let attempt = 0; attempt < 3; attempt++) {
      const [file] = await this.versions(workspaceId, id).limit(1).toArray();
      if (!file) return null;
      try {
        return { data: await this.download(file), meta: file.metadata as FileMeta };
      } catch (err) {
        if (!/^(FileNotFound|ChunkIsMissing)/.test((err as Error).message ?? '')) throw err;
      }
    }
    return null;
  }

  private download(file: GridFSFile): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      this.bucket.openDownloadStream(file._id as ObjectId)
        .on('data', (c: Buffer) => parts.push(c))
        .once('error', reject)
        .once('end', () => resolve(Buffer.concat(parts)));
    });
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const files = await this.versions(workspaceId, id).project({ _id: 1 }).toArray();
    return (await this.remove(files.map((f) => f._id as ObjectId))) > 0;
  }

  async deleteWorkspace(workspaceId: string): Promise<number> {
    await this.ready;
    const names = new Set<string>();
    for (;;) {
      const files = await this.bucket.find({ 'metadata.workspaceId': workspaceId }).project({ _id: 1, filename: 1 }).limit(BATCH).toArray();
      if (!files.length) break;
      for (const f of files) names.add(f.filename as string);
      await this.remove(files.map((f) => f._id as ObjectId));
    }
    return names.size;
  }

  /** Deletes file documents first (so nobody finds them), then their chunks. Returns files removed. */
  private async remove(ids: ObjectId[]): Promise<number> {
    let n = 0;
    for (let i = 0; i < ids.length; i += BATCH) {
      const part = ids.slice(i, i + BATCH);
      n += (await this.db.collection('files.files').deleteMany({ _id: { $in: part } }, { writeConcern: { w: 'majority' } })).deletedCount;
      await this.db.collection('files.chunks').deleteMany({ files_id: { $in: part } }, { writeConcern: { w: 'majority' } });
    }
    return n;
  }
}
