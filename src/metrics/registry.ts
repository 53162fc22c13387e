/**
 * The process's Prometheus metrics (prom-client). One registry per process: Prometheus scrapes processes, and
 * parts that have no AppContext (the worker pool, actor registries, HTTP transport) record into it directly.
 * Recording is off until a server turns metrics on (METRICS_PORT or METRICS_TOKEN), so a server without them
 * pays one boolean test per event. Every label takes values from a closed set: operation patterns, adapter and
 * provider kinds, task names, outcomes; never an id (docs/operations.md lists them).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
let enabled = false;
let defaultsInstalled = false;

export const metricsEnabled = () => enabled;

/**
 * How often the event-loop delay is sampled (`nodejs_eventloop_lag_*`): a timer of this period wakes the loop.
 * prom-client's 10 ms woke an idle process 100 times a second, 6-7 ms of CPU a second each (bench/scale-idle.ts);
 * at 50 ms every stall longer than 50 ms is still seen in full (the alert in docs/examples is at 100 ms).
 */
const LOOP_DELAY_RESOLUTION_MS = 50;

/** Turns recording on for this process (idempotent). Default metrics cover event-loop delay, GC pauses, heap, CPU. */
export function enableMetrics(): void {
  enabled = true;
  if (defaultsInstalled) return;
  defaultsInstalled = true;
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: LOOP_DELAY_RESOLUTION_MS, gcDurationBuckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1] });
  // prom-client adds three gauges named `_total`, a suffix Prometheus keeps for counters (`promtool check
  // metrics` fails on them); the same numbers are there by type without it (nodejs_active_handles...).
  for (const name of ['nodejs_active_handles', 'nodejs_active_requests', 'nodejs_active_resources']) registry.removeSingleMetric(`${name}_total`);
}

/** Turns recording off (tests and the bench's on/off comparison); values are kept. */
export function disableMetrics(): void { enabled = false; }

const FAST = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SLOW = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60];
const STORE = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1];

const reg = { registers: [registry] };
export const m = {
  httpDuration: new Histogram({ ...reg, name: 'servicechat_http_request_duration_seconds', help: 'HTTP requests by operation (method and route pattern) and status', labelNames: ['operation', 'status'], buckets: FAST }),
  socketsOpen: new Gauge({ ...reg, name: 'servicechat_sockets_open', help: 'Open WebSockets by endpoint (widget, live, voice, other)', labelNames: ['endpoint'] }),
  socketsOpened: new Counter({ ...reg, name: 'servicechat_sockets_opened_total', help: 'WebSockets opened by endpoint', labelNames: ['endpoint'] }),
  storeDuration: new Histogram({ ...reg, name: 'servicechat_store_call_duration_seconds', help: 'Document store calls by adapter and call', labelNames: ['adapter', 'call'], buckets: STORE }),
  storeErrors: new Counter({ ...reg, name: 'servicechat_store_errors_total', help: 'Document store calls that failed, by adapter and call', labelNames: ['adapter', 'call'] }),
  providerFirstToken: new Histogram({ ...reg, name: 'servicechat_provider_first_token_seconds', help: 'Time from a chat request to its first text, by provider kind', labelNames: ['provider'], buckets: SLOW }),
  providerDuration: new Histogram({ ...reg, name: 'servicechat_provider_request_duration_seconds', help: 'Whole chat requests by provider kind and outcome', labelNames: ['provider', 'outcome'], buckets: SLOW }),
  providerErrors: new Counter({ ...reg, name: 'servicechat_provider_errors_total', help: 'Chat requests that failed (not counting the caller stopping them), by provider kind', labelNames: ['provider'] }),
  providerTokens: new Counter({ ...reg, name: 'servicechat_provider_tokens_total', help: 'Tokens reported by providers, by kind and direction (input, output)', labelNames: ['provider', 'direction'] }),
  providerCost: new Counter({ ...reg, name: 'servicechat_provider_cost_usd_total', help: 'Estimated cost of chat requests in US dollars (list prices), by provider kind', labelNames: ['provider'] }),
  toolCalls: new Counter({ ...reg, name: 'servicechat_tool_calls_total', help: 'Tool calls by tool source (builtin, http, mcp, page, unknown) and outcome', labelNames: ['source', 'outcome'] }),
  toolDuration: new Histogram({ ...reg, name: 'servicechat_tool_call_duration_seconds', help: 'Tool call duration by tool source', labelNames: ['source'], buckets: FAST }),
  webhookAttempts: new Counter({ ...reg, name: 'servicechat_webhook_attempts_total', help: 'Webhook delivery tries by result (delivered, retrying, failed: the last try failed)', labelNames: ['result'] }),
  webhookDuration: new Histogram({ ...reg, name: 'servicechat_webhook_attempt_duration_seconds', help: 'Webhook delivery tries, request time', buckets: FAST }),
  taskDuration: new Histogram({ ...reg, name: 'servicechat_worker_task_duration_seconds', help: 'Worker-pool tasks from submission to result, by task and outcome', labelNames: ['task', 'outcome'], buckets: SLOW }),
  knowledgeJobs: new Counter({ ...reg, name: 'servicechat_knowledge_jobs_total', help: 'Knowledge ingestion runs ended, by status (done, failed, cancelled, stopped)', labelNames: ['status'] }),
  redisRoundTrips: new Counter({ ...reg, name: 'servicechat_redis_round_trips_total', help: 'Scale-out: commands and publishes sent to the coordination server (Redis)' }),
  redisErrors: new Counter({ ...reg, name: 'servicechat_redis_errors_total', help: 'Scale-out: coordination server (Redis) commands that failed or timed out' }),
  ownershipMoves: new Counter({ ...reg, name: 'servicechat_ownership_moves_total', help: 'Scale-out: conversations whose ownership came here or left, by how (taken, handed_over, lost)', labelNames: ['how'] }),
  forwarded: new Counter({ ...reg, name: 'servicechat_forwarded_commands_total', help: 'Scale-out: conversation messages sent to the owning process, by outcome (ok, moved, gone, error)', labelNames: ['outcome'] }),
  turnFirstDelta: new Histogram({ ...reg, name: 'servicechat_turn_first_delta_seconds', help: 'Chat turns: from the visitor message stored to the first streamed piece of the reply', buckets: SLOW }),
  voiceFailures: new Counter({ ...reg, name: 'servicechat_voice_failures_total', help: 'Voice failures visitors met, by stage (start, engine, stt, brain, tts); details in the log and the bot health', labelNames: ['stage'] }),
  knowledgeRunning: new Gauge({ ...reg, name: 'servicechat_knowledge_jobs_running', help: 'Knowledge ingestion runs under way' }),
};

