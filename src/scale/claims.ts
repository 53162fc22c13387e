import type { GroupPort } from '../app/context.js';

export interface HeldClaim {
  /** The claim lapsed (this process was cut off from Redis too long): stop, another process may run it. */
  readonly lost: boolean;
  release(): Promise<void>;
}

/**
 * Claims long-running work (a knowledge ingestion job) for this process: null when another process holds it.
 * Renewed every third of `ms` while held, so a process that dies gives the work up within `ms`.
 */
export async function holdClaim(node: GroupPort, key: string, ms: number): Promise<HeldClaim | null> {
  if (!(await node.claim(key, ms))) return null;
  let lost = false;
  const timer = setInterval(() => {
    node.renewClaim(key, ms).then((kept) => { if (!kept) lost = true; }, () => { /* Redis away: try again next round */ });
  }, Math.max(100, Math.floor(ms / 3)));
  timer.unref();
  return {
    get lost() { return lost; },
    async release() { clearInterval(timer); await node.releaseClaim(key).catch(() => {}); },
  };
}
