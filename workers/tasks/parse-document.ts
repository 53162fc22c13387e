/** Piscina task: a knowledge document's bytes (PDF, HTML, Markdown, text) to structured text and its links. */
import type { HtmlReadLimits } from '../../src/knowledge/html.js';
import { parseDocument, type DocumentType, type ParsedDocument } from '../../src/knowledge/parse.js';
import { reportsStart } from '../started.js';

export interface ParseDocumentInput {
  data: Uint8Array;
  type: DocumentType;
  url?: string;
  filename?: string;
  /** Bounds on HTML (depth, size, elements, when Readability runs); the defaults of html.ts unless given. */
  htmlLimits?: Partial<HtmlReadLimits>;
}

export type ParseDocumentOutput = ParsedDocument;

function parseDocumentTask(input: ParseDocumentInput): Promise<ParseDocumentOutput> {
  return parseDocument(input.data, input.type, { url: input.url, filename: input.filename, htmlLimits: input.htmlLimits });
}

export default reportsStart(parseDocumentTask);
