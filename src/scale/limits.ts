import type { AppContext } from '../app.js';
import type { RateLimiter } from '../security/rate-limiter.js';

/**
 * A rate limit counted across the scale-out group (a sliding window in Redis, one round trip), or by this
 * process alone when the server is one process, or while Redis is unreachable (each process then holds the
 * limit by itself: at most N times the limit, never none). Returns 0 when allowed, else milliseconds to wait.
 */
export async function takeShared(app: AppContext, local: RateLimiter, name: string, key: string, limit: number, windowMs: number): Promise<number> {
  const node = app.scale;
  if (!node?.healthy) return local.take(key, limit);
  try {
    return await node.hit(`${name}:${key}`, windowMs, limit, app.clock.now());
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
