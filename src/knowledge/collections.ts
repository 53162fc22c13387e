import type { AppContext } from '../app/context.js';
import type { KnowledgeChunk, KnowledgeDocument, KnowledgeSource } from './types.js';

/** The knowledge module's store collections, and the id of a passage's record (its document and position). */
export const COLLECTIONS = { sources: 'knowledge_sources', documents: 'knowledge_documents', chunks: 'knowledge_chunks', jobs: 'knowledge_jobs', gaps: 'knowledge_gaps', calibration: 'knowledge_calibration' } as const;

/** A passage's id: the same position of the same document always has the same id, so a new version replaces it in place. */
export const chunkId = (docId: string, index: number) => `${chunkIdPrefix(docId)}${String(index).padStart(5, '0')}`;
/** What every passage id of a document starts with (the chunking worker adds the position, five digits). */
export const chunkIdPrefix = (docId: string) => `kch_${docId.slice(5)}_`;

export function knowledgeCollections(app: AppContext) {
  return {
    sources: app.store.collection<KnowledgeSource>(COLLECTIONS.sources, { indexes: [{ fields: [['workspaceId', 1], ['status', 1]] }] }),
    documents: app.store.collection<KnowledgeDocument>(COLLECTIONS.documents, { indexes: [{ fields: [['workspaceId', 1], ['sourceId', 1]] }] }),
    chunks: app.store.collection<KnowledgeChunk>(COLLECTIONS.chunks, { indexes: [{ fields: [['workspaceId', 1], ['documentId', 1]] }, { fields: [['workspaceId', 1], ['sourceId', 1]] }] }),
  };
}
