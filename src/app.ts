import type { Clock } from './kernel/clock.js';
import type { Config } from './config/index.js';
import type { EventBus } from './events/bus.js';
import type { Logger } from './kernel/log.js';
import type { ScaleNode } from './scale/node.js';
import type { DocumentStore, VectorStore } from './store/types.js';

/**
 * What every part of the server is handed: configuration, logger, clock, stores, events.
 * Area services are created on first use per app with `perApp`, so no central file lists them all.
 */
export interface AppContext {
  readonly config: Config;
  readonly log: Logger;
  readonly clock: Clock;
  readonly store: DocumentStore;
  readonly vectors: VectorStore;
  readonly events: EventBus;
  /** 32-byte key derived from the server secret: encrypts provider keys and secrets at rest. */
  readonly secretKey: Buffer;
  /** Scale-out membership (REDIS_URL): null when the server is one process. */
  readonly scale?: ScaleNode | null;
  /** Registers work to run at shutdown (after HTTP stops, before stores close), last registered first. */
  onClose(fn: () => Promise<void> | void): void;
}

/** Memoises one service instance per app: `export const bots = perApp((app) => new BotService(app))`. */
export function perApp<T>(factory: (app: AppContext) => T): (app: AppContext) => T {
  const cache = new WeakMap<AppContext, T>();
  return (app) => {
    let v = cache.get(app);
    if (v === undefined) { v = factory(app); cache.set(app, v); }
    return v;
  };
}
