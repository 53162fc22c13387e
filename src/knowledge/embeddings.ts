import type { AppContext } from '../app/context.js';
import type { ProviderConnection } from '../providers/index.js';
import { openProviderKey, providers } from '../providers/connections.js';
import { runTask, type Lane } from '../../workers/pool.js';
import { LOCAL_MODEL } from '../providers/local-model.js';
import { knowledgeSettings } from './settings.js';

/** Kinds whose adapters have a default embedding model (kind A embeds only when the knowledge settings name one). */
const EMBEDDING_KINDS = new Set<ProviderConnection['kind']>(['openai', 'gemini']);
export const EMBED_BATCH = 64;
/**
 * The length asked of the default embedding models (text-embedding-3-small gives 1536 and gemini-embedding-001
 * 3072 unless asked): both are Matryoshka-trained, so 512 keeps most of the quality at a third or a sixth of
 * the memory and scan time. See docs/decisions.md.
 */
export const EMBEDDING_DIMENSIONS = 512;

export interface Embedder {
  /** null: the embedded model (src/providers/local-model.ts), run on the worker pool with no provider. */
  connection: ProviderConnection | null;
  /** The model chosen in the knowledge settings; null: the adapter's default embedding model. */
  model: string | null;
  /**
   * Stored with every vector: vectors of one embedder are only compared with queries of the same one.
   * The connection id (default model), or connection id and model; `embedded:<model>` for the embedded model.
   */
  key: string;
}

/**
 * The connectionId that chooses the embedded model (no provider); provider connection ids start with `prov_`.
 * Declared here, not in settings.ts, which imports this file: LOCAL_EMBEDDER reads it as the modules load.
 */
export const EMBEDDED = 'embedded';

/** The embedded model as an embedder (no connection). */
export const LOCAL_EMBEDDER: Embedder = Object.freeze({ connection: null, model: LOCAL_MODEL, key: `${EMBEDDED}:${LOCAL_MODEL}` });

/**
 * The workspace's embedder, or null: then search is lexical only. The knowledge settings' choice when one is
 * saved (null there: no embeddings; a deleted connection: none either); else the oldest OpenAI or Gemini
 * connection with its default model; else the embedded model (unless the server turned it off).
 */
export async function findEmbedder(app: AppContext, workspaceId: string): Promise<Embedder | null> {
  const chosen = await knowledgeSettings(app).findOne({ workspaceId, _id: workspaceId });
  if (chosen && !chosen.embedding) return null;
  if (chosen?.embedding?.connectionId === EMBEDDED) return app.config.embeddedEmbeddings ? LOCAL_EMBEDDER : null;
  const rec = chosen?.embedding
    ? await providers(app).findById(workspaceId, chosen.embedding.connectionId)
    : await providers(app).findOne({ workspaceId, kind: { $in: [...EMBEDDING_KINDS] } }, { sort: [['_id', 1]] });
  if (!rec) return !chosen && app.config.embeddedEmbeddings ? LOCAL_EMBEDDER : null;
  const model = chosen?.embedding?.model ?? null;
  const connection: ProviderConnection = { id: rec._id, kind: rec.kind, apiKey: openProviderKey(app, rec), baseUrl: rec.baseUrl ?? null };
  return { connection, model, key: model ? `${rec._id}:${model}` : rec._id };
}

/**
 * Embeds texts in batches on the worker pool; vectors come back unit length. Documents use the ingest lane;
 * a search someone waits for passes `interactive`, so it never queues behind documents being read.
 */
export async function embedTexts(app: AppContext, embedder: Embedder, texts: string[], signal?: AbortSignal, lane?: Lane): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  // The embedded model's query embeddings have a lane of their own: the model then lives in one thread
  // there, and a visitor's images (interactive lane) never wait behind it.
  const taskLane = !embedder.connection && lane === 'interactive' ? 'search' : lane;
  // The built-in model spends ~0.1 s of CPU per passage (far more on a busy machine, at nice +10): smaller
  // batches keep each task well inside its time limit.
  const size = embedder.connection ? EMBED_BATCH : 16;
  for (let i = 0; i < texts.length; i += size) {
    const { vectors } = await runTask('embed-batch', {
      connection: embedder.connection, texts: texts.slice(i, i + size), allowPrivateNetwork: app.config.allowPrivateNetwork,
      // Only the default models are known to take a shorter length; a chosen model gives its own.
      ...(embedder.model ? { model: embedder.model } : { dimensions: EMBEDDING_DIMENSIONS }),
    }, { signal, lane: taskLane });
    out.push(...vectors);
  }
  return out;
}

/** One vector collection per dimension; the payload says which embedder made each point. */
export const vectorCollection = (dimension: number) => `knowledge_${dimension}`;
