import { monitorEventLoopDelay } from 'node:perf_hooks';

const RESOLUTION_MS = 5;

/**
 * Event-loop delay of this process: how late a 5 ms timer fires. Node's histogram records the whole interval
 * between timer runs (an idle loop reads about 5.1 ms), so the resolution is taken off each figure, as
 * @fastify/under-pressure does with the mean.
 */
export function loopDelay() {
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  const net = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  return {
    start() { h.reset(); h.enable(); },
    stop() { h.disable(); return { p50: net(h.percentile(50)), p99: net(h.percentile(99)), max: net(h.max) }; },
  };
}
