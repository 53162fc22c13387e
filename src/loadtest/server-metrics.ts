/**
 * The server's own /metrics during the run: scraped at the start, every few seconds and at the end, and
 * summed up as the figures an operator sizes with (CPU, event loop, memory, store and provider latency).
 */
import { parseMetrics, value, type Sample } from './prom-text.js';

export interface MetricsPoint { t: number; cpuPct: number; loopP99Ms: number; elu: number; rssMb: number; widgetSockets: number; mailbox: number; voiceSessions: number }
export interface ServerFigures {
  source: string;
  points: MetricsPoint[];
  summary: Record<string, number> | null;
  error: string | null;
}

export class MetricsWatcher {
  private first: Sample[] | null = null;
  private last: Sample[] | null = null;
  private prev: { at: number; cpu: number } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly points: MetricsPoint[] = [];
  private error: string | null = null;
  private readonly t0 = Date.now();

  constructor(private url: string, private token: string | null) {}

  private async scrape(): Promise<Sample[] | null> {
    try {
      const res = await fetch(this.url, { headers: this.token ? { authorization: `Bearer ${this.token}` } : {} });
      if (res.status !== 200) { this.error = `${this.url} answered ${res.status}: ${(await res.text()).slice(0, 200)}`; return null; }
      return parseMetrics(await res.text());
    } catch (err) {
      this.error = `cannot read ${this.url}: ${(err as Error).message}`;
      return null;
    }
  }

  private async sample(): Promise<void> {
    const s = await this.scrape();
    if (!s) return;
    this.first ??= s;
    this.last = s;
    const now = Date.now();
    const cpu = value(s, 'process_cpu_seconds_total');
    const cpuPct = this.prev ? (100 * (cpu - this.prev.cpu)) / ((now - this.prev.at) / 1000) : 0;
    this.prev = { at: now, cpu };
    this.points.push({
      t: (now - this.t0) / 1000, cpuPct, loopP99Ms: value(s, 'nodejs_eventloop_lag_p99_seconds') * 1000, elu: value(s, 'servicechat_event_loop_utilization'),
      rssMb: value(s, 'process_resident_memory_bytes') / 1048576, widgetSockets: value(s, 'servicechat_sockets_open', { endpoint: 'widget' }), mailbox: value(s, 'servicechat_actor_mailbox_depth'),
      voiceSessions: value(s, 'servicechat_voice_sessions'),
    });
  }

  async start(everyMs: number): Promise<void> {
    await this.sample();
    this.timer = setInterval(() => void this.sample(), everyMs);
  }

  async stop(): Promise<ServerFigures> {
    if (this.timer) clearInterval(this.timer);
    await this.sample();
    return { source: this.url, points: this.points, summary: this.summary(), error: this.first ? null : this.error };
  }

  private summary(): Record<string, number> | null {
    const a = this.first, b = this.last;
    if (!a || !b || a === b) return null;
    const d = (name: string, labels: Record<string, string> = {}) => value(b, name, labels) - value(a, name, labels);
    const mean = (base: string, labels: Record<string, string> = {}) => { const c = d(`${base}_count`, labels); return c ? (1000 * d(`${base}_sum`, labels)) / c : 0; };
    const cpus = this.points.slice(1).map((p) => p.cpuPct);
    return {
      httpRequests: d('servicechat_http_request_duration_seconds_count'),
      providerRequests: d('servicechat_provider_request_duration_seconds_count'),
      providerErrors: d('servicechat_provider_errors_total'),
      providerFirstTokenMeanMs: mean('servicechat_provider_first_token_seconds'),
      storeCalls: d('servicechat_store_call_duration_seconds_count'),
      storeCallMeanMs: mean('servicechat_store_call_duration_seconds'),
      gcPauseMsTotal: 1000 * d('nodejs_gc_duration_seconds_sum'),
      cpuPctMean: cpus.length ? cpus.reduce((x, y) => x + y, 0) / cpus.length : 0,
      cpuPctMax: cpus.length ? Math.max(...cpus) : 0,
      loopP99MsMax: Math.max(...this.points.map((p) => p.loopP99Ms)),
      rssMbMax: Math.max(...this.points.map((p) => p.rssMb)),
      widgetSocketsMax: Math.max(...this.points.map((p) => p.widgetSockets)),
      mailboxDepthMax: Math.max(...this.points.map((p) => p.mailbox)),
      voiceSessionsMax: Math.max(...this.points.map((p) => p.voiceSessions)),
    };
  }
}
