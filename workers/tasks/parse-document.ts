/** Task: a knowledge document's bytes (PDF, HTML, Markdown, text) to structured text and its links. A PDF runs in the pool's isolated lane (a process of its own), the rest on an ingest thread. */
import type { HtmlReadLimits } from '../../src/documents/html.js';
import { parseDocument, type DocumentType, type ParsedDocument } from '../../src/documents/parse.js';
import type { PdfReadLimits } from '../../src/documents/pdf.js';
import { reportsStart } from '../started.js';

export interface ParseDocumentInput {
  data: Uint8Array;
  type: DocumentType;
  url?: string;
  filename?: string;
  /** Bounds on HTML (depth, size, elements, when Readability runs); the defaults of html.ts unless given. */
  htmlLimits?: Partial<HtmlReadLimits>;
  /** Bounds on PDF (pages, text pieces); the defaults of pdf.ts unless given. */
  pdfLimits?: Partial<PdfReadLimits>;
}

export type ParseDocumentOutput = ParsedDocument;

function parseDocumentTask(input: ParseDocumentInput): Promise<ParseDocumentOutput> {
  return parseDocument(input.data, input.type, { url: input.url, filename: input.filename, htmlLimits: input.htmlLimits, pdfLimits: input.pdfLimits });
}

export default reportsStart(parseDocumentTask);
