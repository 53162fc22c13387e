import type { Clock } from '../kernel/clock.js';
import type { Logger } from '../kernel/log.js';
import type { ScaleNode } from './node.js';

const SAMPLE_EVERY_MS = 10_000;
/** A new sample within this of the offset in use changes nothing. */
const STEADY_MS = 5;
/** Beyond this, the process's own clock is wrong enough to tell the operator. */
const WARN_OFF_MS = 1000;

export interface GroupClock extends Clock {
  /** The coordination server's time minus this process's clock, in ms (last good sample). */
  readonly offsetMs: number;
  stop(): void;
}

/**
 * The group's time (scale-out): this process's clock corrected by its measured offset to the coordination
 * server's clock (Redis TIME), so what one process writes as a time (a handoff deadline, a message's
 * createdAt, a rate-limit hit, presence until when) means the same on every other even when the machines'
 * clocks disagree. Timers are relative and run on the process's own clock. Leases and claims never needed
 * this: Redis expires them on its own clock. docs/operations.md (Scale-out, clocks).
 */
export async function groupClock(node: ScaleNode, base: Clock, log: Logger): Promise<GroupClock> {
  let offset = 0;
  let warned = false;
  const sample = async (): Promise<{ offset: number; rtt: number } | null> => {
    if (!node.healthy) return null;
    const before = base.now();
    const p0 = performance.now();
    const [sec, usec] = await node.cmd.time();
    const rtt = performance.now() - p0;
    // Redis read its clock somewhere in the round trip: the middle is the best guess.
    return { offset: Number(sec) * 1000 + Number(usec) / 1000 - (before + rtt / 2), rtt };
  };
  const apply = (s: { offset: number; rtt: number } | null, first = false) => {
    if (!s) return;
    // A sample is off by at most half its round trip: later ones move the offset only for a change beyond
    // that (a clock that jumped or drifted), not for their own jitter, which would make the time read here
    // step back now and then. The first is taken whatever its round trip (a busy start): better than none.
    if (!first && Math.abs(s.offset - offset) <= Math.max(STEADY_MS, s.rtt)) return;
    // Processes of one machine (one clock) read exactly what they read alone.
    offset = Math.abs(s.offset) <= STEADY_MS ? 0 : Math.round(s.offset);
    const off = Math.abs(offset) > WARN_OFF_MS;
    if (off && !warned) log.warn({ offsetMs: offset, node: node.id }, `this process's clock is ${offset > 0 ? 'behind' : 'ahead of'} the coordination server's (REDIS_URL) by ${Math.abs(offset)} ms; the group goes by the server's time, but set the machines' clocks right (NTP) so logs agree`);
    warned = off;
  };
  // The best of three at start (the first round trip may include a connection's warm-up).
  let best: { offset: number; rtt: number } | null = null;
  for (let i = 0; i < 3; i++) {
    const s = await sample().catch(() => null);
    if (s && (!best || s.rtt < best.rtt)) best = s;
  }
  apply(best, true);
  // With the heartbeat (src/scale/heartbeat.ts): the sample goes in the same write as the membership.
  const stop = node.heartbeat.every(SAMPLE_EVERY_MS, () => { sample().then(apply, () => { /* Redis away: keep the last offset */ }); });
  return {
    get offsetMs() { return offset; },
    now: () => base.now() + offset,
    setTimeout: (fn, ms) => base.setTimeout(fn, ms),
    clearTimeout: (handle) => base.clearTimeout(handle),
    stop,
  };
}
