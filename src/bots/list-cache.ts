/**
 * The bots list of each workspace, kept in memory (issue 27), so `GET /api/v1/bots` answers from memory, without
 * a store round trip, and within microtasks: uWS then answers pipelined requests for it in order. Each page is
 * kept as the bytes of its JSON answer.
 *
 * Filled on first read. Every write to the bots collection (records.ts hands out a collection that reports its
 * writes here) drops the workspace's list after the write and before the writer's request is answered, here and,
 * in a scale-out group, on every other process (an acknowledged broadcast, as for a revoked token). A list read
 * while a change was under way is never kept (`version`), and a request never joins such a read, so a client
 * never lists bots without a change it was already told succeeded. Past LIST_TTL_MS a list is served once more
 * while it is read again beside the request: that bounds how long a change made outside this server's code (a
 * store edited by hand, a group whose Redis was away) goes unseen, without making a request wait.
 */
import { KeptReads } from '../kernel/kept-reads.js';
import type { AppContext } from '../app/context.js';
import { provided } from '../app/context.js';
import type { WorkspaceDeletion } from '../auth/workspace-cleanup.js';
import type { Collection, Doc, Filter } from '../store/types.js';
import type { BotStatus } from './records.js';

export interface BotListItem {
  id: string; name: string; status: BotStatus; revision: number;
  publishedVersion: number | null; publishedAt: number | null; createdAt: number; updatedAt: number;
}

export const LIST_TTL_MS = 2_000;
export const DEFAULT_PAGE = 50;
/** Workspaces with more bots are listed from the store, page by page (lists this long are rare). */
export const MAX_KEPT_BOTS = 1_000;
/** Workspaces kept at most (the least recently listed go first). */
const MAX_WORKSPACES = 10_000;
/** Pages kept per workspace besides the first (other limits and `before` cursors). */
const MAX_OTHER_PAGES = 8;

/** Reads a workspace's whole list (newest first), or null when it holds more than MAX_KEPT_BOTS. */
export type ListLoader = (workspaceId: string) => Promise<BotListItem[] | null>;

interface Entry {
  /** Newest first, as the store lists them; null when the workspace has too many bots to keep. */
  items: readonly BotListItem[] | null;
  until: number;
  first: Buffer | null;
  others: Map<string, Buffer>;
}

/** One page as the API answers it: ids sort newest first, `before` is an id cursor (as the store pages). */
export function pageOf(items: readonly BotListItem[], limit: number, before?: string) {
  let start = 0;
  if (before !== undefined) {
    while (start < items.length && !(items[start].id < before)) start++;
  }
  const shown = items.slice(start, start + limit);
  return { items: shown, nextBefore: items.length > start + limit ? shown[shown.length - 1].id : null };
}

export class BotLists {
  private readonly kept: KeptReads<Entry>;
  /** Told of every drop: other memory of a workspace's bots (chat-bot-cache.ts) goes with its list. */
  private readonly dropListeners: Array<(workspaceId: string | null) => void> = [];
  /** Drops so far: of every workspace at once, and of each workspace (generation()). */
  private droppedAll = 0;
  private readonly dropped = new Map<string, number>();

  constructor(private app: AppContext) {
    this.kept = new KeptReads<Entry>(MAX_WORKSPACES, () => app.clock.now());
  }

  /**
   * The page's JSON bytes: at once when the list is kept, else once it is read. Null when the workspace has too
   * many bots to keep (the caller reads the page from the store).
   */
  page(workspaceId: string, load: ListLoader, limit = DEFAULT_PAGE, before?: string): Buffer | null | Promise<Buffer | null> {
    const read = () => load(workspaceId).then((items): Entry => ({ items, until: this.app.clock.now() + LIST_TTL_MS, first: null, others: new Map() }));
    const kept = this.kept.kept(workspaceId, read, (err) => this.app.log.warn({ err, workspaceId }, 'reading the bots list again failed'));
    if (!kept) return this.kept.read(workspaceId, read).then((e) => bodyOf(e, limit, before));
    return bodyOf(kept, limit, before);
  }

  /** Whether a workspace's list is kept now (for tests). */
  keeps(workspaceId: string): boolean {
    return this.kept.entries.has(workspaceId);
  }

  /** Forgets a workspace's list (null: every workspace's), on this process only. */
  drop(workspaceId: string | null): void {
    this.kept.drop();
    if (workspaceId === null) { this.kept.entries.clear(); this.droppedAll++; } else {
      this.kept.entries.delete(workspaceId);
      this.dropped.set(workspaceId, (this.dropped.get(workspaceId) ?? 0) + 1);
    }
    for (const fn of this.dropListeners) fn(workspaceId);
  }

