/** Gauges read at scrape time from the parts that hold the numbers (nothing is counted on the hot path). */
import { performance } from 'node:perf_hooks';
import { liveRegistries } from '../../actors/runtime/registry.js';
import { observeTasks, poolStats } from '../../workers/pool.js';
import type { AppContext } from '../app/context.js';
import { PENDING_STATES, deliveriesCollection } from '../events/webhooks/records.js';
import type { VoiceService } from '../../actors/voice/index.js';
import { recordTask } from '../metrics/record.js';
import { addSampler, sampled } from '../metrics/registry.js';

let processSamplers: (() => void) | null = null;

/** Process-wide sources (actors, event loop, worker pool): installed once. */
function installProcessSamplers(): void {
  if (processSamplers) return;
  let lastElu = performance.eventLoopUtilization();
  const offActors = addSampler(() => {
    for (const r of liveRegistries) {
      const { actors, queued } = r.metrics();
      sampled.actorsAlive.inc({ kind: r.kind }, actors);
      sampled.mailboxDepth.inc({ kind: r.kind }, queued);
    }
  });
  const offLoop = addSampler(() => {
    const elu = performance.eventLoopUtilization();
    sampled.loopUtilization.set(performance.eventLoopUtilization(elu, lastElu).utilization);
    lastElu = elu;
  });
  const offPool = addSampler(() => {
    for (const [lane, s] of Object.entries(poolStats())) {
      sampled.poolQueue.set({ lane }, s.queued);
      sampled.poolThreads.set({ lane }, s.threads);
      sampled.poolRunning.set({ lane }, s.running);
    }
  });
  observeTasks(recordTask);
  processSamplers = () => { offActors(); offLoop(); offPool(); observeTasks(null); };
}

/** Sources of one server (its voice sessions, its webhook queue); removed when the server closes. */
export function installAppSamplers(app: AppContext, voice: VoiceService): void {
  installProcessSamplers();
  const deliveries = deliveriesCollection(app.store);
  const off = addSampler(async () => {
    // Pending records: due, waiting to retry, or parked for their endpoint (switched off or failing).
    sampled.voiceSessions.inc(voice.live);
    sampled.webhookQueue.inc(await deliveries.count({ state: { $in: PENDING_STATES } }, { crossWorkspace: true }));
  });
  app.onClose(off);
}
