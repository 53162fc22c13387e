/**
 * Piscina task: a document's structured text to its passages, each carrying its heading path (see
 * src/documents/chunk.ts), returned as the store's passage records already serialised into shared memory
 * (src/store/encoded.ts): the event loop passes them to the store's thread and the lexical index's thread without
 * building or copying them (a 20,000-passage document is 20 MB of text).
 */
import { chunkMarkdown, type ChunkOptions } from '../../src/documents/chunk.js';
import { chunkId } from '../../src/knowledge/collections.js';
import type { KnowledgeChunk } from '../../src/knowledge/types.js';
import { encodeRecords, type EncodedRecords } from '../../src/store/encoded.js';
import { reportsStart } from '../started.js';

export interface ChunkDocumentInput {
  /** The document's structured text (Markdown) as UTF-8: shared memory, or a buffer passed in runTask's transferList. */
  markdown: Uint8Array;
  /** What every passage record of the document holds besides its position, heading and text. */
  document: Pick<KnowledgeChunk, 'workspaceId' | 'sourceId' | 'documentId' | 'title' | 'url'>;
  options?: ChunkOptions;
}

export interface ChunkDocumentOutput {
  /** KnowledgeChunk records, in passage order. */
  passages: EncodedRecords;
}

function chunkDocumentTask(input: ChunkDocumentInput): ChunkDocumentOutput {
  const d = input.document;
  const records: KnowledgeChunk[] = chunkMarkdown(Buffer.from(input.markdown.buffer, input.markdown.byteOffset, input.markdown.byteLength).toString('utf8'), input.options).map((ch, index) => ({
    _id: chunkId(d.documentId, index), workspaceId: d.workspaceId, sourceId: d.sourceId, documentId: d.documentId,
    index, heading: ch.heading, title: d.title, url: d.url, text: ch.text,
  }));
  return { passages: encodeRecords(records) };
}

export default reportsStart(chunkDocumentTask);
