/**
 * Piscina task: a document's structured text to its passages, each carrying its heading path (see
 * src/documents/chunk.ts), returned as the store's passage records already serialised into shared memory
 * (src/store/encoded.ts): the event loop passes them to the store's thread and the lexical index's thread without
 * building or copying them (a 20,000-passage document is 20 MB of text).
 */
import { chunkMarkdown, type ChunkOptions } from '../../src/documents/chunk.js';
import { encodeRecords, type EncodedRecords } from '../../src/store/encoded.js';
import { reportsStart } from '../started.js';

export interface ChunkDocumentInput {
  /** The document's structured text (Markdown) as UTF-8: shared memory, or a buffer passed in runTask's transferList. */
  markdown: Uint8Array;
  /** What every passage record of the document holds besides its id, position (`index`), `heading` and `text`. */
  document: { workspaceId: string; [field: string]: unknown };
  /** A passage's id: this, then its position in five digits (src/knowledge/collections.ts chunkId). */
  idPrefix: string;
  options?: ChunkOptions;
}

export interface ChunkDocumentOutput {
  /** The passages' records (`{ _id, ...document, index, heading, text }`), in passage order. */
  passages: EncodedRecords;
}

function chunkDocumentTask(input: ChunkDocumentInput): ChunkDocumentOutput {
  const text = Buffer.from(input.markdown.buffer, input.markdown.byteOffset, input.markdown.byteLength).toString('utf8');
  const records = chunkMarkdown(text, input.options).map((ch, index) => ({
    _id: `${input.idPrefix}${String(index).padStart(5, '0')}`, ...input.document, index, heading: ch.heading, text: ch.text,
  }));
  return { passages: encodeRecords(records) };
}

export default reportsStart(chunkDocumentTask);
