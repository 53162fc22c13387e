/**
 * A full disk (docs/operations.md, "Disk full"): a write the store refuses for lack of space is answered 507
 * with a message naming the disk and what to do, /readyz reports the process not ready and
 * servicechat_disk_full is 1. Nothing has to be restarted: once space is freed the next write works, and the
 * readiness check, which tries a small write while the disk is known full, clears the state.
 */
import type { Clock } from '../kernel/clock.js';
import { ApiError } from '../kernel/errors.js';
import type { Logger } from '../kernel/log.js';
import type { DocumentStore } from './types.js';

/**
 * What the disk state needs of a server (its AppContext): kept to these fields so the store layer, the REST API, the
 * widget socket and the conversation actors can all use this module without importing the app.
 */
export interface DiskOwner {
  readonly config: { readonly dataDir: string };
  readonly log: Logger;
  readonly clock: Clock;
  readonly store: DocumentStore;
}

/** SQLite, Node and MongoDB's ways of saying the disk is full (or the quota used up). */
export function isDiskFull(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const { code, codeName, message } = err as { code?: unknown; codeName?: unknown; message?: unknown };
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT' || code === 14031 || codeName === 'OutOfDiskSpace') return true;
  return typeof message === 'string' && /database or disk is full|no space left on device/i.test(message);
}

/** Where the data lives, as the messages name it. */
export const dataDisk = (app: DiskOwner) =>
  app.store.kind === 'mongo' ? 'the MongoDB server\'s disk' : `the disk holding the data folder ${app.config.dataDir}`;

class DiskState {
  /** When a write first failed for lack of space (null: no known problem). */
  fullSince: number | null = null;
  constructor(private app: DiskOwner) {}

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

const states = new WeakMap<DiskOwner, DiskState>();
/** The disk state of a server (one per app). */
export function diskState(app: DiskOwner): DiskState {
  let state = states.get(app);
  if (!state) states.set(app, (state = new DiskState(app)));
  return state;
}

export function diskFullError(app: DiskOwner): ApiError {
  return new ApiError('insufficient_storage', 507,
    `the server could not save this because ${dataDisk(app)} is full; nothing was changed. Try again in a few minutes; if it persists, tell the server's operator to free space on that disk.`,
    { 'Retry-After': '60' });
}

/**
 * The widget socket's refusal of a visitor's message the full disk could not store: the REST API's 507 in a
 * visitor's words (the data folder is the operator's business, not theirs). Records the episode as REST does.
 */
export function diskFullFrame(app: DiskOwner, err: unknown): { code: 'insufficient_storage'; message: string; retryAfterMs: number } {
  diskState(app).refused(err);
  return {
    code: 'insufficient_storage',
    message: 'your message could not be saved because the server has run out of storage space; it was not sent. Please try again in a few minutes.',
    retryAfterMs: 60_000,
  };
}
