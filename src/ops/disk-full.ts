/**
 * A full disk (docs/operations.md, "Disk full"): a write the store refuses for lack of space is answered 507
 * with a message naming the disk and what to do, /readyz reports the process not ready and
 * servicechat_disk_full is 1. Nothing has to be restarted: once space is freed the next write works, and the
 * readiness check, which tries a small write while the disk is known full, clears the state.
 */
import type { AppContext } from '../app.js';
import { perApp } from '../app.js';
import { ApiError } from '../kernel/errors.js';

/** SQLite, Node and MongoDB's ways of saying the disk is full (or the quota used up). */
export function isDiskFull(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const { code, codeName, message } = err as { code?: unknown; codeName?: unknown; message?: unknown };
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT' || code === 14031 || codeName === 'OutOfDiskSpace') return true;
  return typeof message === 'string' && /database or disk is full|no space left on device/i.test(message);
}

/** Where the data lives, as the messages name it. */
export const dataDisk = (app: AppContext) =>
  app.store.kind === 'mongo' ? 'the MongoDB server\'s disk' : `the disk holding the data folder ${app.config.dataDir}`;

class DiskState {
  /** When a write first failed for lack of space (null: no known problem). */
  fullSince: number | null = null;
  constructor(private app: AppContext) {}

  /** Records the failure (logged once per episode) and gives the error the caller answers. */
  refused(err: unknown): ApiError {
    if (this.fullSince === null) {
      this.fullSince = this.app.clock.now();
      this.app.log.error({ err, disk: dataDisk(this.app) }, 'disk full: writes fail until space is freed');
    }
    return diskFullError(this.app);
  }

  /** Readiness: null when writes work. While the disk is known full, a small write tells whether space came back. */
  async check(): Promise<string | null> {
    if (this.fullSince === null) return null;
    try {
      await this.app.store.collection<{ _id: string; workspaceId: string; at: number }>('server_health').replaceOne({ _id: 'disk-probe', workspaceId: '_server', at: this.app.clock.now() });
    } catch (err) {
      if (isDiskFull(err)) return `${dataDisk(this.app)} is full: writes (messages, sign-ins, changes) fail until space is freed there`;
      throw err;
    }
    this.fullSince = null;
    this.app.log.warn({ disk: dataDisk(this.app) }, 'disk full no more: writes work again');
    return null;
  }
}

export const diskState = perApp((app) => new DiskState(app));

export function diskFullError(app: AppContext): ApiError {
  return new ApiError('insufficient_storage', 507,
    `the server could not save this because ${dataDisk(app)} is full; nothing was changed. Try again in a few minutes; if it persists, tell the server's operator to free space on that disk.`,
    { 'Retry-After': '60' });
}
