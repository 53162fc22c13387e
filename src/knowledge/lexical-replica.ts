import type { AppContext } from '../app/context.js';
import { holdClaim, type HeldClaim } from '../scale/claims.js';
import type { LexicalIndex, LexicalStamps } from '../store/lexical-embedded.js';
import { knowledgeCollections } from './collections.js';
import { lexicalEntry } from './indexer.js';
import type { KnowledgeDocument } from './types.js';

/**
 * The lexical index as a replica of the store's chunk records, for a store other machines write too (MongoDB):
 * each machine keeps its own SQLite FTS5 file (one ranking everywhere) and copies what changed. A writer tells
 * the group which documents it changed (Redis, the `inv` channel); the others copy those documents from the
 * store. Messages can be lost (Redis away, a machine off), so at start and whenever Redis comes back every
 * document's stamp in the store is compared with the file's, and what differs is copied again.
 * Processes sharing one file (the workers of one machine) skip each other's messages by the file's id.
 */
export interface LexicalReplica extends LexicalIndex {
  /** After a document's chunks were written or removed in the store (indexer.ts): the other machines copy them. */
  documentsChanged(workspaceId: string, written: KnowledgeDocument[], removed: string[]): void;
  /** Compares the store with the file and copies what differs; resolves when the copies are done. */
  reconcile(reason: string): Promise<ReconcileStats | null>;
  /** The reconcile begun when the replica opened. */
  readonly started: Promise<ReconcileStats | null>;
  /** Resolves when no copy is queued or running (tests). */
  idle(): Promise<void>;
  /** Documents copied from the store since the replica opened. */
  readonly copies: number;
}

export interface ReconcileStats { checked: number; copied: number; removed: number; ms: number }

/** What a writer broadcasts: file id, workspace, [document id, stamp or null when removed]; d null: workspace deleted. */
interface Changed { k: 'lexical'; f: string; w: string; d: Array<[string, string | null]> | null }

/** A document's version in the store: every reindex moves the generation or the time, a rewrite the count. */
export const documentStamp = (d: { generation: unknown; indexedAt: unknown; chunkCount: unknown }) => `${d.generation}.${d.indexedAt}.${d.chunkCount}`;

/** Another machine may write chunks: the store is not a file of this machine's. */
export const storeIsShared = (app: AppContext) => app.store.kind !== 'embedded';

/** Documents copied per round trip; documents read per page while reconciling. */
const BATCH = 50;
const PAGE = 1000;
/** A copy that failed (the store unreachable) is retried by a reconcile this much later. */
const RETRY_MS = 30_000;

