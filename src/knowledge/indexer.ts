import { createHash } from 'node:crypto';
import type { AppContext } from '../app/context.js';
import { ownBuffer, PoolBusyError, runTask, TaskMemoryError, TaskTimeoutError } from '../../workers/pool.js';
import type { LexicalIndex } from '../store/lexical-embedded.js';
import { learnSimilarities } from './calibration.js';
import { encodedCount } from '../store/encoded.js';
import { chunkIdPrefix, knowledgeCollections } from './collections.js';
import { planVectors, storeVectors } from './document-vectors.js';
import type { LexicalReplica } from './lexical-replica.js';
import type { DocumentType } from '../documents/parse.js';
import type { KnowledgeChunk, KnowledgeDocument, KnowledgeSource } from './types.js';

const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 24);
export const documentId = (sourceId: string, ref: string) => `kdoc_${hash(`${sourceId}\n${ref}`)}`;

export interface DocumentInput {
  /** URL, or 'text' / 'file' for sources with one document. */
  ref: string;
  url: string | null;
  bytes: Uint8Array;
  type: DocumentType;
  filename?: string;
  /** Used when the document has no title of its own. */
  fallbackTitle?: string;
  /** The title whatever the document says (a text source: the name its owner gave it). */
  title?: string;
}

/**
 * Writes one document: parse and chunk on the worker pool, then replace its chunks everywhere (records,
 * lexical index, vectors). Ids are derived from source + address + position and the new version replaces the
 * old in place, so indexing the same document any number of times leaves one copy.
 */
export async function indexDocument(app: AppContext, lexical: LexicalIndex, source: KnowledgeSource, input: DocumentInput, signal?: AbortSignal): Promise<{ document: KnowledgeDocument; links: string[] }> {
  const c = knowledgeCollections(app);
  // The document's bytes and its text go to the workers without a copy (the bytes are not used after this).
  const size = input.bytes.byteLength;
  const parsed = await runTask('parse-document', { data: input.bytes, type: input.type, url: input.url ?? undefined, filename: input.filename }, { signal, transferList: ownBuffer(input.bytes) })
    .catch((err: unknown) => { throw documentFailure(err, input, 'read'); });
  const docId = documentId(source._id, input.ref);
  const title = (input.title || parsed.title || input.fallbackTitle || source.name).slice(0, 300);
  // The passages' records come back serialised in shared memory: the event loop hands them to the store's and
  // the lexical index's threads and never builds them (a 20,000-passage document is 20 MB of text).
  const scope = { workspaceId: source.workspaceId, sourceId: source._id, documentId: docId };
  const record: Omit<KnowledgeChunk, '_id' | 'index' | 'heading' | 'text'> = { ...scope, title, url: input.url };
  const { passages } = await runTask('chunk-document', { markdown: parsed.markdown, document: record, idPrefix: chunkIdPrefix(docId) }, { signal, transferList: ownBuffer(parsed.markdown) })
    .catch((err: unknown) => { throw documentFailure(err, input, 'split into passages'); });
  const document_ = { ...scope, rows: passages };
  const count = encodedCount(passages);

  // A provider failure does not stop the document: its chunks go to the lexical index (search works
  // without vectors) and the error is recorded, so the source says why and a reindex adds the vectors.
  const old = await c.documents.findById(source.workspaceId, docId);
  const plan = await planVectors(app, document_, old, signal);

  // The new version replaces the old in place (chunk ids are the document's id and the passage's index): records
  // first (one write), then the index entries that lead to them, then what the new version no longer has (for a
  // new document: what a run stopped before its document record left). A search meanwhile finds the old passages
  // or the new ones, never neither (a page reindexed while visitors ask about it).
  await c.chunks.replaceEncoded(passages);
  await lexical.replaceDocument(source.workspaceId, docId, passages);
  await c.chunks.deleteMany({ workspaceId: source.workspaceId, documentId: docId, index: { $gte: count } });
  const collection = await storeVectors(app, document_, old, plan);
  // The model's similarity scale in this knowledge base (src/knowledge/calibration.ts): statistics, so a failed
  // write costs the calibration a few pairs, never the document.
  if (plan.embedder && plan.made.size) {
    await learnSimilarities(app, source.workspaceId, plan.embedder.key, docId, plan.made).catch((err: unknown) => app.log.warn({ err, documentId: docId }, 'similarity calibration not updated'));
  }
  const document: KnowledgeDocument = {
    _id: docId, workspaceId: source.workspaceId, sourceId: source._id, url: input.url, title, type: input.type,
    bytes: size, chunkCount: count, vectorCollection: collection, embedder: collection ? plan.embedder?.key ?? null : null,
    ...(plan.error ? { vectorError: plan.error } : {}), generation: source.generation, indexedAt: app.clock.now(),
  };
  await c.documents.replaceOne(document);
  announce(lexical, source.workspaceId, [document], []);
  return { document, links: parsed.links };
}

