import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
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
  return { store, vectors };
}
