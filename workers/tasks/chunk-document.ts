/** Piscina task: structured text to chunks that carry their heading path (see src/documents/chunk.ts). */
import { chunkMarkdown, type Chunk, type ChunkOptions } from '../../src/documents/chunk.js';
import { reportsStart } from '../started.js';

export interface ChunkDocumentInput {
  markdown: string;
  options?: ChunkOptions;
}

export interface ChunkDocumentOutput {
  chunks: Chunk[];
}

function chunkDocumentTask(input: ChunkDocumentInput): ChunkDocumentOutput {
  return { chunks: chunkMarkdown(input.markdown, input.options) };
}

export default reportsStart(chunkDocumentTask);
