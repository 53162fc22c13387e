/**
 * What a command needs: the server's configuration (same environment, DATA_DIR or --data-dir), and for store
 * commands the document store through its adapter (embedded or MongoDB) with a minimal AppContext, so the
 * auth modules' own collections and rules are used. The embedded store is opened beside a running server:
 * SQLite's locking keeps both safe, and the server's credential cache forgets within 2 s what was changed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AppContext } from '../app.js';
import { systemClock } from '../clock.js';
import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { createLogger } from '../log.js';
import { deriveKey } from '../security/secret-box.js';
import type { DocumentStore } from '../store/types.js';

/** A failure the message explains; exit code 1. */
export class CommandError extends Error {}
/** Wrong usage (unknown option, missing value); exit code 2. */
export class UsageError extends Error {}

export function cliConfig(opts: { dataDir?: string }): Config {
  try {
    return loadConfig(undefined, opts.dataDir ? { dataDir: resolve(opts.dataDir) } : {});
  } catch (err) {
    if (err instanceof ConfigError) throw new CommandError(err.message);
    throw err;
  }
}

/** The server secret as the server reads it (SECRET_KEY, else DATA_DIR/secret.key); null when there is none yet. */
export function readSecret(config: Config): string | null {
  if (config.secretKey) return config.secretKey;
  const file = join(config.dataDir, 'secret.key');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : null;
}

export async function openStore(config: Config): Promise<DocumentStore> {
  if (config.mongodbUrl) {
    const { openMongoStore } = await import('../store/mongo.js');
    try {
      return await openMongoStore(config.mongodbUrl, config.mongodbDb);
    } catch (err) {
      throw new CommandError(`could not reach MongoDB at MONGODB_URL: ${(err as Error).message}`);
    }
  }
  if (!existsSync(join(config.dataDir, 'service.db'))) {
    throw new CommandError(`no database in ${config.dataDir} (service.db is missing): point DATA_DIR or --data-dir at the server's data folder`);
  }
  const { openEmbeddedStore } = await import('../store/embedded.js');
  return openEmbeddedStore(config.dataDir);
}

/** Runs fn with an AppContext over the store, closing it after. */
export async function withApp<T>(config: Config, fn: (app: AppContext) => Promise<T>): Promise<T> {
  const store = await openStore(config);
  const closers: Array<() => Promise<void> | void> = [];
  const secret = readSecret(config);
  const app = {
    config, log: createLogger('silent'), clock: systemClock, store,
    get vectors(): never { throw new Error('the command line does not open the vector store'); },
    get events(): never { throw new Error('the command line does not publish events'); },
    secretKey: deriveKey(secret ?? 'no-secret-yet-0000000000000000000000'),
    onClose: (f: () => Promise<void> | void) => { closers.push(f); },
    scale: null,
  } as unknown as AppContext;
  try {
    return await fn(app);
  } finally {
    for (const f of closers.reverse()) await f();
    await store.close();
  }
}
