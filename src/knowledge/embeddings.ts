import type { AppContext } from '../app.js';
import type { ProviderConnection } from '../providers/index.js';
import { openProviderKey, providers } from '../providers/connections.js';
import { runTask, type Lane } from '../../workers/pool.js';

/** Kinds whose adapters have a default embedding model (kind A needs a model the user would have to name). */
const EMBEDDING_KINDS = new Set<ProviderConnection['kind']>(['openai', 'gemini']);
export const EMBED_BATCH = 64;
/**
 * The length asked of the default embedding models (text-embedding-3-small gives 1536 and gemini-embedding-001
 * 3072 unless asked): both are Matryoshka-trained, so 512 keeps most of the quality at a third or a sixth of
 * the memory and scan time. See docs/decisions.md.
 */
export const EMBEDDING_DIMENSIONS = 512;

export interface Embedder {
  connection: ProviderConnection;
  /** Stored with every vector: vectors of one embedder are only compared with queries of the same one. */
  key: string;
}

/** The workspace's embedding-capable connection (the oldest one), or null: then search is lexical only. */
export async function findEmbedder(app: AppContext, workspaceId: string): Promise<Embedder | null> {
  const rec = await providers(app).findOne(
    { workspaceId, kind: { $in: [...EMBEDDING_KINDS] } }, { sort: [['_id', 1]] },
  );
  if (!rec) return null;
  const connection: ProviderConnection = { id: rec._id, kind: rec.kind, apiKey: openProviderKey(app, rec), baseUrl: rec.baseUrl ?? null };
  return { connection, key: rec._id };
}

/**
 * Embeds texts in batches on the worker pool; vectors come back unit length. Documents use the ingest lane;
 * a search someone waits for passes `interactive`, so it never queues behind documents being read.
 */
export async function embedTexts(app: AppContext, embedder: Embedder, texts: string[], signal?: AbortSignal, lane?: Lane): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += EMBED_BATCH) {
    const { vectors } = await runTask('embed-batch', {
      connection: embedder.connection, texts: texts.slice(i, i + EMBED_BATCH), dimensions: EMBEDDING_DIMENSIONS, allowPrivateNetwork: app.config.allowPrivateNetwork,
    }, { signal, lane });
    out.push(...vectors);
  }
  return out;
}

/** One vector collection per dimension; the payload says which embedder made each point. */
export const vectorCollection = (dimension: number) => `knowledge_${dimension}`;
