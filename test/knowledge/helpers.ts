import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { AppContext } from '../../src/app/context.js';
import { knowledge } from '../../src/knowledge/service.js';
import { sealSecret } from '../../src/security/secret-box.js';
import { newId } from '../../src/store/ids.js';
import { fakeEmbedding } from '../fakes/embeddings.js';
import { startFakeOpenAI } from '../fakes/openai.js';
import type { FakeServer } from '../fakes/script.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startFakeSite, type FakeSite } from './fake-site.js';

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

/**
 * An OpenAI-style embeddings endpoint that answers HTTP 500 while `failing` is true (with a 1 ms
 * retry-after, so the SDK's retries stay fast) and fake embeddings once it is set to false.
 */
export interface FlakyEmbeddings {
  baseUrl: string; apiKey: string; failing: boolean; requests: number;
  /** When set, this many more embedding requests succeed, then the service fails (a provider going down mid-reindex). */
  okLeft?: number;
  /** Milliseconds each answer waits (an indexing run long enough to search during it). */
  delayMs?: number;
  close(): Promise<void>;
}

export async function startFlakyEmbeddings(): Promise<FlakyEmbeddings> {
  const state: FlakyEmbeddings = { baseUrl: '', apiKey: 'flaky-key', failing: true, requests: 0, close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.requests++;
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      if (state.okLeft !== undefined && state.okLeft-- <= 0) state.failing = true;
      if (state.failing || req.url !== '/v1/embeddings') {
        return send(500, { error: { message: 'The embedding service is down', type: 'server_error', param: null, code: null } }, { 'retry-after-ms': '1' });
      }
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')).input as string[];
      const body = { object: 'list', model: 'text-embedding-3-small', data: input.map((t, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(t) })), usage: { prompt_tokens: 1, total_tokens: 1 } };
      if (state.delayMs) setTimeout(() => send(200, body), state.delayMs);
      else send(200, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });
  return state;
}

export interface KnowledgeWorld { server: TestServer; owner: TestSession; site: FakeSite; openai: FakeServer; close(): Promise<void> }

/** A server with an owner, the fake website, and a fake OpenAI connection as the workspace's embedder. */
export async function startKnowledgeWorld(env?: Record<string, string>): Promise<KnowledgeWorld> {
  const server = await startTestServer({ env });
  const owner = await setupOwner(server);
  const site = await startFakeSite();
  const openai = await startFakeOpenAI();
  await addProviderConnection(server.app, owner.workspaceId, openai.baseUrl, openai.apiKey);
  return {
    server, owner, site, openai,
    async close() { await server.stop(); await site.close(); await openai.close(); },
  };
}

/** Uploads a file as the world's owner (POST /knowledge/files) and returns the new source's id (201 asserted). */
export async function uploadFile(world: KnowledgeWorld, body: string | Buffer, contentType: string, filename: string): Promise<string> {
  const res = await world.server.fetch(`/api/v1/knowledge/files?filename=${encodeURIComponent(filename)}`, {
    method: 'POST', headers: { ...world.owner.headers, 'content-type': contentType }, body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  const answer = await res.json() as { id: string };
  if (res.status !== 201) throw new Error(`upload of ${filename}: ${res.status} ${JSON.stringify(answer)}`);
  return answer.id;
}
