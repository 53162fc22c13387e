import type { AppContext } from '../app/context.js';
import { chunkId, knowledgeCollections } from './collections.js';
import { embedTexts, findEmbedder, vectorCollection, type Embedder } from './embeddings.js';
import { decodeRecords, encodedCount, type EncodedRecords } from '../store/encoded.js';
import type { KnowledgeChunk, KnowledgeDocument } from './types.js';

/**
 * A document's vectors when it is (re)indexed. Passages whose text the same embedder already embedded keep their
 * vectors (chunk ids are the document's id and the passage's position, so an unchanged passage has the same id):
 * a reindex or a re-crawl of unchanged pages asks the provider, or the built-in model, for nothing, and a provider
 * that is down meanwhile costs those passages nothing. Changed and new passages are embedded.
 */
export interface VectorPlan {
  embedder: Embedder | null;
  /** Vectors made now, by passage position. */
  made: Map<number, Float32Array>;
  /** Positions whose stored vectors stay (same embedder, same text). */
  kept: Set<number>;
  error: string | null;
}

/** A document's passages as the chunking worker serialised them (src/store/encoded.ts), with their scope. */
export interface DocumentPassages {
  workspaceId: string;
  sourceId: string;
  documentId: string;
  rows: EncodedRecords;
}

/** Passages read (and embedded, and compared) at a time: a large document is never decoded whole on the event loop. */
const WINDOW = 256;

/** What the embedder is given for a passage: the document title, then the passage. */
const embeddingInput = (c: Pick<KnowledgeChunk, 'title' | 'text'>) => `${c.title}\n${c.text}`;

export async function planVectors(app: AppContext, passages: DocumentPassages, old: KnowledgeDocument | null, signal?: AbortSignal): Promise<VectorPlan> {
  const plan: VectorPlan = { embedder: null, made: new Map(), kept: new Set(), error: null };
  const count = encodedCount(passages.rows);
  if (!count) return plan;
  const { workspaceId, documentId } = passages;
  const windows = async (fn: (records: KnowledgeChunk[], from: number) => Promise<void>) => {
    for (let from = 0; from < count; from += WINDOW) await fn(decodeRecords<KnowledgeChunk>(passages.rows, from, from + WINDOW), from);
  };
  try {
    plan.embedder = await findEmbedder(app, workspaceId);
    if (!plan.embedder) return plan;
    // A document whose last embedding failed has passages without vectors: all of it is embedded again.
    if (old?.vectorCollection && old.embedder === plan.embedder.key && !old.vectorError) {
      const chunks = knowledgeCollections(app).chunks;
      await windows(async (records, from) => {
        // The old passages at the same positions (ids sort by position within a document).
        const before = await chunks.find({ workspaceId, _id: { $gte: chunkId(documentId, from), $lt: chunkId(documentId, from + WINDOW) } }, { sort: [['_id', 1]] });
        const was = new Map(before.filter((c) => c.documentId === documentId).map((c) => [c.index, embeddingInput(c)]));
        for (const r of records) if (was.get(r.index) === embeddingInput(r)) plan.kept.add(r.index);
      });
    }
    const embed = async (rs: KnowledgeChunk[]) => {
      const vectors = rs.length ? await embedTexts(app, plan.embedder!, rs.map(embeddingInput), signal) : [];
      rs.forEach((r, i) => plan.made.set(r.index, vectors[i]));
    };
    await windows((records) => embed(records.filter((r) => !plan.kept.has(r.index))));
    // The same embedder at another length (a default changed between versions): the kept ones move too.
    const first = plan.made.values().next().value as Float32Array | undefined;
    if (first && plan.kept.size && vectorCollection(first.length) !== old?.vectorCollection) {
      await windows((records) => embed(records.filter((r) => plan.kept.has(r.index))));
      plan.kept.clear();
    }
  } catch (err) {
    if (signal?.aborted) throw err;
    plan.error = `embedding failed: ${(err as Error)?.message ?? String(err)}`.slice(0, 500);
    plan.made.clear();
    app.log.warn({ err, documentId }, 'document indexed without vectors');
  }
  return plan;
}

/**
 * Writes the plan after the passages' records and lexical entries (a search meanwhile finds the old vectors or the
 * new), then removes the vectors of text the document no longer has. Returns the collection holding its vectors.
 */
export async function storeVectors(app: AppContext, passages: DocumentPassages, old: KnowledgeDocument | null, plan: VectorPlan): Promise<string | null> {
  const { workspaceId, sourceId, documentId } = passages;
  const oldCollection = old?.vectorCollection ?? null;
  const first = plan.made.values().next().value as Float32Array | undefined;
  let collection: string | null = plan.kept.size ? oldCollection : null;
  if (first && plan.embedder) {
    collection = vectorCollection(first.length);
    await app.vectors.ensureCollection(collection, first.length);
    const key = plan.embedder.key;
    await app.vectors.upsert(collection, [...plan.made].sort(([a], [b]) => a - b).map(([index, vector]) => {
      const id = chunkId(documentId, index);
      return { id, vector, payload: { workspaceId, sourceId, documentId, chunkId: id, embedder: key } };
    }));
  }
  if (!oldCollection) return collection;
  // The whole old set goes when nothing of it stays in its collection; else the positions neither kept nor remade.
  if (oldCollection !== collection) await app.vectors.deleteByFilter(oldCollection, { workspaceId, documentId });
  else {
    const stale: string[] = [];
    for (let i = 0; i < (old?.chunkCount ?? 0); i++) if (!plan.kept.has(i) && !plan.made.has(i)) stale.push(chunkId(documentId, i));
    if (stale.length) await app.vectors.deleteByFilter(oldCollection, { workspaceId, documentId, chunkId: stale });
  }
  return collection;
}
