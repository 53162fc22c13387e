import { z } from 'zod';
import { badRequest } from '../../kernel/errors.js';
import { listGaps } from '../../knowledge/gaps.js';
import type { KnowledgeService } from '../../knowledge/service.js';
import { CreateSourceBody, PatchSourceBody, SearchBody, type KnowledgeDocument, type KnowledgeSource } from '../../knowledge/types.js';
import { extraRoute, route, type ApiModule } from '../define.js';
import { getKnowledgeSettings, KnowledgeSettingsBody, saveKnowledgeSettings } from '../../knowledge/settings.js';
import { listOf, pageOf } from './list-schemas.js';

/** The largest UPLOAD_LIMIT_BYTES the config accepts; the configured limit is checked in the handler. */
const UPLOAD_TYPES = ['application/pdf', 'text/markdown', 'text/plain', 'text/html'];

const sourceView = (s: KnowledgeSource) => ({
  id: s._id, kind: s.kind, name: s.name, url: s.url, settings: s.settings, status: s.status, progress: s.progress,
  documentCount: s.documentCount, chunkCount: s.chunkCount, error: s.error,
  file: s.file ? { filename: s.file.filename, contentType: s.file.contentType, size: s.file.size } : null,
  textChars: s.kind === 'text' ? (s.text ?? '').length : undefined,
  createdAt: s.createdAt, updatedAt: s.updatedAt, indexedAt: s.indexedAt,
});

const documentView = (d: KnowledgeDocument) => ({
  id: d._id, sourceId: d.sourceId, url: d.url, title: d.title, type: d.type, bytes: d.bytes, chunkCount: d.chunkCount, indexedAt: d.indexedAt,
});

const SourceResponse = z.object({
  id: z.string(), kind: z.enum(['text', 'page', 'sitemap', 'crawl', 'file']), name: z.string(), url: z.string().nullable(),
  status: z.enum(['queued', 'indexing', 'ready', 'failed']), progress: z.object({ done: z.number(), total: z.number() }),
  documentCount: z.number(), chunkCount: z.number(), error: z.string().nullable(),
}).passthrough();

const UploadQuery = z.object({ filename: z.string().min(1).max(255), name: z.string().trim().min(1).max(200).optional() });
const GapsQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).default(50), before: z.coerce.number().int().min(0).optional() });
const DocumentResponse = z.object({
  id: z.string(), sourceId: z.string(), url: z.string().nullable(), title: z.string(), type: z.string(), bytes: z.number(),
  chunkCount: z.number(), indexedAt: z.number(),
});
const SearchResponse = z.object({
  mode: z.enum(['lexical', 'vector', 'hybrid']), relevant: z.boolean(),
  warning: z.string().optional().describe('set when the embedding provider failed and the results are lexical only'),
  results: z.array(z.object({ excerpt: z.string(), title: z.string(), url: z.string().nullable(), score: z.number(), sourceId: z.string(), documentId: z.string() })),
});
const SettingsResponse = z.object({
  embedding: z.object({ connectionId: z.string(), model: z.string().nullable() }).nullable().describe('what embeds documents and queries; null: lexical search only'),
  explicit: z.boolean().describe('false while nothing was chosen: the oldest OpenAI or Gemini connection embeds with its default model'),
  reindexing: z.array(z.string()).optional().describe('sources started again with the new embedder; GET /knowledge shows their progress'),
});
const GapResponse = z.object({ question: z.string(), count: z.number(), firstAskedAt: z.number(), lastAskedAt: z.number(), botIds: z.array(z.string()) });

