/** PDFs that used to hold the server's memory (issue 40, item 6), written object by object. */
import { readFileSync } from 'node:fs';
import { createDeflate, deflateSync } from 'node:zlib';

/** A PDF of these objects (numbered from 1; object 1 is the catalog) with its cross-reference table. */
function pdfOf(objects: Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let length = parts[0].length;
  objects.forEach((body, i) => {
    offsets.push(length);
    const part = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    parts.push(part);
    length += part.length;
  });
  const xref = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  parts.push(Buffer.from(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(parts);
}

const stream = (data: Buffer, filter = true) =>
  Buffer.concat([Buffer.from(`<< /Length ${data.length}${filter ? ' /Filter /FlateDecode' : ''} >>\nstream\n`), data, Buffer.from('\nendstream')]);
const FONT = Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
const page = (contents: number) => Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents ${contents} 0 R /Resources << /Font << /F1 4 0 R >> >> >>`);

/**
 * The PDF: `pages` page objects (5,000: about 820 KB) that all draw one content stream of `lines` lines of
 * text (100,000: 3.5 MB once inflated). Read page after page, it is 17 GB of text.
 */
export function sharedStreamPdf(pages = 5000, lines = 100_000): Buffer {
  const ops = ['BT /F1 10 Tf 20 800 Td'];
  for (let i = 0; i < lines; i++) ops.push(`(Row ${i % 97} of the greenhouse ledger) Tj 0 -1 Td`);
  ops.push('ET');
  const kids = Array.from({ length: pages }, (_, i) => `${5 + i} 0 R`).join(' ');
  return pdfOf([
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from(`<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`),
    stream(deflateSync(ops.join('\n'), { level: 9 })),
    FONT,
    ...Array.from({ length: pages }, () => page(3)),
  ]);
}

/**
 * One page whose content stream inflates to `mb` MB of spaces around two lines of text (512: a 2.3 MB file).
 * pdf.js keeps the inflated stream in a buffer outside the V8 heap, which no heap limit counts.
 */
export async function inflatingPdf(mb: number): Promise<Buffer> {
  const z = createDeflate({ level: 1 });
  const out: Buffer[] = [];
  z.on('data', (d: Buffer) => out.push(d));
  const done = new Promise((resolve) => z.once('end', resolve));
  z.write('BT /F1 10 Tf 20 800 Td (The first line) Tj ET\n');
  const spaces = Buffer.alloc(1 << 20, 0x20);
  for (let i = 0; i < mb; i++) if (!z.write(spaces)) await new Promise((resolve) => z.once('drain', resolve));
  z.end('\nBT /F1 10 Tf 20 780 Td (The last line) Tj ET\n');
  await done;
  return pdfOf([
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [5 0 R] /Count 1 >>'),
    stream(Buffer.concat(out)),
    FONT,
    page(3),
  ]);
}

/** This process's resident memory in MB (the server runs in the test's process). */
export const residentMb = () => Number(readFileSync('/proc/self/status', 'utf8').match(/^VmRSS:\s+(\d+)/m)?.[1]) / 1024;

/** Samples this process's resident memory every 20 ms until stopped; answers the highest. */
export function watchMemory(): { stop(): number } {
  let peak = residentMb();
  const timer = setInterval(() => { peak = Math.max(peak, residentMb()); }, 20);
  return { stop() { clearInterval(timer); return Math.max(peak, residentMb()); } };
}
