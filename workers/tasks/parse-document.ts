/** Task: a knowledge document's bytes (PDF, HTML, Markdown, text) to structured text and its links. A PDF runs in the pool's isolated lane (a process of its own), the rest on an ingest thread. */
import { isMainThread } from 'node:worker_threads';
import type { HtmlReadLimits } from '../../src/documents/html.js';
import { parseDocument, type DocumentType, type ParsedDocument } from '../../src/documents/parse.js';
import type { PdfReadLimits } from '../../src/documents/pdf.js';
import { reportsStart } from '../started.js';

export interface ParseDocumentInput {
  /** Pass its buffer in runTask's transferList when nobody else uses it (workers/pool.ts `ownBuffer`): no copy. */
  data: Uint8Array;
  type: DocumentType;
  url?: string;
  filename?: string;
  /** Bounds on HTML (depth, size, elements, when Readability runs); the defaults of html.ts unless given. */
  htmlLimits?: Partial<HtmlReadLimits>;
  /** Bounds on PDF (pages, text pieces); the defaults of pdf.ts unless given. */
  pdfLimits?: Partial<PdfReadLimits>;
}

/**
 * The structured text as UTF-8 bytes, for the chunking task: read on a thread, they are in shared memory, so the
 * event loop passes a large document's text on (20 MB for 20,000 passages) without copying it or holding it as a
 * string (a PDF's process sends a copy, as it must).
 */
export type ParseDocumentOutput = Omit<ParsedDocument, 'markdown'> & { markdown: Uint8Array };

async function parseDocumentTask(input: ParseDocumentInput): Promise<ParseDocumentOutput> {
  const parsed = await parseDocument(input.data, input.type, { url: input.url, filename: input.filename, htmlLimits: input.htmlLimits, pdfLimits: input.pdfLimits });
  return { ...parsed, markdown: utf8(parsed.markdown, !isMainThread) };
}

function utf8(text: string, shared: boolean): Uint8Array {
  if (!shared) return Buffer.from(text, 'utf8');
  const size = Buffer.byteLength(text, 'utf8');
  const out = new Uint8Array(new SharedArrayBuffer(size));
  Buffer.from(out.buffer, 0, size).write(text, 0, 'utf8');
  return out;
}

export default reportsStart(parseDocumentTask);
