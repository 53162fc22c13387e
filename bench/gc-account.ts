/**
 * What the garbage collector did in a process while it was counting, from V8's own per-GC records
 * (`v8.GCProfiler`: each GC's kind, its main-thread pause and the heap spaces before and after it), so the figures
 * do not depend on the machine's load: bytes allocated in the young generation, how many scavenges that took, what
 * each scavenge had to copy (the survivors, whose copying is most of a scavenge's work) and promote, and the pauses.
 *
 * Counting can be paused and resumed (a bench's windows); the young generation's fill at each start and pause
 * closes the count at both ends of a window.
 */
import v8 from 'node:v8';

interface Space { spaceName: string; spaceUsedSize: number }
interface Record_ { gcType: string; cost: number; beforeGC: { heapSpaceStatistics: Space[] }; afterGC: { heapSpaceStatistics: Space[] } }

const YOUNG = ['new_space', 'new_large_object_space'];
const young = (spaces: Space[]) => spaces.reduce((s, x) => s + (YOUNG.includes(x.spaceName) ? x.spaceUsedSize : 0), 0);
const old = (spaces: Space[]) => spaces.reduce((s, x) => s + (x.spaceName === 'old_space' ? x.spaceUsedSize : 0), 0);

export interface GcAccount {
  /** Bytes allocated in the young generation (between each GC's end and the next one's start). */
  youngAllocated: number;
  scavenges: number;
  /** Mark-sweep-compact GCs (the whole heap). */
  full: number;
  /** Every other kind V8 records (incremental marking steps, weak callbacks): count and ms by kind. */
  other: Record<string, { n: number; ms: number }>;
  /** Main-thread pause of each scavenge, ms: p50, p99, max, sum. */
  scavengeMs: { p50: number; p99: number; max: number; sum: number };
  fullMs: number;
  /** Bytes left in the young generation after each scavenge (copied there): mean and max. */
  survivedMean: number;
  survivedMax: number;
  /** Bytes moved to the old generation by scavenges, in all. */
  promoted: number;
}

export function gcAccount() {
  let profiler: v8.GCProfiler | null = null;
  let fill0 = 0;
  const records: Array<{ from: number; to: number; gcs: Record_[] }> = [];
  const fill = () => young(v8.getHeapSpaceStatistics().map((s) => ({ spaceName: s.space_name, spaceUsedSize: s.space_used_size })));
  return {
    start() { profiler = new v8.GCProfiler(); fill0 = fill(); profiler.start(); },
    pause() {
      if (!profiler) return;
      const gcs = (profiler.stop() as { statistics: Record_[] } | undefined)?.statistics ?? [];
      records.push({ from: fill0, to: fill(), gcs });
      profiler = null;
    },
    reset() { records.length = 0; },
    result(): GcAccount {
      const pauses: number[] = [];
      const out: GcAccount = { youngAllocated: 0, scavenges: 0, full: 0, scavengeMs: { p50: 0, p99: 0, max: 0, sum: 0 }, fullMs: 0, other: {}, survivedMean: 0, survivedMax: 0, promoted: 0 };
      let survived = 0;
      for (const window of records) {
        let after = window.from;
        for (const r of window.gcs) {
          out.youngAllocated += Math.max(0, young(r.beforeGC.heapSpaceStatistics) - after);
          after = young(r.afterGC.heapSpaceStatistics);
          if (r.gcType === 'Scavenge' || r.gcType === 'MinorMarkSweep') {
            out.scavenges++;
            pauses.push(r.cost / 1000);
            survived += after;
            out.survivedMax = Math.max(out.survivedMax, after);
            out.promoted += Math.max(0, old(r.afterGC.heapSpaceStatistics) - old(r.beforeGC.heapSpaceStatistics));
          } else if (r.gcType === 'MarkSweepCompact') { out.full++; out.fullMs += r.cost / 1000; } else {
            const o = (out.other[r.gcType] ??= { n: 0, ms: 0 });
            o.n++;
            o.ms += r.cost / 1000;
          }
        }
        out.youngAllocated += Math.max(0, window.to - after);
      }
      pauses.sort((a, b) => a - b);
      const at = (q: number) => pauses.length ? pauses[Math.min(pauses.length - 1, Math.floor(q * pauses.length))] : 0;
      out.scavengeMs = { p50: at(0.5), p99: at(0.99), max: pauses.at(-1) ?? 0, sum: pauses.reduce((s, x) => s + x, 0) };
      out.survivedMean = out.scavenges ? survived / out.scavenges : 0;
      return out;
    },
  };
}
