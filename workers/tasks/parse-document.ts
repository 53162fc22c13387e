/** Piscina task: a knowledge document's bytes (PDF, HTML, Markdown, text) to structured text and its links. */
import { parseDocument, type DocumentType, type ParsedDocument } from '../../src/knowledge/parse.js';

export interface ParseDocumentInput {
  data: Uint8Array;
  type: DocumentType;
  url?: string;
  filename?: string;
}

export type ParseDocumentOutput = ParsedDocument;

export default function parseDocumentTask(input: ParseDocumentInput): Promise<ParseDocumentOutput> {
  return parseDocument(input.data, input.type, { url: input.url, filename: input.filename });
}