/** The knowledge routes, over the knowledge service the root made. */
export const knowledgeModule = (knowledge: KnowledgeService): ApiModule => ({
  name: 'knowledge',
  start(app) {
    // Jobs a previous process left running continue in the background.
    void knowledge.runner.resumeAll().catch((err) => app.log.error({ err }, 'could not resume knowledge jobs'));
  },
  routes: [
    route({ op: 'GET /api/v1/knowledge', response: listOf(SourceResponse),
      handler: async (ctx) => ({ items: (await knowledge.list(ctx.workspaceId)).map(sourceView) }) }),

    route({ op: 'POST /api/v1/knowledge', body: CreateSourceBody, status: 201, response: SourceResponse,
      handler: async (ctx) => {
        const s = await knowledge.create(ctx.workspaceId, ctx.body);
        await ctx.audit('knowledge.create', { type: 'knowledge_source', id: s._id }, { kind: s.kind });
        return sourceView(s);
      } }),

    route({ op: 'POST /api/v1/knowledge/files', status: 201, response: SourceResponse, query: UploadQuery, bodyLimitBytes: 'upload',
      rawBody: { contentTypes: UPLOAD_TYPES, description: 'the file itself as the body (PDF, Markdown, text or HTML), its name in ?filename=; the type is checked by its bytes; size up to UPLOAD_LIMIT_BYTES' },
      handler: async (ctx) => {
        const type = ctx.req.headers['content-type'] ?? '';
        if (type.startsWith('multipart/')) throw badRequest('body: send the file itself as the body with its Content-Type and ?filename=, not multipart form data');
        const s = await knowledge.upload(ctx.workspaceId, ctx.req.body, type, ctx.query.filename, ctx.query.name);
        await ctx.audit('knowledge.upload', { type: 'knowledge_source', id: s._id }, { filename: ctx.query.filename, size: ctx.req.body.length });
        return sourceView(s);
      } }),

    route({ op: 'PATCH /api/v1/knowledge/{id}', body: PatchSourceBody, response: SourceResponse,
      handler: async (ctx) => {
        const s = await knowledge.patch(ctx.workspaceId, ctx.params.id, ctx.body);
        await ctx.audit('knowledge.update', { type: 'knowledge_source', id: s._id }, { fields: Object.keys(ctx.body) });
        return sourceView(s);
      } }),

    route({ op: 'POST /api/v1/knowledge/{id}/reindex', status: 202, response: SourceResponse,
      handler: async (ctx) => {
        const s = await knowledge.reindex(ctx.workspaceId, ctx.params.id);
        await ctx.audit('knowledge.reindex', { type: 'knowledge_source', id: s._id });
        return sourceView(s);
      } }),

    route({ op: 'DELETE /api/v1/knowledge/{id}',
      handler: async (ctx) => {
        await knowledge.remove(ctx.workspaceId, ctx.params.id);
        await ctx.audit('knowledge.delete', { type: 'knowledge_source', id: ctx.params.id });
      } }),

    route({ op: 'GET /api/v1/knowledge/{id}/documents', response: listOf(DocumentResponse),
      handler: async (ctx) => ({ items: (await knowledge.documents(ctx.workspaceId, ctx.params.id)).map(documentView) }) }),

    route({ op: 'POST /api/v1/knowledge/search', body: SearchBody, response: SearchResponse,
      handler: async (ctx) => {
        const { query, sourceIds, topK } = ctx.body;
        const found = await knowledge.search(ctx.workspaceId, query, { sourceIds, topK, signal: ctx.req.signal });
        return {
          mode: found.mode, relevant: found.relevant, ...(found.warning ? { warning: found.warning } : {}),
          results: found.results.map((r) => ({ excerpt: r.excerpt, title: r.title, url: r.url, score: r.score, sourceId: r.sourceId, documentId: r.documentId })),
        };
      } }),

    extraRoute({ method: 'GET', path: '/api/v1/knowledge/settings', access: { kind: 'scope', scope: 'bots:read' }, tag: 'Knowledge',
      summary: 'which connection and model embed documents and queries', response: SettingsResponse,
      handler: async (ctx) => getKnowledgeSettings(ctx.app, ctx.workspaceId) }),

    extraRoute({ method: 'PUT', path: '/api/v1/knowledge/settings', access: { kind: 'scope', scope: 'knowledge:write' }, tag: 'Knowledge',
      summary: 'choose the connection and model that embed (vectors of another embedder are not searched: reindex)', body: KnowledgeSettingsBody, response: SettingsResponse,
      handler: async (ctx) => {
        const settings = await saveKnowledgeSettings(ctx.app, ctx.workspaceId, ctx.body, ctx.app.clock.now());
        await ctx.audit('knowledge.settings', { type: 'workspace', id: ctx.workspaceId }, { embedding: settings.embedding, reindex: ctx.body.reindex });
        if (!ctx.body.reindex) return settings;
                const reindexing: string[] = [];
        for (const s of await knowledge.list(ctx.workspaceId)) reindexing.push((await knowledge.reindex(ctx.workspaceId, s._id))._id);
        return { ...settings, reindexing };
      } }),

    route({ op: 'GET /api/v1/knowledge/gaps', query: GapsQuery, response: pageOf(GapResponse),
      handler: async (ctx) => listGaps(ctx.app, ctx.workspaceId, { limit: ctx.query.limit, before: ctx.query.before }) }),
  ],
});