export function replicateLexical(app: AppContext, local: LexicalIndex & LexicalStamps): LexicalReplica {
  const node = app.scale ?? null;
  const c = knowledgeCollections(app);
  // Documents to copy, by workspace (a copy reads one workspace's documents at a time).
  const pending = new Map<string, Set<string>>();
  const inFlight = new Set<string>();
  let draining: Promise<void> | null = null;
  let retry: NodeJS.Timeout | null = null;
  let closed = false;
  let copies = 0;

  const enqueue = (workspaceId: string, ids: string[]) => {
    if (closed || ids.length === 0) return;
    const set = pending.get(workspaceId) ?? new Set<string>();
    for (const id of ids) set.add(id);
    pending.set(workspaceId, set);
    kick();
  };
  const kick = () => { draining ??= drain().finally(() => { draining = null; if (pending.size && !closed) kick(); }); };

  async function drain(): Promise<void> {
    while (pending.size && !closed) {
      const [workspaceId, set] = pending.entries().next().value as [string, Set<string>];
      const ids: string[] = [];
      for (const id of set) { ids.push(id); set.delete(id); if (ids.length === BATCH) break; }
      if (set.size === 0) pending.delete(workspaceId);
      ids.forEach((id) => inFlight.add(id));
      try { await copy(workspaceId, ids); } catch (err) {
        app.log.warn({ err, workspaceId, documents: ids.length }, `lexical index: copying documents from the store failed; retrying in ${RETRY_MS / 1000} s`);
        retry ??= setTimeout(() => { retry = null; void reconcile('retry after a failed copy'); }, RETRY_MS);
        retry.unref();
      } finally { ids.forEach((id) => inFlight.delete(id)); }
    }
  }

  /** Copies documents from the store: the records first, then their chunks (written before the record), so a stamp never claims newer chunks than those copied. */
  async function copy(workspaceId: string, ids: string[]): Promise<void> {
    const found = await Promise.all(ids.map((id) => c.documents.findById(workspaceId, id)));
    const docs = new Map(found.filter((d): d is KnowledgeDocument => !!d).map((d) => [d._id, d]));
    // A document the store no longer has is copied too: its chunks may be written before its record (a new document).
    const stale = ids.filter((id) => { const d = docs.get(id); return !d || local.stampOf(id) !== documentStamp(d); });
    if (stale.length === 0) return;
    // One query per document, at once: each is an index lookup in both stores (the embedded one scans for $in).
    const chunks = await Promise.all(stale.map((documentId) => c.chunks.find({ workspaceId, documentId }, { sort: [['_id', 1]] })));
    for (const [i, id] of stale.entries()) {
      if (closed) return;
      await local.replaceDocument(workspaceId, id, chunks[i].map(lexicalEntry));
      const d = docs.get(id);
      await local.setStamp(workspaceId, id, d ? documentStamp(d) : null);
      copies++;
    }
  }

  const idle = async () => { while (draining) await draining; };

  let reconciling: Promise<ReconcileStats | null> | null = null;
  let again: string | null = null;
  /** One reconcile at a time; one asked for meanwhile runs after it (it may have paged past what changed since). */
  function reconcile(reason: string): Promise<ReconcileStats | null> {
    if (reconciling) { again = reason; return reconciling; }
    reconciling = reconcileOnce(reason).catch((err) => {
      app.log.error({ err, reason }, 'lexical index: reconciling with the store failed; keyword search may miss documents changed on other machines until Redis reconnects or the server restarts');
      return null;
    }).finally(() => {
      reconciling = null;
      const next = again;
      again = null;
      if (next && !closed) void reconcile(next);
    });
    return reconciling;
  }

  async function reconcileOnce(reason: string): Promise<ReconcileStats | null> {
    if (closed) return null;
    // The workers of one machine share the file: one of them reconciles it.
    let claim: HeldClaim | null = null;
    if (node?.healthy) {
      claim = await holdClaim(node, `lexical:${local.fileId}`, node.leaseMs).catch(() => null);
      if (!claim) return null;
    }
    try {
      const t0 = performance.now();
      const have = new Map(local.stamps().map((s) => [s.documentId, s]));
      let checked = 0, copied = 0, removed = 0, after = '';
      for (;;) {
        const page = await c.documents.findFields({ _id: { $gt: after } }, ['workspaceId', 'generation', 'indexedAt', 'chunkCount'] as const, { crossWorkspace: true, sort: [['_id', 1]], limit: PAGE });
        for (const d of page) {
          checked++;
          const mine = have.get(d._id);
          have.delete(d._id);
          if (mine?.stamp !== documentStamp(d)) { copied++; enqueue(String(d.workspaceId), [d._id]); }
        }
        if (page.length < PAGE || closed) break;
        after = page[page.length - 1]._id;
      }
      for (const s of have.values()) { removed++; enqueue(s.workspaceId, [s.documentId]); }
      await idle();
      const stats = { checked, copied, removed, ms: Math.round(performance.now() - t0) };
      app.log.info({ ...stats, reason }, 'lexical index reconciled with the store');
      return stats;
    } finally { await claim?.release(); }
  }

  node?.on('inv', (m: Changed) => {
    if (m?.k !== 'lexical' || m.f === local.fileId || closed) return;
    if (m.d === null) return void forgetWorkspace(m.w).catch((err) => app.log.warn({ err, workspaceId: m.w }, 'lexical index: dropping a deleted workspace failed'));
    // A stamp this file already holds was copied by a process sharing it (or by a reconcile): nothing to do.
    enqueue(m.w, m.d.filter(([id, stamp]) => stamp === null || local.stampOf(id) !== stamp).map(([id]) => id));
  });
  node?.onHealth((up) => { if (up) void reconcile('coordination server back'); });

  async function forgetWorkspace(workspaceId: string): Promise<number> {
    pending.delete(workspaceId);
    const n = await local.deleteWhere({ workspaceId });
    for (const s of local.stamps()) if (s.workspaceId === workspaceId) await local.setStamp(workspaceId, s.documentId, null);
    return n;
  }

  const started = reconcile('start');

  return {
    upsert: (entries) => local.upsert(entries),
    replaceDocument: (workspaceId, documentId, entries) => local.replaceDocument(workspaceId, documentId, entries),
    search: (workspaceId, terms, opts) => local.search(workspaceId, terms, opts),
    async deleteWhere(scope) {
      if (scope.sourceId || scope.documentId) return local.deleteWhere(scope);
      // A whole workspace goes only when it is deleted: the file forgets it, and the other machines theirs.
      const n = await forgetWorkspace(scope.workspaceId);
      node?.broadcast('inv', { k: 'lexical', f: local.fileId, w: scope.workspaceId, d: null } satisfies Changed);
      return n;
    },
    count: (scope) => local.count(scope),
    documentsChanged(workspaceId, written, removed) {
      // Written after the document's entries (the index's writes run in order); a failure only costs a copy later.
      const stamped = (p: Promise<void>) => void p.catch((err: unknown) => app.log.warn({ err, workspaceId }, 'lexical index: a document stamp was not written; the next reconcile copies the document again'));
      for (const d of written) stamped(local.setStamp(workspaceId, d._id, documentStamp(d)));
      for (const id of removed) stamped(local.setStamp(workspaceId, id, null));
      const ids = [...written.map((d) => d._id), ...removed];
      // A copy of the same document under way here (a reconcile) may have read the store before this write.
      enqueue(workspaceId, ids.filter((id) => inFlight.has(id)));
      node?.broadcast('inv', { k: 'lexical', f: local.fileId, w: workspaceId, d: [...written.map((d) => [d._id, documentStamp(d)] as [string, string]), ...removed.map((id) => [id, null] as [string, null])] } satisfies Changed);
    },
    reconcile,
    started,
    idle,
    get copies() { return copies; },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      while (reconciling) await reconciling;
      await idle();
      await local.close();
    },
  };
}
