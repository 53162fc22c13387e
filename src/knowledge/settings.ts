import { z } from 'zod';
import type { AppContext } from '../app/context.js';
import { invalid, notFound } from '../kernel/errors.js';
import { openProviderKey, providers } from '../providers/connections.js';
import { EMBEDDED, embedTexts } from './embeddings.js';

import { EMBEDDING_CHECK_TEXT } from './embedding-check.js';
import { LOCAL_MODEL } from '../providers/local-model.js';

/**
 * A workspace's knowledge settings: which connection and model embed documents and queries (`embedded`: the
 * model inside the server, no provider). Without a record the oldest OpenAI or Gemini connection embeds with
 * its default model (as before this setting existed), and without one the embedded model (unless
 * EMBEDDED_EMBEDDINGS=false); `embedding: null` means "no vectors, lexical search only", whatever exists.
 */
export interface KnowledgeSettingsRecord {
  _id: string;
  workspaceId: string;
  embedding: { connectionId: string; model: string | null } | null;
  updatedAt: number;
}

export const KnowledgeSettingsBody = z.object({
  embedding: z.object({
    connectionId: z.string().min(1).max(100).describe('a provider connection id, or "embedded" for the embedded model (no provider)'),
    model: z.string().trim().min(1).max(200).optional().describe('required for an OpenAI-compatible (kind A) connection; the default embedding model of OpenAI or Gemini when absent'),
  }).strict().nullable().describe('null: no embeddings, lexical search only'),
  reindex: z.boolean().default(false).describe('index every source again with the new embedder (each source reports its progress)'),
}).strict();

export const knowledgeSettings = (app: AppContext) => app.store.collection<KnowledgeSettingsRecord>('knowledge_settings');

/** Kinds with a default embedding model; kind A embeds only with a model the owner names. */
const DEFAULT_MODEL_KINDS = new Set(['openai', 'gemini']);

export interface SettingsView {
  embedding: { connectionId: string; model: string | null } | null;
  /** False while no choice was saved: the oldest OpenAI or Gemini connection embeds. */
  explicit: boolean;
}

export async function getKnowledgeSettings(app: AppContext, workspaceId: string): Promise<SettingsView> {
  const rec = await knowledgeSettings(app).findOne({ workspaceId, _id: workspaceId });
  if (rec) return { embedding: rec.embedding, explicit: true };
  const implicit = await providers(app).findOne({ workspaceId, kind: { $in: [...DEFAULT_MODEL_KINDS] } }, { sort: [['_id', 1]] });
  if (implicit) return { embedding: { connectionId: implicit._id, model: null }, explicit: false };
  return { embedding: app.config.embeddedEmbeddings ? { connectionId: EMBEDDED, model: LOCAL_MODEL } : null, explicit: false };
}

/** Checks the choice against the workspace's connections and saves it. */
export async function saveKnowledgeSettings(app: AppContext, workspaceId: string, body: z.infer<typeof KnowledgeSettingsBody>, now: number): Promise<SettingsView> {
  let embedding: KnowledgeSettingsRecord['embedding'] = null;
  if (body.embedding?.connectionId === EMBEDDED) {
    if (!app.config.embeddedEmbeddings) {
      throw invalid('embedding.connectionId: the embedded model is turned off on this server (EMBEDDED_EMBEDDINGS=false); set EMBEDDED_EMBEDDINGS=true and restart it, or choose a provider connection');
    }
    if (body.embedding.model && body.embedding.model !== LOCAL_MODEL) {
      throw invalid(`embedding.model: the embedded model is ${LOCAL_MODEL}; leave model out, or choose a provider connection for ${body.embedding.model}`);
    }
    embedding = { connectionId: EMBEDDED, model: LOCAL_MODEL };
  } else if (body.embedding) {
    const conn = await providers(app).findById(workspaceId, body.embedding.connectionId);
    if (!conn) throw notFound('provider connection');
    const model = body.embedding.model ?? null;
    if (conn.kind === 'openai_compatible' && !model) {
      throw invalid('embedding.model: name the embedding model your server serves (for example nomic-embed-text on Ollama); an OpenAI-compatible connection has no default');
    }
    if (conn.kind !== 'openai_compatible' && !DEFAULT_MODEL_KINDS.has(conn.kind)) {
      throw invalid(`embedding.connectionId: a ${conn.kind} connection cannot make embeddings; choose an OpenAI, Gemini or OpenAI-compatible connection`);
    }
    // Checked with the provider before it is saved: a chat model or a mistyped id would fail every document later.
    const connection = { id: conn._id, kind: conn.kind, apiKey: openProviderKey(app, conn), baseUrl: conn.baseUrl ?? null };
    await embedTexts(app, { connection, model, key: 'check' }, [EMBEDDING_CHECK_TEXT], undefined, 'interactive').catch((err: unknown) => {
      const why = err instanceof Error ? err.message : String(err);
      throw invalid(`embedding.model: ${conn.name} could not make an embedding with ${model ?? 'its default embedding model'} (${why}); name an embedding model this connection serves`);
    });
    embedding = { connectionId: conn._id, model };
  }
  const col = knowledgeSettings(app);
  const rec: KnowledgeSettingsRecord = { _id: workspaceId, workspaceId, embedding, updatedAt: now };
  if (await col.findOne({ workspaceId, _id: workspaceId })) await col.updateOne({ workspaceId, _id: workspaceId }, { $set: { embedding, updatedAt: now } });
  else await col.insertOne(rec);
  return { embedding, explicit: true };
}