/** Samples read when Prometheus scrapes; each source adds its part (several servers in one process add up). */
type Sampler = () => void | Promise<void>;
const samplers = new Set<Sampler>();
export function addSampler(fn: Sampler): () => void {
  samplers.add(fn);
  return () => { samplers.delete(fn); };
}

/** Gauges set by samplers just before each scrape (reset first, so a source that went away leaves no value). */
export const sampled = {
  actorsAlive: new Gauge({ ...reg, name: 'servicechat_actors_alive', help: 'Live actors by kind', labelNames: ['kind'] }),
  mailboxDepth: new Gauge({ ...reg, name: 'servicechat_actor_mailbox_depth', help: 'Messages waiting in actor mailboxes, by actor kind', labelNames: ['kind'] }),
  loopUtilization: new Gauge({ ...reg, name: 'servicechat_event_loop_utilization', help: 'Share of time the event loop was busy since the previous scrape (0-1)' }),
  poolQueue: new Gauge({ ...reg, name: 'servicechat_worker_pool_queue', help: 'Worker-pool tasks waiting for a thread, by lane', labelNames: ['lane'] }),
  poolThreads: new Gauge({ ...reg, name: 'servicechat_worker_pool_threads', help: 'Worker-pool threads by lane', labelNames: ['lane'] }),
  poolRunning: new Gauge({ ...reg, name: 'servicechat_worker_pool_running', help: 'Worker-pool tasks running, by lane', labelNames: ['lane'] }),
  webhookQueue: new Gauge({ ...reg, name: 'servicechat_webhook_queue_depth', help: 'Webhook deliveries waiting to be sent (queued, waiting to retry, or waiting for a switched-off or failing endpoint)' }),
  voiceSessions: new Gauge({ ...reg, name: 'servicechat_voice_sessions', help: 'Live voice sessions (each runs on a widget socket)' }),
  coordinationUp: new Gauge({ ...reg, name: 'servicechat_coordination_up', help: 'Scale-out: 1 while the coordination server (Redis) answers this process, 0 while it does not' }),
  diskFull: new Gauge({ ...reg, name: 'servicechat_disk_full', help: '1 while writes fail because the disk holding the data is full (docs/operations.md, "Disk full")' }),
  ready: new Gauge({ ...reg, name: 'servicechat_ready', help: '1 when the readiness checks (/readyz) pass at scrape time' }),
};

/** The text Prometheus reads: samplers run first. */
export async function scrape(): Promise<{ contentType: string; body: string }> {
  for (const g of Object.values(sampled)) g.reset();
  await Promise.all([...samplers].map(async (fn) => { try { await fn(); } catch { /* a failing source leaves its gauges empty */ } }));
  return { contentType: registry.contentType, body: await registry.metrics() };
}

// Bound children of hot metrics, so recording does not hash label values each time.
const children = new Map<string, { observe(v: number): void }>();
export function timer(h: Histogram<string>, key: string, labels: Record<string, string>): { observe(v: number): void } {
  let c = children.get(key);
  if (!c) { c = h.labels(labels); children.set(key, c); }
  return c;
}
