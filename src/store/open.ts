import type { Config } from '../config/index.js';
import type { Logger } from '../kernel/log.js';
import { openEmbeddedStore } from './embedded.js';
import { openEmbeddedVectors } from './vectors-embedded.js';
import type { DocumentStore, VectorStore } from './types.js';

/** Chooses the adapters: MongoDB when MONGODB_URL is set, Qdrant when QDRANT_URL is set, else embedded under DATA_DIR. */
export async function openStores(config: Config, log: Logger): Promise<{ store: DocumentStore; vectors: VectorStore }> {
  let store: DocumentStore;
  if (config.mongodbUrl) {
    const { openMongoStore } = await import('./mongo.js');
    store = await openMongoStore(config.mongodbUrl, config.mongodbDb);
  } else store = openEmbeddedStore(config.dataDir);
  let vectors: VectorStore;
  if (config.qdrantUrl) {
    const { openQdrantVectors } = await import('./qdrant.js');
    vectors = await openQdrantVectors(config.qdrantUrl, config.qdrantApiKey);
  } else vectors = openEmbeddedVectors(config.dataDir);
  log.info({ store: store.kind, vectors: vectors.kind }, 'storage ready');
  // A group of machines shares MongoDB, but an embedded vector file is this machine's own.
  if (config.mongodbUrl && config.redisUrl && !config.qdrantUrl) {
    log.warn('MONGODB_URL and REDIS_URL are set without QDRANT_URL: knowledge vectors stay in this machine\'s DATA_DIR/vectors.db, so on several machines semantic search misses what other machines indexed; set QDRANT_URL on every machine (keyword search is shared either way)');
  }
  return { store, vectors };
}
