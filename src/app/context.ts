import type { Clock } from '../kernel/clock.js';
import type { Config } from '../config/index.js';
import type { EventBus } from './event-bus.js';
import type { Logger } from '../kernel/log.js';
import type { DocumentStore, VectorStore } from '../store/types.js';
import type { Records } from './records.js';

/**
 * What every part of the server is handed: configuration, logger, clock, stores, events. The area services are
 * created once at start-up by the composition root (src/compose.ts), in dependency order, each handed what it uses.
 */
export interface AppContext {
  readonly config: Config;
  readonly log: Logger;
  readonly clock: Clock;
  readonly store: DocumentStore;
  readonly vectors: VectorStore;
  /** Every record collection, opened once at start-up (src/records-root.ts): `app.records.users`. */
  readonly records: Records;
  readonly events: EventBus;
  /** 32-byte key derived from the server secret: encrypts provider keys and secrets at rest. */
  readonly secretKey: Buffer;
  /** Scale-out membership (REDIS_URL): null when the server is one process. */
  readonly scale?: GroupPort | null;
  /** Registers work to run at shutdown (after HTTP stops, before stores close), last registered first. */
  onClose(fn: () => Promise<void> | void): void;
}

/**
 * What the services see of the scale-out group: its health, group-wide messages, limits and claims. The port is
 * declared here, below the services; `ScaleNode` (src/scale/node.ts) is its one implementation, and src/scale's
 * own modules take the node itself (`nodeOf`).
 */
export interface GroupPort {
  /** This process's id in the group. */
  readonly id: string;
  /** The coordination server answers: work for other processes and new conversations can go ahead. */
  readonly healthy: boolean;
  /** How long a lease or claim lasts unless renewed. */
  readonly leaseMs: number;
  /** Tells the other processes of the group (topic `inv`: a cache entry changed), without waiting. */
  broadcast(topic: 'ev' | 'inv' | 'int', message: unknown): void;
  /** Tells the other processes and waits until each has handled it (at most `timeoutMs`); resolves with how many were asked. */
  broadcastAcked(topic: 'inv' | 'int', message: unknown, timeoutMs?: number): Promise<number>;
  /** Calls `fn` with each message another process broadcast on `topic`. */
  on(topic: 'ev' | 'inv' | 'int', fn: (message: any) => void): void;
  /** Calls `fn` when the coordination server goes away (false) and comes back (true). */
  onHealth(fn: (up: boolean) => void): void;
  /** A sliding-window hit counted across the group: 0 when allowed (and counted), else milliseconds to wait. */
  hit(key: string, windowMs: number, limit: number, now: number): Promise<number>;
  /** One process of the group gets true for `key` until `ms` pass (durable work claimed once). */
  claim(key: string, ms: number): Promise<boolean>;
  /** Extends a claim this process holds; false when it lapsed. */
  renewClaim(key: string, ms: number): Promise<boolean>;
  releaseClaim(key: string): Promise<void>;
}

/**
 * A service the composition root (src/compose.ts) creates once at start-up, read by the call sites that are not
 * handed it as a parameter: `export const knowledge = provided<KnowledgeService>('knowledge')`, then
 * `knowledge(app)`. Nothing is created on first use: reading one the root has not created throws, naming it.
 */
export interface Provided<T> {
  (app: AppContext): T;
  readonly service: string;
  /** Called by the composition root (and by a test that builds its own context): the one instance for `app`. */
  provide(app: AppContext, value: T): T;
}

export function provided<T>(service: string): Provided<T> {
  const made = new WeakMap<AppContext, T>();
  const read = (app: AppContext): T => {
    const v = made.get(app);
    if (v === undefined) throw new Error(`the ${service} service was not created for this app: services are created at start-up by composeServices (src/compose.ts)`);
    return v;
  };
  return Object.assign(read, {
    service,
    provide(app: AppContext, value: T): T {
      if (made.has(app)) throw new Error(`the ${service} service was already created for this app`);
      made.set(app, value);
      return value;
    },
  });
}

/**
 * Memoises a module-private cache per app, made on first use. Left only for the seven caches docs/development.md
 * ("Composition") names; services, limits, listener lists and record collections are made by the root instead.
 */
export function perApp<T>(factory: (app: AppContext) => T): (app: AppContext) => T {
  const cache = new WeakMap<AppContext, T>();
  return (app) => {
    let v = cache.get(app);
    if (v === undefined) { v = factory(app); cache.set(app, v); }
    return v;
  };
}
