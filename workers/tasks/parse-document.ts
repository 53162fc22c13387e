/** Piscina task: a knowledge document's bytes (PDF, HTML, Markdown, text) to structured text and its links. */
import type { HtmlLimits } from '../../src/knowledge/html-prescan.js';
import { parseDocument, type DocumentType, type ParsedDocument } from '../../src/knowledge/parse.js';
import { reportsStart } from '../started.js';

export interface ParseDocumentInput {
  data: Uint8Array;
  type: DocumentType;
  url?: string;
  filename?: string;
  /** The prescan's bounds (depth, size, elements); the defaults of html-prescan.ts unless given. */
  htmlLimits?: Partial<HtmlLimits>;
}

export type ParseDocumentOutput = ParsedDocument;

function parseDocumentTask(input: ParseDocumentInput): Promise<ParseDocumentOutput> {
  return parseDocument(input.data, input.type, { url: input.url, filename: input.filename, htmlLimits: input.htmlLimits });
}

export default reportsStart(parseDocumentTask);
