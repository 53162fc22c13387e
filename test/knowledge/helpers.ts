import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { AppContext } from '../../src/app.js';
import { knowledge } from '../../src/knowledge/service.js';
import { sealSecret } from '../../src/security/secret-box.js';
import { newId } from '../../src/store/ids.js';

/** A real multi-page PDF made with pdf-lib: each page has a heading line and a few lines of text. */
export async function makePdf(pages: Array<{ heading: string; lines: string[] }>): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.setTitle('Garden handbook');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const p of pages) {
    const page = doc.addPage([595, 842]);
    page.drawText(p.heading, { x: 50, y: 780, size: 16, font });
    p.lines.forEach((line, i) => page.drawText(line, { x: 50, y: 750 - i * 16, size: 11, font }));
  }
  return Buffer.from(await doc.save());
}

/** Stores a provider connection the way the providers area does, pointing at a fake server. */
export async function addProviderConnection(app: AppContext, workspaceId: string, baseUrl: string, apiKey: string): Promise<string> {
  const _id = newId('prov');
  await app.store.collection('providers').insertOne({ _id, workspaceId, kind: 'openai', name: 'Fake OpenAI', baseUrl, apiKeySealed: sealSecret(apiKey, app.secretKey, _id) } as never);
  return _id;
}

/** Waits until every ingestion job of the app has finished (no polling: the runner's own promises). */
export const ingestionIdle = (app: AppContext, sourceId?: string) => knowledge(app).runner.idle(sourceId);
