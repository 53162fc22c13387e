/**
 * Piscina task: embeds a batch of texts with the workspace's provider connection, or with the embedded model
 * when there is none (src/providers/local-model.ts, loaded once per thread on its first batch). Runs off the
 * main thread because decoding a large embeddings response (thousands of floats per text), and the embedded
 * model even more so, is CPU work. The request goes through the guarded client: the base URL is user-supplied.
 */
import { embedLocally } from '../../src/providers/local-model.js';
import { createProvider, type ProviderConnection } from '../../src/providers/index.js';
import { createGuardedClient } from '../../src/security/guarded-client.js';
import { reportsStart } from '../started.js';

export interface EmbedBatchInput {
  /** null: the embedded model (no provider, nothing leaves the machine). */
  connection: ProviderConnection | null;
  model?: string;
  texts: string[];
  /** Asked of the provider (OpenAI `dimensions`, Gemini `outputDimensionality`); the model's full length when absent. */
  dimensions?: number;
  allowPrivateNetwork: boolean;
}

export interface EmbedBatchOutput {
  /** Unit-length vectors, one per text, in order. */
  vectors: Float32Array[];
  dimension: number;
}

async function embedBatch(input: EmbedBatchInput): Promise<EmbedBatchOutput> {
  if (!input.connection) {
    const vectors = await embedLocally(input.texts);
    return { vectors, dimension: vectors[0]?.length ?? 0 };
  }
  const client = createGuardedClient({ allowPrivateNetwork: input.allowPrivateNetwork, timeoutMs: 60_000, maxResponseBytes: 64 * 1024 * 1024 });
  try {
    const provider = createProvider(input.connection, { fetch: client.fetch as typeof fetch });
    if (!provider.embed) throw new Error(`provider kind ${input.connection.kind} cannot make embeddings`);
    const raw = await provider.embed(input.texts, input.model, { dimensions: input.dimensions });
    if (raw.length !== input.texts.length) throw new Error(`provider returned ${raw.length} embeddings for ${input.texts.length} texts`);
    const vectors = raw.map((v) => {
      const out = Float32Array.from(v);
      let n = 0;
      for (const x of out) n += x * x;
      n = Math.sqrt(n) || 1;
      for (let i = 0; i < out.length; i++) out[i] /= n;
      return out;
    });
    return { vectors, dimension: vectors[0]?.length ?? 0 };
  } finally {
    await client.close();
  }
}

export default reportsStart(embedBatch);
