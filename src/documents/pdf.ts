/**
 * A PDF's text, page by page, within limits. pdf.js reads every page's content stream whole, and unpdf's
 * extractText starts every page at once: a small PDF whose 5,000 pages share one large stream held gigabytes.
 * Here pages are read one after the other, each released before the next, the page count is checked before any
 * page is read, and the text pieces (one per text-showing operator, about) are counted as pages are read.
 * What no count bounds (a stream that inflates to gigabytes) is bounded by the process the task runs in
 * (workers/process-lane.ts).
 */
import { DocumentTooLargeError } from './html-prescan.js';
import { UnsupportedDocumentError } from './document-errors.js';

export interface PdfReadLimits {
  /** Pages in the document; a longer one is refused before any page is read. */
  maxPages: number;
  /** Text pieces (text-showing operators) in the whole document. */
  maxTextItems: number;
}

export const PDF_READ_LIMITS: Readonly<PdfReadLimits> = Object.freeze({ maxPages: 2000, maxTextItems: 1_000_000 });

const ADVICE = 'split it into smaller files, or export its text and upload that as Markdown or plain text';

export interface ParsedPdf { title: string; pages: string[] }

export async function readPdf(bytes: Uint8Array, limits: PdfReadLimits = PDF_READ_LIMITS): Promise<ParsedPdf> {
  const { getDocumentProxy, getMeta } = await import('unpdf');
  // pdf.js takes ownership of the buffer it reads; give it a copy so callers keep theirs.
  const pdf = await getDocumentProxy(new Uint8Array(bytes)).catch((err: unknown) => {
    // pdf.js's exceptions (InvalidPDFException...) are not Errors and say only "Invalid PDF structure."
    const what = String((err as { message?: unknown })?.message ?? err).replace(/\.$/, '');
    throw new UnsupportedDocumentError(`the PDF cannot be read (${what}); it may be damaged or cut short`);
  });
  try {
    if (pdf.numPages > limits.maxPages) {
      throw new DocumentTooLargeError(`the PDF has ${pdf.numPages.toLocaleString('en')} pages and at most ${limits.maxPages.toLocaleString('en')} are read; ${ADVICE}`);
    }
    const pages: string[] = [];
    let items = 0;
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      items += content.items.length;
      if (items > limits.maxTextItems) {
        throw new DocumentTooLargeError(`the PDF has more than ${limits.maxTextItems.toLocaleString('en')} pieces of text (reached on page ${n}) and no more are read; ${ADVICE}`);
      }
      pages.push(content.items.map((item: { str?: string; hasEOL?: boolean }) => (item.str === undefined ? '' : item.str + (item.hasEOL ? '\n' : ''))).join(''));
      page.cleanup();
    }
    let title = '';
    try { title = String((await getMeta(pdf)).info?.Title ?? '').trim(); } catch { /* no metadata */ }
    return { title, pages };
  } finally {
    await pdf.destroy();
  }
}
