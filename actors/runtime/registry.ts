import type { Clock, TimerHandle } from '../../src/kernel/clock.js';
import { ActorStoppedError, type Actor, type ActorLogger } from './actor.js';

export type AnyActor = Actor<any, any, any>;

export interface ActorFactoryContext {
  clock: Clock;
  log: ActorLogger;
}

/** Builds a fresh (not started) actor for an id; the registry starts it. Pass ctx.clock on so timers share it. */
export type ActorFactory<A extends AnyActor> = (id: string, ctx: ActorFactoryContext) => A;

export interface ActorRegistryOptions<A extends AnyActor> {
  factory: ActorFactory<A>;
  clock: Clock;
  log: ActorLogger;
  /** An actor with no message for this long (and nothing queued or running) is stopped and forgotten. */
  idleMs: number;
  /** What the actors are ("conversation", "workspace"): the label their metrics carry. */
  kind?: string;
}

export interface ActorRegistryMetrics {
  /** Live actors. */
  actors: number;
  /** Messages waiting across all live actors. */
  queued: number;
  /** Actors created since the registry was made. */
  created: number;
  /** Actors stopped for being idle since the registry was made. */
  passivated: number;
}

/** Registries not yet stopped, for metrics (src/metrics/samplers.ts reads them when scraped). */
export const liveRegistries = new Set<ActorRegistry<AnyActor>>();

interface Entry<A> {
  actor: A;
  timer?: TimerHandle;
}

/**
 * Creates actors on demand and passivates idle ones. Actor state lives in the store, so a passivated actor
 * is simply rebuilt (onStart reloads it) by the next `get`.
 */
export class ActorRegistry<A extends AnyActor> {
  private readonly entries = new Map<string, Entry<A>>();
  /** Actors being stopped, by id: a rebuilt actor starts only after its predecessor's onStop has finished. */
  private readonly stopping = new Map<string, Promise<void>>();
  private readonly factory: ActorFactory<A>;
  private readonly clock: Clock;
  private readonly log: ActorLogger;
  private readonly idleMs: number;
  private created = 0;
  private passivated = 0;
  private closed = false;
  readonly kind: string;

  constructor(options: ActorRegistryOptions<A>) {
    if (!Number.isFinite(options.idleMs) || options.idleMs <= 0) throw new TypeError(`registry option idleMs must be a positive number, got ${options.idleMs}`);
    this.factory = options.factory;
    this.clock = options.clock;
    this.log = options.log;
    this.idleMs = options.idleMs;
    this.kind = options.kind ?? 'actor';
    liveRegistries.add(this);
  }

  /** Returns the live actor for `id`, creating and starting one if needed. Throws once stopAll has begun. */
  get(id: string): A {
    const existing = this.entries.get(id);
    if (existing && existing.actor.status !== 'stopping' && existing.actor.status !== 'stopped') return existing.actor;
    if (this.closed) throw new ActorStoppedError(id);
    if (existing) this.forget(id, existing);

    const actor = this.factory(id, { clock: this.clock, log: this.log });
    const entry: Entry<A> = { actor };
    this.entries.set(id, entry);
    this.created++;
    this.schedule(id, entry, this.idleMs);
    const previous = this.stopping.get(id);
    const started = previous ? previous.then(() => actor.start()) : actor.start();
    // The actor already logged why it failed; drop it so the next get builds a new one.
    started.catch(() => { if (this.entries.get(id) === entry) this.forget(id, entry); });
    return actor;
  }

  /** The live actor for `id`, without creating one. */
  peek(id: string): A | undefined {
    return this.entries.get(id)?.actor;
  }

  get size(): number { return this.entries.size; }

  metrics(): ActorRegistryMetrics {
    let queued = 0;
    for (const { actor } of this.entries.values()) queued += actor.queued;
    return { actors: this.entries.size, queued, created: this.created, passivated: this.passivated };
  }

  /** Graceful shutdown: refuses new actors, stops every actor after its mailbox drains, waits for all. */
  async stopAll(): Promise<void> {
    this.closed = true;
    liveRegistries.delete(this);
    for (const [id, entry] of [...this.entries]) this.retire(id, entry);
    await Promise.all([...this.stopping.values()]);
  }

  private schedule(id: string, entry: Entry<A>, ms: number): void {
    entry.timer = this.clock.setTimeout(() => this.checkIdle(id, entry), ms);
  }

  private checkIdle(id: string, entry: Entry<A>): void {
    entry.timer = undefined;
    if (this.entries.get(id) !== entry) return;
    const { actor } = entry;
    if (actor.busy || actor.queued > 0) return this.schedule(id, entry, this.idleMs);
    const idleFor = this.clock.now() - actor.lastActivityAt;
    if (idleFor < this.idleMs) return this.schedule(id, entry, this.idleMs - idleFor);
    this.passivated++;
    this.retire(id, entry);
  }

  private forget(id: string, entry: Entry<A>): void {
    if (entry.timer) this.clock.clearTimeout(entry.timer);
    entry.timer = undefined;
    if (this.entries.get(id) === entry) this.entries.delete(id);
  }

  /** Forgets the actor and stops it (draining its mailbox); its stop is tracked so a successor waits for it. */
  private retire(id: string, entry: Entry<A>): void {
    this.forget(id, entry);
    // stop() marks the actor 'stopping' at once, so a caller holding it gets ActorStoppedError from now on.
    const stopped = entry.actor.stop().catch((err: unknown) => this.log.error({ err, actorId: id }, 'actor stop failed'));
    const before = this.stopping.get(id);
    const done: Promise<void> = Promise.all([before, stopped])
      .then(() => undefined)
      .finally(() => { if (this.stopping.get(id) === done) this.stopping.delete(id); });
    this.stopping.set(id, done);
  }
}