  /**
   * Changes whenever the workspace's bots or provider connections change (a drop here or told by another process):
   * what a conversation holds of its bot (status, brain: the connection's key and base URL) is read again then.
   */
  generation(workspaceId: string): number {
    // Both counts only grow, so their sum moves with either.
    return this.droppedAll + (this.dropped.get(workspaceId) ?? 0);
  }

  /** Calls `fn` with every drop (a write to the workspace's bots here, or one another process told of). */
  onDrop(fn: (workspaceId: string | null) => void): void {
    this.dropListeners.push(fn);
  }
}

function bodyOf(e: Entry, limit: number, before: string | undefined): Buffer | null {
  if (!e.items) return null;
  if (limit === DEFAULT_PAGE && before === undefined) return (e.first ??= Buffer.from(JSON.stringify(pageOf(e.items, limit))));
  const key = `${limit}|${before ?? ''}`;
  let body = e.others.get(key);
  if (!body) {
    body = Buffer.from(JSON.stringify(pageOf(e.items, limit, before)));
    if (e.others.size >= MAX_OTHER_PAGES) e.others.delete(e.others.keys().next().value!);
    e.others.set(key, body);
  }
  return body;
}

export const botLists = provided<BotLists>('bot lists');

/** The bot lists of this process (the composition root makes one): a deleted workspace's list is dropped everywhere. */
export function createBotLists(app: AppContext, deletion: WorkspaceDeletion): BotLists {
  const lists = new BotLists(app);
  deletion.onDelete((workspaceId) => botListsChanged(app, workspaceId));
  return lists;
}

/**
 * A workspace's bots changed (null: bots of several workspaces): forgets its list here and, in a scale-out group,
 * on every other process before returning, so the writer's next read sees the change wherever it lands.
 */
export async function botListsChanged(app: AppContext, workspaceId: string | null): Promise<void> {
  botLists(app).drop(workspaceId);
  try {
    await app.scale?.broadcastAcked('inv', { k: 'bots', workspaceId });
  } catch (err) {
    // The change is made: it is not failed for this. The other processes' lists lapse within LIST_TTL_MS.
    app.log.warn({ err, workspaceId }, 'telling the other processes that the bots changed failed');
  }
}

/**
 * The collection with every write reported to `changed` once it has finished (failed ones too: a failure may
 * come after the store applied it), so no code path can change bots without the list hearing of it.
 */
export function reportingWrites<T extends Doc>(col: Collection<T>, changed: (workspaceId: string | null) => Promise<void>): Collection<T> {
  const wsOf = (f: Filter) => (typeof f.workspaceId === 'string' ? f.workspaceId : null);
  // Records of one workspace name it; of several (or none), every list is told.
  const wsOfDocs = (docs: T[]) => (new Set(docs.map((d) => d.workspaceId)).size === 1 ? docs[0].workspaceId : null);
  const after = async <R>(write: Promise<R>, workspaceId: string | null): Promise<R> => {
    try { return await write; } finally { await changed(workspaceId); }
  };
  return {
    name: col.name,
    insertOne: (doc) => after(col.insertOne(doc), doc.workspaceId),
    insertMany: (docs) => after(col.insertMany(docs), wsOfDocs(docs)),
    findById: (workspaceId, id) => col.findById(workspaceId, id),
    findOne: (filter, opts) => col.findOne(filter, opts),
    find: (filter, opts) => col.find(filter, opts),
    findFields: (filter, fields, opts) => col.findFields(filter, fields, opts),
    count: (filter, opts) => col.count(filter, opts),
    updateOne: (filter, update, opts) => after(col.updateOne(filter, update, opts), wsOf(filter)),
    updateMany: (filter, update, opts) => after(col.updateMany(filter, update, opts), wsOf(filter)),
    replaceOne: (doc) => after(col.replaceOne(doc), doc.workspaceId),
    replaceMany: (docs) => after(col.replaceMany(docs), wsOfDocs(docs)),
    replaceEncoded: (rows) => after(col.replaceEncoded(rows), null),
    deleteOne: (filter, opts) => after(col.deleteOne(filter, opts), wsOf(filter)),
    deleteMany: (filter, opts) => after(col.deleteMany(filter, opts), wsOf(filter)),
  };
}
