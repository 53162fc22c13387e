/**
 * What a command needs: the server's configuration (same environment, DATA_DIR or --data-dir), and for store
 * commands the document store through its adapter (embedded or MongoDB) with a minimal AppContext, so the
 * auth modules' own collections and rules are used. The embedded store is opened beside a running server:
 * SQLite's locking keeps both safe, and the server's credential cache forgets within 2 s what was changed.
 */
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AppContext } from '../app/context.js';
import { systemClock } from '../kernel/clock.js';
import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { createLogger } from '../kernel/log.js';
import { deriveKey } from '../security/secret-box.js';
import type { DocumentStore } from '../store/types.js';
import { openRecords } from '../records-root.js';

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
  // A folder this user may not enter hides its database: say that, not that the database is missing.
  const denied = accessProblem(config.dataDir);
  if (denied) throw new CommandError(denied);
  if (!existsSync(join(config.dataDir, 'service.db'))) {
    throw new CommandError(`no database in ${config.dataDir} (service.db is missing): point DATA_DIR or --data-dir at the server's data folder`);
  }
  const { openEmbeddedStore } = await import('../store/embedded.js');
  try {
    return openEmbeddedStore(config.dataDir);
  } catch (err) {
    throw new CommandError(`could not open the database in ${config.dataDir}: ${(err as Error).message}. Run the command as the user the server runs as.`);
  }
}

/**
 * The embedded store writes beside its database (its write-ahead log, the lock), so a command needs to read and
 * write the folder and the database: without that, one line saying so and who to run as, not a stack.
 */
function accessProblem(dataDir: string): string | null {
  for (const [path, mode] of [[dataDir, constants.R_OK | constants.W_OK | constants.X_OK], [join(dataDir, 'service.db'), constants.R_OK | constants.W_OK]] as const) {
    try { accessSync(path, mode); } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      return `no permission to read and write ${path} (${code}): run the command as the user the server runs as (for example: sudo -u <that user> service-chat ...), or as root`;
    }
  }
  return null;
}

/** Runs fn with an AppContext over the store, closing it after. */
export async function withApp<T>(config: Config, fn: (app: AppContext) => Promise<T>): Promise<T> {
  const store = await openStore(config);
  const closers: Array<() => Promise<void> | void> = [];
  const secret = readSecret(config);
  const app = {
    config, log: createLogger('silent'), clock: systemClock, store,
    // The server's bot lists lapse on their own (LIST_TTL_MS); the command line does not write bots.
    records: openRecords(store, { botsChanged: async () => {} }),
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
