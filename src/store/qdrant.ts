import { QdrantClient } from '@qdrant/js-client-rest';
import { ID_KEY, indexSchemaFor, pointUuid, toQdrantFilter } from './qdrant-filter.js';
import type { VectorFilter, VectorHit, VectorPoint, VectorStore } from './types.js';

const UPSERT_BATCH = 256;

/**
 * The Qdrant vector store (when QDRANT_URL is set). Collections use cosine distance; every write waits until
 * Qdrant has applied it (wait: true), so a search right after an upsert sees it. Points get a deterministic
 * UUID from our string id (so an upsert with the same id replaces the point) and keep the id in the payload.
 */
export async function openQdrantVectors(url: string, apiKey: string | null): Promise<VectorStore> {
  const client = qdrantClient(url, apiKey);
  await client.getCollections(); // fail at start-up, not on the first search, when Qdrant is unreachable
  return new QdrantVectors(client);
}

function qdrantClient(url: string, apiKey: string | null): QdrantClient {
  // The client ignores a path in `url`; pass it as the prefix so a Qdrant behind a path-routing proxy works.
  const u = new URL(url);
  const prefix = u.pathname.replace(/\/+$/, '');
  return new QdrantClient({
    url: u.origin,
    ...(prefix ? { prefix } : {}),
    ...(apiKey ? { apiKey } : {}),
    // The server version is checked by ops, not by a console warning from the client on every start.
    checkCompatibility: false,
  });
}

/** Deletes every collection whose name starts with `prefix`: for test runs and operators' clean-up scripts. */
export async function dropQdrantCollections(url: string, apiKey: string | null, prefix: string): Promise<void> {
  if (!prefix) throw new Error('a collection name prefix is required');
  const client = qdrantClient(url, apiKey);
  const { collections } = await client.getCollections();
  for (const c of collections) if (c.name.startsWith(prefix)) await client.deleteCollection(c.name);
}

class QdrantVectors implements VectorStore {
  readonly kind = 'qdrant' as const;
  private dims = new Map<string, number>();
  private indexed = new Set<string>();

  constructor(private client: QdrantClient) {}

  /** The collection's dimension, or null if it does not exist. */
  private async dimension(name: string): Promise<number | null> {
    const known = this.dims.get(name);
    if (known !== undefined) return known;
    if (!(await this.client.collectionExists(name)).exists) return null;
    const info = await this.client.getCollection(name);
    const vectors = info.config.params.vectors as { size?: number } | undefined;
    if (typeof vectors?.size !== 'number') throw new Error(`vector collection ${name} uses named vectors; expected one unnamed vector`);
    this.dims.set(name, vectors.size);
    return vectors.size;
  }

  async ensureCollection(name: string, dimension: number): Promise<void> {
    let dim = await this.dimension(name);
    if (dim === null) {
      try {
        await this.client.createCollection(name, { vectors: { size: dimension, distance: 'Cosine' } });
      } catch (err) {
        // Another process created it first (409): fall through to the dimension check.
        if ((err as { status?: number }).status !== 409) throw err;
      }
      dim = await this.dimension(name);
    }
    if (dim !== dimension) throw new Error(`vector collection ${name} has dimension ${dim}, not ${dimension}`);
    // Workspace is on every filter; is_tenant lets Qdrant lay out storage per workspace.
    await this.index(name, 'workspaceId', { type: 'keyword', is_tenant: true });
  }

  /** Creates a payload index once per field (idempotent on the server too), so filters stay indexed. */
  private async index(name: string, field: string, schema: 'keyword' | 'integer' | 'float' | 'bool' | { type: 'keyword'; is_tenant: boolean }) {
    const key = `${name}\u0000${field}`;
    if (this.indexed.has(key)) return;
    await this.client.createPayloadIndex(name, { field_name: field, field_schema: schema, wait: true });
    this.indexed.add(key);
  }

  private async indexFilter(name: string, filter: VectorFilter): Promise<void> {
    for (const [field, value] of Object.entries(filter)) {
      if (field === 'workspaceId') continue;
      const schema = indexSchemaFor(value);
      if (schema) await this.index(name, field, schema);
    }
  }

  async upsert(name: string, points: VectorPoint[]): Promise<void> {
    const dim = await this.dimension(name);
    if (dim === null) throw new Error(`vector collection ${name} does not exist`);
    for (const p of points) {
      if (p.vector.length !== dim) throw new Error(`vector for ${p.id} has ${p.vector.length} dimensions, not ${dim}`);
    }
    for (let i = 0; i < points.length; i += UPSERT_BATCH) {
      await this.client.upsert(name, {
        wait: true,
        points: points.slice(i, i + UPSERT_BATCH).map((p) => ({
          id: pointUuid(p.id),
          vector: Array.from(p.vector),
          payload: { ...p.payload, [ID_KEY]: p.id },
        })),
      });
    }
  }

  async search(name: string, vector: number[] | Float32Array, { filter, limit }: { filter: VectorFilter; limit: number }): Promise<VectorHit[]> {
    const f = toQdrantFilter(filter);
    if (!f || limit <= 0 || (await this.dimension(name)) === null) return [];
    await this.indexFilter(name, filter);
    const res = await this.client.query(name, { query: Array.from(vector), filter: f, limit, with_payload: true, with_vector: false });
    return res.points.map((p) => {
      const { [ID_KEY]: id, ...payload } = (p.payload ?? {}) as Record<string, unknown>;
      return { id: typeof id === 'string' ? id : String(p.id), score: p.score, payload };
    });
  }

  async deleteByFilter(name: string, filter: VectorFilter): Promise<void> {
    const f = toQdrantFilter(filter);
    if (!f || (await this.dimension(name)) === null) return;
    await this.client.delete(name, { wait: true, filter: f });
  }

  async count(name: string, filter: VectorFilter): Promise<number> {
    const f = toQdrantFilter(filter);
    if (!f || (await this.dimension(name)) === null) return 0;
    await this.indexFilter(name, filter);
    return (await this.client.count(name, { filter: f, exact: true })).count;
  }

  // The REST client holds no resources beyond undici's pooled sockets, which close when idle.
  async close(): Promise<void> {}
}
