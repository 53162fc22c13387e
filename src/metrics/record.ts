/**
 * What the server's parts call to record an event. Each call returns at once when metrics are off. Label
 * values are folded into closed sets here, so no caller can add a series per id.
 */
import { performance } from 'node:perf_hooks';
import { m, metricsEnabled, timer } from './registry.js';

/** operation: "METHOD /route/{pattern}" (or "unmatched"); status: the HTTP status sent. */
export function recordHttp(operation: string, status: number, ms: number): void {
  if (!metricsEnabled()) return;
  timer(m.httpDuration, `h ${operation} ${status}`, { operation, status: String(status) }).observe(ms / 1000);
}

/** The widget, live (agents) and voice endpoints by their paths; any other socket is "other". */
export function socketEndpoint(path: string): string {
  if (path.includes('voice')) return 'voice';
  if (path.includes('widget')) return 'widget';
  if (path.includes('live')) return 'live';
  return 'other';
}

export function recordSocket(endpoint: string, delta: 1 | -1): void {
  if (!metricsEnabled()) return;
  m.socketsOpen.inc({ endpoint }, delta);
  if (delta > 0) m.socketsOpened.inc({ endpoint });
}

const TOOL_SOURCES = new Set(['builtin', 'http', 'mcp', 'page']);
export function recordToolCall(source: string | undefined, isError: boolean, ms: number): void {
  if (!metricsEnabled()) return;
  const s = source && TOOL_SOURCES.has(source) ? source : 'unknown';
  m.toolCalls.inc({ source: s, outcome: isError ? 'error' : 'ok' });
  timer(m.toolDuration, `t ${s}`, { source: s }).observe(ms / 1000);
}

export function recordWebhookAttempt(result: 'delivered' | 'retrying' | 'failed', ms: number): void {
  if (!metricsEnabled()) return;
  m.webhookAttempts.inc({ result });
  m.webhookDuration.observe(ms / 1000);
}

const JOB_STATUSES = new Set(['done', 'failed', 'cancelled']);
export function recordKnowledgeJob(phase: 'started' | 'ended', status?: string): void {
  if (!metricsEnabled()) return;
  if (phase === 'started') { m.knowledgeRunning.inc(); return; }
  m.knowledgeRunning.dec();
  m.knowledgeJobs.inc({ status: status && JOB_STATUSES.has(status) ? status : 'stopped' });
}

export function recordTask(task: string, outcome: 'ok' | 'error', ms: number): void {
  if (!metricsEnabled()) return;
  timer(m.taskDuration, `k ${task} ${outcome}`, { task, outcome }).observe(ms / 1000);
}

const VOICE_STAGES = new Set(['start', 'engine', 'stt', 'brain', 'tts']);
export function recordVoiceFailure(stage: string): void {
  if (!metricsEnabled()) return;
  m.voiceFailures.inc({ stage: VOICE_STAGES.has(stage) ? stage : 'engine' });
}

export const now = () => performance.now();
