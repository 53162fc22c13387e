/** Providers area (service-api.md, Providers): catalog, connections (key checked first, never returned), models, voices. */
import { z } from 'zod';
import { botListsChanged } from '../../bots/list-cache.js';
import { botsUsing, connectionIdsOf } from '../../bots/records.js';
import { catalog } from '../../providers/index.js';
import {
  connect, connectionModels, connectionView, connectionVoices, getConnection, listConnections, previewVoice,
  removeConnection, testConnection, updateConnection,
} from '../../providers/connections.js';
import { reply, route, type ApiModule } from '../define.js';
import { listOf } from './list-schemas.js';

const Kind = z.enum(['openai_compatible', 'openai', 'gemini', 'speech']);
const Name = z.string().trim().min(1).max(80);
const ApiKey = z.string().trim().min(1).max(4096);
const BaseUrl = z.string().trim().max(2048).nullable();

export const ConnectBody = z.strictObject({ kind: Kind, name: Name.optional(), apiKey: ApiKey, baseUrl: BaseUrl.optional() });
export const UpdateBody = z.strictObject({ name: Name.optional(), apiKey: ApiKey.optional(), baseUrl: BaseUrl.optional() });
const ModelsQuery = z.strictObject({ refresh: z.enum(['0', '1', 'true', 'false']).optional() });

export const ConnectionShape = z.object({
  id: z.string(), kind: Kind, letter: z.enum(['A', 'B', 'C', 'D']), name: z.string(), baseUrl: z.string().nullable(),
  keyHint: z.string(), createdAt: z.number(), updatedAt: z.number(),
});
const Capabilities = z.object({
  text: z.boolean(), vision: z.boolean(), tools: z.boolean(), reasoning: z.boolean(), embeddings: z.boolean(),
  tts: z.boolean(), stt: z.boolean(), realtime: z.boolean(),
});
/** The models, plus which one a new bot would get and when the list was fetched. */
const ModelsResponse = listOf(z.object({ id: z.string(), label: z.string(), capabilities: Capabilities }))
  .extend({ recommended: z.string().nullable(), cachedAt: z.number() });
const VoicesResponse = listOf(z.object({ id: z.string(), name: z.string(), language: z.string().optional(), previewUrl: z.string() }));

const CatalogEntryShape = z.object({
  kind: Kind, letter: z.enum(['A', 'B', 'C', 'D']), label: z.string(), needsBaseUrl: z.boolean(), defaultBaseUrl: z.string().nullable(),
  capabilities: z.object({ text: z.boolean(), embeddings: z.boolean(), stt: z.boolean(), tts: z.boolean(), realtimeVoice: z.boolean(), hostedAgent: z.boolean() }),
  docsHint: z.string(),
});

const target = (id: string) => ({ type: 'provider', id });

export const providersModule: ApiModule = {
  name: 'providers',
  routes: [
    route({ op: 'GET /api/v1/providers/catalog', response: listOf(CatalogEntryShape), handler: () => ({ items: catalog() }) }),
    route({ op: 'GET /api/v1/providers', response: listOf(ConnectionShape),
      handler: async ({ app, workspaceId }) => ({ items: (await listConnections(app, workspaceId)).map((d) => connectionView(app, d)) }) }),
    route({ op: 'POST /api/v1/providers', body: ConnectBody, response: ConnectionShape, status: 201,
      handler: async (ctx) => {
        const doc = await connect(ctx.app, ctx.workspaceId, ctx.body);
        // A bot without a connection of its own uses the first one connected.
        await botListsChanged(ctx.app, ctx.workspaceId);
        await ctx.audit('provider.connect', target(doc._id), { kind: doc.kind, name: doc.name });
        return connectionView(ctx.app, doc);
      } }),
    route({ op: 'PATCH /api/v1/providers/{id}', body: UpdateBody, response: ConnectionShape,
      handler: async (ctx) => {
        const doc = await updateConnection(ctx.app, ctx.workspaceId, ctx.params.id, ctx.body);
        // The kept bots and the conversations under way hold the connection's key and base URL: read again at their
        // next connect or reply, here and on every process of a group, before this answer.
        await botListsChanged(ctx.app, ctx.workspaceId);
        // Field names only: the key itself never reaches the audit log.
        await ctx.audit('provider.update', target(doc._id), { fields: Object.keys(ctx.body) });
        return connectionView(ctx.app, doc);
      } }),
    route({ op: 'DELETE /api/v1/providers/{id}',
      handler: async (ctx) => {
        const { app, workspaceId } = ctx;
        await removeConnection(app, workspaceId, ctx.params.id, (id) => botsUsing(app, workspaceId, (c) => connectionIdsOf(c).includes(id)));
        await botListsChanged(app, workspaceId);
        await ctx.audit('provider.delete', target(ctx.params.id));
      } }),
    route({ op: 'POST /api/v1/providers/{id}/test', response: z.object({ ok: z.boolean(), message: z.string(), checkedAt: z.number() }),
      handler: ({ app, workspaceId, params }) => testConnection(app, workspaceId, params.id) }),
    route({ op: 'GET /api/v1/providers/{id}/models', query: ModelsQuery, response: ModelsResponse,
      handler: ({ app, workspaceId, params, query }) => connectionModels(app, workspaceId, params.id, query.refresh === '1' || query.refresh === 'true') }),
    route({ op: 'GET /api/v1/providers/{id}/voices', response: VoicesResponse,
      handler: async ({ app, workspaceId, params }) => ({ items: await connectionVoices(app, workspaceId, params.id) }) }),
    route({ op: 'GET /api/v1/providers/{id}/voices/{voiceId}/preview',
      produces: { contentTypes: ['audio/*'], description: 'a short spoken sample in the audio format the provider gives (e.g. audio/mpeg, audio/wav)' },
      handler: async ({ app, workspaceId, params }) => {
        await getConnection(app, workspaceId, params.id);
        const audio = await previewVoice(app, workspaceId, params.id, params.voiceId);
        return reply({ headers: { 'Content-Type': audio.contentType, 'Cache-Control': 'private, max-age=3600', 'X-Content-Type-Options': 'nosniff' }, body: audio.audio });
      } }),
  ],
};