/** A chunk as the lexical index holds it (also copied so by src/knowledge/lexical-replica.ts). */
export const lexicalEntry = (r: KnowledgeChunk) => ({ id: r._id, workspaceId: r.workspaceId, sourceId: r.sourceId, documentId: r.documentId, title: r.title, heading: r.heading, text: r.text });

/** With MongoDB the index is one replica per machine: the others hear which documents changed (after the store write). */
const announce = (lexical: LexicalIndex, workspaceId: string, written: KnowledgeDocument[], removed: string[]) =>
  (lexical as Partial<LexicalReplica>).documentsChanged?.(workspaceId, written, removed);

const TRY_INSTEAD = 'upload its text as Markdown or plain text instead, or split it into smaller files';

/**
 * A worker failure in the words the owner reads on the source: what went wrong with this document and
 * what to do. A page's reason starts with its address (a crawl lists several).
 */
function documentFailure(err: unknown, input: Pick<DocumentInput, 'url' | 'type'>, step: string): Error {
  let reason: string;
  // A PDF is read in a process of its own whose whole memory is capped (workers/process-lane.ts).
  if (err instanceof TaskMemoryError && input.type === 'pdf') reason = `this PDF needs more memory than the ${err.limitMb} MB limit to ${step}; split it into smaller files, or export its text and upload that as Markdown or plain text`;
  else if (err instanceof TaskTimeoutError) reason = `the document took longer than ${err.limitMs / 1000} s to ${step}; it may be too large or too deeply nested; ${TRY_INSTEAD}`;
  else if (err instanceof TaskMemoryError) reason = `the document needed more than ${err.limitMb} MB of memory to ${step}; ${TRY_INSTEAD}`;
  else if (err instanceof PoolBusyError) reason = 'the server is busy reading other documents; reindex this source in a few minutes';
  else if (err instanceof Error && err.name !== 'AbortError') reason = err.message;
  // An error thrown in a worker that is not an Error (pdf.js's exceptions) arrives as a plain { name, message }.
  else if (!(err instanceof Error) && typeof (err as { message?: unknown })?.message === 'string') reason = (err as { message: string }).message;
  else return err instanceof Error ? err : new Error(String(err));
  return new Error(input.url && !reason.startsWith(input.url) ? `${input.url}: ${reason}` : reason, { cause: err });
}

export async function removeDocumentChunks(app: AppContext, lexical: LexicalIndex, workspaceId: string, docId: string, collection: string | null): Promise<void> {
  await knowledgeCollections(app).chunks.deleteMany({ workspaceId, documentId: docId });
  await lexical.deleteWhere({ workspaceId, documentId: docId });
  if (collection) await app.vectors.deleteByFilter(collection, { workspaceId, documentId: docId });
}

/** Removes documents of a source (all, or those older than a generation) with their chunks and vectors. */
export async function removeDocuments(app: AppContext, lexical: LexicalIndex, source: KnowledgeSource, olderThan?: number): Promise<number> {
  const c = knowledgeCollections(app);
  const filter = { workspaceId: source.workspaceId, sourceId: source._id, ...(olderThan !== undefined ? { generation: { $lt: olderThan } } : {}) };
  const docs = await c.documents.find(filter);
  for (const d of docs) await removeDocumentChunks(app, lexical, source.workspaceId, d._id, d.vectorCollection);
  await c.documents.deleteMany(filter);
  announce(lexical, source.workspaceId, [], docs.map((d) => d._id));
  return docs.length;
}
