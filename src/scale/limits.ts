import type { AppContext } from '../app/context.js';
import type { RateLimiter } from '../security/rate-limiter.js';
import type { ScaleNode } from './node.js';
import { nodeOf } from './node-of.js';

/** How long a home answer from another process is trusted before Redis is asked again who the home is. */
const ELSEWHERE_MS = 5000;
/** A request to the home process that takes longer than this is given up: this process decides alone. */
const ASK_HOME_MS = 2000;
/** How often lapsed entries are dropped, so a visitor who never comes back leaves nothing behind. */
const SWEEP_MS = 60_000;

/**
 * Limits counted across the group without a round trip per hit: each key (a visitor of a bot) has a home, the
 * first process that counts it, which holds it in Redis (one round trip, then one renewal each half window while
 * the key is used) and counts its hits in memory, exactly as one process does. A hit on another process (the
 * same visitor in a tab served by another process) is asked of the home (one request through Redis), so the
 * limit holds across the group. A home is held for two windows after its last renewal, so when it lapses (the
 * key unused) none of its hits is still in the window: the next home starts from nothing and misses nothing.
 * What is not exact (docs/decisions.md): when the home process dies or Redis loses its keys, the hits it
 * counted are forgotten (a visitor may send up to the limit again within that window), and while the home does
 * not answer each process counts alone.
 */
export class SharedLimits {
  /** Keys this process is the home of: until when (performance.now()) surely, and when to renew. */
  private readonly homes = new Map<string, { until: number; renewAt: number }>();
  /** Keys another process is the home of, as last learnt. */
  private readonly elsewhere = new Map<string, { node: string; until: number }>();
  private readonly limiters = new Map<string, RateLimiter>();
  private sweepAt = performance.now() + SWEEP_MS;

  get healthy(): boolean { return this.node.healthy; }

  constructor(private readonly node: ScaleNode) {
    node.serve('limit', async (p: { name: string; key: string; limit: number }) => {
      const home = this.homes.get(`${p.name}:${p.key}`);
      const local = this.limiters.get(p.name);
      if (!home || !local || performance.now() >= home.until) throw Object.assign(new Error('not the home of this limit'), { code: 'moved' });
      return local.take(p.key, p.limit);
    });
  }

  async take(local: RateLimiter, name: string, key: string, limit: number, windowMs: number): Promise<number> {
    this.limiters.set(name, local);
    const id = `${name}:${key}`;
    if (performance.now() >= this.sweepAt) this.sweep();
    for (let attempt = 0; attempt < 2; attempt++) {
      const now = performance.now();
      const home = this.homes.get(id);
      if (home && now < home.until) {
        if (now >= home.renewAt) this.renew(id, home, windowMs);
        return local.take(key, limit);
      }
      if (home) this.homes.delete(id);
      let there = this.elsewhere.get(id);
      if (!there || now >= there.until) {
        const ttl = 2 * windowMs;
        const claimed = await this.node.claimHome(id, ttl);
        if (claimed === null) {
          this.homes.set(id, { until: now + ttl - Math.min(1000, ttl / 5), renewAt: now + windowMs / 2 });
          this.elsewhere.delete(id);
          return local.take(key, limit);
        }
        there = { node: claimed, until: now + ELSEWHERE_MS };
        this.elsewhere.set(id, there);
      }
      try {
        return await this.node.call(there.node, 'limit', { name, key, limit }, ASK_HOME_MS) as number;
      } catch (err) {
        this.elsewhere.delete(id);
        // The home gave the key up (its hold lapsed): ask Redis again. Gone or silent: decide here alone.
        if ((err as { code?: string }).code !== 'moved') break;
      }
    }
    return local.take(key, limit);
  }

  /** Drops homes whose hold lapsed and stale answers about other homes (take would drop each on its next hit). */
  private sweep(): void {
    const now = performance.now();
    this.sweepAt = now + SWEEP_MS;
    for (const [id, home] of this.homes) if (now >= home.until) this.homes.delete(id);
    for (const [id, there] of this.elsewhere) if (now >= there.until) this.elsewhere.delete(id);
  }

  private renew(id: string, home: { until: number; renewAt: number }, windowMs: number): void {
    const asked = performance.now();
    const ttl = 2 * windowMs;
    home.renewAt = asked + windowMs / 2;
    this.node.renewHome(id, ttl).then((kept) => {
      if (!kept) { this.homes.delete(id); return; }
      home.until = asked + ttl - Math.min(1000, ttl / 5);
    }, () => { /* Redis away: tried again at the next hit */ home.renewAt = asked; });
  }
}

/** The group's shared limits, or null for a server of one process (the composition root makes it once). */
export function createSharedLimits(app: AppContext): SharedLimits | null {
  const node = nodeOf(app);
  return node ? new SharedLimits(node) : null;
}

/**
 * A rate limit counted across the scale-out group (see SharedLimits: no round trip per hit), or by this process
 * alone when the server is one process, or while Redis is unreachable (each process then holds the limit by
 * itself: at most N times the limit, never none). `local` counts this process's hits (its window is
 * `windowMs`). Returns 0 when allowed, else milliseconds to wait.
 */
export async function takeShared(shared: SharedLimits | null, local: RateLimiter, name: string, key: string, limit: number, windowMs: number): Promise<number> {
  if (!shared?.healthy) return local.take(key, limit);
  try {
    return await shared.take(local, name, key, limit, windowMs);
  } catch {
    return local.take(key, limit);
  }
}

/**
 * The group's share of a limit whose local part was already taken (a socket's upgrade takes the local limit from
 * memory; this runs after it): 0 when the server is one process, or while Redis is unreachable.
 */
export async function takeInGroup(app: AppContext, name: string, key: string, limit: number, windowMs: number): Promise<number> {
  const node = app.scale;
  if (!node?.healthy) return 0;
  try {
    return await node.hit(`${name}:${key}`, windowMs, limit, app.clock.now());
  } catch {
    return 0;
  }
}
