import { HTML_READ_LIMITS, parseHtml, type HtmlReadLimits } from './html.js';
import { ADVICE, DocumentTooLargeError, mb } from './html-prescan.js';
import { UnsupportedDocumentError } from './document-errors.js';
import { PDF_READ_LIMITS, readPdf, type PdfReadLimits } from './pdf.js';

export { UnsupportedDocumentError };

/** What a knowledge document's bytes are, decided by its bytes first and its name/type second. */
export type DocumentType = 'pdf' | 'html' | 'markdown' | 'text';

export interface ParsedDocument {
  title: string;
  /** Structured text (Markdown): headings, lists and tables survive for the chunker. */
  markdown: string;
  links: string[];
  pages?: number;
}

// Formats that are never knowledge text; named so the error says what was sent.
const BINARY_MAGIC: Array<[string, number[]]> = [
  ['PNG image', [0x89, 0x50, 0x4e, 0x47]], ['JPEG image', [0xff, 0xd8, 0xff]], ['GIF image', [0x47, 0x49, 0x46, 0x38]],
  ['ZIP archive (or DOCX/XLSX)', [0x50, 0x4b, 0x03, 0x04]], ['gzip archive', [0x1f, 0x8b]], ['executable', [0x7f, 0x45, 0x4c, 0x46]],
  ['RIFF media', [0x52, 0x49, 0x46, 0x46]], ['OLE document (DOC/XLS)', [0xd0, 0xcf, 0x11, 0xe0]],
];

const startsWith = (b: Uint8Array, sig: number[]) => sig.every((x, i) => b[i] === x);

/**
 * Checks the magic bytes: a PDF must start with %PDF-, everything else must be UTF-8 text without NUL bytes.
 * The declared type or file name then tells HTML and Markdown from plain text.
 */
export function sniffDocumentType(bytes: Uint8Array, declaredType = '', filename = ''): DocumentType {
  const type = declaredType.split(';')[0].trim().toLowerCase();
  const ext = (filename.match(/\.([a-z0-9]+)$/i)?.[1] ?? '').toLowerCase();
  const isPdf = startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d]);
  if (isPdf) return 'pdf';
  if (type === 'application/pdf' || ext === 'pdf') throw new UnsupportedDocumentError('file: declared as PDF but does not start with %PDF-');
  for (const [name, sig] of BINARY_MAGIC) if (startsWith(bytes, sig)) throw new UnsupportedDocumentError(`file: a ${name} is not a supported document; send PDF, Markdown, text or HTML`);
  const head = bytes.subarray(0, 65536);
  if (head.includes(0)) throw new UnsupportedDocumentError('file: binary content; send PDF, Markdown, text or HTML');
  try { new TextDecoder('utf-8', { fatal: true }).decode(head.length === bytes.length ? bytes : trimPartialUtf8(head)); } catch {
    throw new UnsupportedDocumentError('file: text is not valid UTF-8');
  }
  if (type === 'text/html' || type === 'application/xhtml+xml' || ext === 'html' || ext === 'htm') return 'html';
  if (type === 'text/markdown' || type === 'text/x-markdown' || ext === 'md' || ext === 'markdown') return 'markdown';
  const start = new TextDecoder().decode(bytes.subarray(0, 512)).trimStart().toLowerCase();
  if (start.startsWith('<!doctype html') || start.startsWith('<html')) return 'html';
  return 'text';
}

/** A 64 KiB window may end inside a multi-byte character; drop that partial tail before validating. */
function trimPartialUtf8(b: Uint8Array): Uint8Array {
  let end = b.length;
  for (let i = 1; i <= 3 && end - i >= 0; i++) {
    const c = b[end - i];
    if ((c & 0xc0) === 0x80) continue;
    if (c >= 0xc0) end -= i;
    break;
  }
  return b.subarray(0, end);
}

export interface ParseOptions {
  url?: string;
  filename?: string;
  /** Bounds on HTML (html-prescan.ts, html.ts); the defaults unless given. */
  htmlLimits?: Partial<HtmlReadLimits>;
  /** Bounds on PDF (pages, text pieces); the defaults of pdf.ts unless given. */
  pdfLimits?: Partial<PdfReadLimits>;
}

export async function parseDocument(bytes: Uint8Array, type: DocumentType, opts: ParseOptions = {}): Promise<ParsedDocument> {
  const fallbackTitle = opts.filename?.replace(/\.[a-z0-9]+$/i, '') ?? (opts.url ? new URL(opts.url).pathname.split('/').filter(Boolean).pop() ?? opts.url : '');
  if (type === 'pdf') return parsePdf(bytes, fallbackTitle, { ...PDF_READ_LIMITS, ...opts.pdfLimits });
  const limits = { ...HTML_READ_LIMITS, ...opts.htmlLimits };
  if (type === 'html' && bytes.byteLength > limits.maxInputBytes) {
    throw new DocumentTooLargeError(`the HTML is ${mb(bytes.byteLength)}; at most ${mb(limits.maxInputBytes)} of HTML is read; ${ADVICE}`);
  }
  const text = new TextDecoder().decode(bytes);
  if (type === 'html') {
    const p = parseHtml(text, opts.url, limits);
    return { ...p, title: p.title || fallbackTitle };
  }
  const heading = type === 'markdown' ? text.match(/^#{1,2}\s+(.+)$/m)?.[1]?.trim() : undefined;
  // No heading and no file name: the first line names it (a text source is cited by it, never as "Untitled").
  return { title: heading || fallbackTitle || titleOfText(text), markdown: text.replace(/\r\n?/g, '\n'), links: [] };
}

/** What a text is called when nobody named it: its first heading, else its first line, without Markdown marks, at most 80 characters. */
export function titleOfText(text: string): string {
  const heading = text.match(/^#{1,6}\s+(.+)$/m)?.[1];
  const line = heading ?? text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  const plain = line.replace(/^[#>*\-+\s]+|[*_`]+/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\s+/g, ' ').trim();
  return plain.length > 80 ? `${plain.slice(0, 79).replace(/\s+\S*$/, '')}…` : plain;
}

async function parsePdf(bytes: Uint8Array, fallbackTitle: string, limits: PdfReadLimits): Promise<ParsedDocument> {
  const { title, pages } = await readPdf(bytes, limits);
  // Each page becomes a section, so an excerpt can say which page it came from.
  const markdown = pages.map((t, i) => `## Page ${i + 1}\n\n${t.trim()}`).join('\n\n');
  return { title: title || fallbackTitle || 'PDF document', markdown, links: [], pages: pages.length };
}
