/**
 * The server's own /metrics during the run: scraped at the start, every few seconds and at the end, and
 * summed up as the figures an operator sizes with (CPU, event loop, memory, store and provider latency). A
 * scale-out group is read process by process (one URL each: METRICS_PORT + i or WORKER_PORTS + i) and added
 * up (CPU, requests, memory, sockets; the event loop's worst process); read through one URL only, the figures
 * are said to be one process's.
 */
import { parseMetrics, value, type Sample } from './prom-text.js';

export interface MetricsPoint { t: number; cpuPct: number; loopP99Ms: number; elu: number; rssMb: number; widgetSockets: number; mailbox: number; voiceSessions: number }
export interface ServerFigures {
  source: string;
  /** How many processes' metrics were added up. */
  processes: number;
  /** Why the figures may not be the whole server's (one process of a group read), or null. */
  warning: string | null;
  points: MetricsPoint[];
  summary: Record<string, number> | null;
  error: string | null;
}

export class MetricsWatcher {
  /** Each scrape: one list of samples per URL. */
  private first: Sample[][] | null = null;
  private last: Sample[][] | null = null;
  private warning: string | null = null;
  private prev: { at: number; cpu: number } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly points: MetricsPoint[] = [];
  private error: string | null = null;
  private readonly t0 = Date.now();

  constructor(private urls: string[], private token: string | null) {}

  private async scrapeOne(url: string): Promise<Sample[] | null> {
    try {
      const res = await fetch(url, { headers: this.token ? { authorization: `Bearer ${this.token}` } : {} });
      if (res.status !== 200) { this.error = `${url} answered ${res.status}: ${(await res.text()).slice(0, 200)}`; return null; }
      return parseMetrics(await res.text());
    } catch (err) {
      this.error = `cannot read ${url}: ${(err as Error).message}`;
      return null;
    }
  }

  /** Every URL's samples, or null when one could not be read (a sum without it would be wrong). */
  private async scrape(): Promise<Sample[][] | null> {
    const all = await Promise.all(this.urls.map((u) => this.scrapeOne(u)));
    return all.every((s): s is Sample[] => s !== null) ? all : null;
  }

  /** Says when the figures are one process's of a group, or when one URL reached different processes. */
  private check(each: Sample[][]): void {
    if (this.warning) return;
    const started = (s: Sample[]) => value(s, 'process_start_time_seconds');
    if (this.first && this.first.some((s, i) => started(s) !== started(each[i]))) {
      this.warning = 'successive reads of one metrics URL reached different processes (a scale-out group behind one port): the figures mix processes; pass --metrics-url once per process (METRICS_PORT + i, or WORKER_PORTS + i)';
    } else if (this.urls.length === 1 && each[0].some((s) => s.name === 'servicechat_coordination_up')) {
      this.warning = `${this.urls[0]} is one process of a scale-out group: these figures are that process's only; pass --metrics-url once per process of the group (METRICS_PORT + i, or WORKER_PORTS + i) to add them all up`;
    }
  }

  private async sample(): Promise<void> {
    const each = await this.scrape();
    if (!each) return;
    this.check(each);
    this.first ??= each;
    this.last = each;
    const s = each.flat(); // value() adds up the processes' samples
    const worst = (name: string) => Math.max(...each.map((p) => value(p, name)));
    const now = Date.now();
    const cpu = value(s, 'process_cpu_seconds_total');
    const cpuPct = this.prev ? (100 * (cpu - this.prev.cpu)) / ((now - this.prev.at) / 1000) : 0;
    this.prev = { at: now, cpu };
    this.points.push({
      t: (now - this.t0) / 1000, cpuPct, loopP99Ms: worst('nodejs_eventloop_lag_p99_seconds') * 1000, elu: worst('servicechat_event_loop_utilization'),
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
    return { source: this.urls.join(' '), processes: this.urls.length, warning: this.warning, points: this.points, summary: this.summary(), error: this.first ? null : this.error };
  }

  private summary(): Record<string, number> | null {
    if (!this.first || !this.last || this.first === this.last) return null;
    const a = this.first.flat(), b = this.last.flat();
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
