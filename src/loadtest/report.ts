/** The capacity test's report: a table for the terminal, JSON for scripts, and a self-contained HTML page with charts (uPlot inlined). */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ServerFigures } from './server-metrics.js';
import type { VisitorPlan, VisitorResults } from './visitors.js';
import type { VoiceResults } from './voice-visitor.js';
import { BYTES_PER_MS } from './voice-wire.js';

const require = createRequire(import.meta.url);

export interface Report {
  target: string;
  plan: Omit<VisitorPlan, 'wsBase' | 'botId'> & { providerChunks: number; providerGapMs: number; voiceReplyMs?: number; voiceCap?: number; voiceEndOfTurnMs?: number };
  startedAt: string;
  elapsedS: number;
  stoppedBy: string;
  visitorsConnected: number;
  turnsDone: number;
  turnsCut: number;
  turnsPerSec: number;
  firstDeltaMs: { p50: number; p95: number; p99: number; max: number };
  turnMs: { p50: number; p95: number; p99: number };
  errors: Record<string, number>;
  errorCount: number;
  /** Visitors who talked: null when none did (--voice 0). */
  voice: VoiceFigures | null;
  timeline: Array<{ t: number; open: number; turns: number; p50: number | null; p95: number | null; voice: number; audioP50: number | null }>;
  server: ServerFigures | null;
}

export interface VoiceFigures {
  visitors: number;
  sessionsStarted: number;
  /** voice_start refused, by code (rate_limited: a cap such as security.caps.concurrentVoiceSessions). */
  refused: Record<string, number>;
  refusedCount: number;
  spokenTurnsDone: number;
  /** Last frame of speech sent -> first frame of the agent's audio (includes the engine's end-of-turn quiet). */
  firstAudioMs: { p50: number; p95: number; p99: number; max: number };
  /** The agent's last audio frame -> its stored message (when the widget ends playback and the turn is over). */
  storedAfterAudioMs: { p50: number; p95: number; p99: number };
  framesSent: number;
  framesReceived: number;
  audioSecondsReceived: number;
  /** Means per started session. */
  perSession: { framesSent: number; framesReceived: number; spokenTurns: number };
  errors: Record<string, number>;
  errorCount: number;
}

function voiceFigures(v: VoiceResults | null): VoiceFigures | null {
  if (!v) return null;
  const per = (n: number) => (v.started ? Math.round((n / v.started) * 10) / 10 : 0);
  return {
    visitors: v.visitors, sessionsStarted: v.started, refused: v.refused, refusedCount: sum(v.refused), spokenTurnsDone: v.turnsDone,
    firstAudioMs: { p50: pct(v.firstAudioMs, 0.5), p95: pct(v.firstAudioMs, 0.95), p99: pct(v.firstAudioMs, 0.99), max: pct(v.firstAudioMs, 1) },
    storedAfterAudioMs: { p50: pct(v.storedMs, 0.5), p95: pct(v.storedMs, 0.95), p99: pct(v.storedMs, 0.99) },
    framesSent: v.framesSent, framesReceived: v.framesReceived, audioSecondsReceived: Math.round(v.bytesReceived / BYTES_PER_MS / 100) / 10,
    perSession: { framesSent: per(v.framesSent), framesReceived: per(v.framesReceived), spokenTurns: per(v.turnsDone) },
    errors: v.errors, errorCount: sum(v.errors),
  };
}

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
const kinds = (r: Record<string, number>) => (Object.keys(r).length ? Object.entries(r).map(([k, v]) => `${k}: ${v}`).join(', ') : 'none');

const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = Float64Array.from(xs).sort();
  return Math.round(s[Math.min(s.length - 1, Math.floor(s.length * p))] * 10) / 10;
};

export function buildReport(target: string, plan: Report['plan'], r: VisitorResults, server: ServerFigures | null): Report {
  const elapsedS = r.elapsedMs / 1000;
  return {
    target, plan, startedAt: new Date(r.startedAt).toISOString(), elapsedS: Math.round(elapsedS * 10) / 10, stoppedBy: r.stoppedBy,
    visitorsConnected: r.connected, turnsDone: r.turnsDone, turnsCut: r.turnsCut,
    turnsPerSec: Math.round((r.turnsDone / Math.max(elapsedS, 0.001)) * 100) / 100,
    firstDeltaMs: { p50: pct(r.firstDeltaMs, 0.5), p95: pct(r.firstDeltaMs, 0.95), p99: pct(r.firstDeltaMs, 0.99), max: pct(r.firstDeltaMs, 1) },
    turnMs: { p50: pct(r.turnMs, 0.5), p95: pct(r.turnMs, 0.95), p99: pct(r.turnMs, 0.99) },
    errors: r.errors, errorCount: sum(r.errors),
    voice: voiceFigures(r.voice),
    timeline: r.ticks.map((k) => ({
      t: k.t, open: k.open, turns: k.turns, p50: k.firstDeltaMs.length ? pct(k.firstDeltaMs, 0.5) : null, p95: k.firstDeltaMs.length ? pct(k.firstDeltaMs, 0.95) : null,
      voice: k.voice, audioP50: k.firstAudioMs.length ? pct(k.firstAudioMs, 0.5) : null,
    })),
    server,
  };
}

const fmt = (n: number) => (Number.isFinite(n) ? (Math.abs(n) >= 100 ? Math.round(n).toString() : (Math.round(n * 10) / 10).toString()) : '-');

export function reportTable(rep: Report): string {
  const rows: Array<[string, string]> = [
    ['target', rep.target],
    ['visitors (connected / planned)', `${rep.visitorsConnected} / ${rep.plan.visitors}`],
    ['turns done (cut by the limit)', `${rep.turnsDone} (${rep.turnsCut})`],
    ['run time', `${rep.elapsedS} s (${rep.stoppedBy})`],
    ['throughput', `${rep.turnsPerSec} turns/s`],
    ['first delta p50 / p95 / p99', `${fmt(rep.firstDeltaMs.p50)} / ${fmt(rep.firstDeltaMs.p95)} / ${fmt(rep.firstDeltaMs.p99)} ms`],
    ['whole turn p50 / p95 / p99', `${fmt(rep.turnMs.p50)} / ${fmt(rep.turnMs.p95)} / ${fmt(rep.turnMs.p99)} ms`],
    ['errors', kinds(rep.errors)],
  ];
  const v = rep.voice;
  if (v) {
    rows.push(
      ['voice sessions (started / talkers)', `${v.sessionsStarted} / ${v.visitors}`],
      ['voice sessions refused', v.refusedCount ? kinds(v.refused) : 'none'],
      ['spoken turns done', `${v.spokenTurnsDone} (${v.perSession.spokenTurns} a session)`],
      [`speech end to agent audio p50 / p95 / p99`, `${fmt(v.firstAudioMs.p50)} / ${fmt(v.firstAudioMs.p95)} / ${fmt(v.firstAudioMs.p99)} ms (incl. ${rep.plan.voiceEndOfTurnMs ?? '?'} ms end-of-turn quiet)`],
      ['agent audio end to stored turn p50 / p95 / p99', `${fmt(v.storedAfterAudioMs.p50)} / ${fmt(v.storedAfterAudioMs.p95)} / ${fmt(v.storedAfterAudioMs.p99)} ms`],
      ['audio frames sent / received', `${v.framesSent} / ${v.framesReceived} (${v.perSession.framesSent} / ${v.perSession.framesReceived} a session; ${v.audioSecondsReceived} s of agent audio)`],
      ['voice errors', kinds(v.errors)],
    );
  }
  const s = rep.server?.summary;
  if (s) {
    rows.push(
      ['server metrics read from', rep.server!.processes > 1 ? `${rep.server!.processes} processes, added up` : '1 process'],
      ['server CPU mean / max', `${fmt(s.cpuPctMean)} / ${fmt(s.cpuPctMax)} % of a core`],
      ['server event-loop delay p99 (max)', `${fmt(s.loopP99MsMax)} ms`],
      ['server memory (max RSS)', `${fmt(s.rssMbMax)} MB`],
      ['server HTTP requests / store calls', `${s.httpRequests} / ${s.storeCalls} (mean ${fmt(s.storeCallMeanMs)} ms)`],
      ['server provider requests (errors)', `${s.providerRequests} (${s.providerErrors}), first token mean ${fmt(s.providerFirstTokenMeanMs)} ms`],
      ['server GC pauses, total', `${fmt(s.gcPauseMsTotal)} ms`],
      ['server widget sockets / mailbox depth (max)', `${s.widgetSocketsMax} / ${s.mailboxDepthMax}`],
    );
    if (rep.voice) rows.push(['server voice sessions (max)', `${s.voiceSessionsMax}`]);
    if (rep.server!.warning) rows.push(['server metrics warning', rep.server!.warning]);
  } else if (rep.server?.error) rows.push(['server metrics', `not read: ${rep.server.error}`]);
  const w = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n');
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export function reportHtml(rep: Report): string {
  const uplotJs = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8');
  const uplotCss = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
  const table = reportTable(rep).split('\n').map((l) => { const [k, ...v] = l.split(/\s{2,}/); return `<tr><th>${esc(k)}</th><td>${esc(v.join(' '))}</td></tr>`; }).join('');
  const data = JSON.stringify({ timeline: rep.timeline, server: rep.server?.points ?? [] }).replace(/</g, '\\u003c');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Capacity test: ${esc(rep.target)}</title>
<style>${uplotCss}
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#1d2433;padding:0 16px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}table{border-collapse:collapse}th,td{text-align:left;padding:4px 12px 4px 0;border-bottom:1px solid #e4e7ee;vertical-align:top}th{font-weight:600;color:#505a6e}
.chart{margin:8px 0 20px}</style></head><body>
<h1>Capacity test: ${esc(rep.target)}</h1><p>Started ${esc(rep.startedAt)}; ${rep.plan.visitors} visitors, ${rep.plan.turns} turns each, ramp ${rep.plan.rampMs} ms, think ${rep.plan.thinkMs} ms; simulated replies of ${rep.plan.providerChunks} pieces ${rep.plan.providerGapMs} ms apart.${rep.voice ? ` ${rep.voice.visitors} of the visitors talk: ${rep.plan.speechMs} ms of speech a turn, spoken replies of ${rep.plan.voiceReplyMs} ms, the simulated engine ends a turn after ${rep.plan.voiceEndOfTurnMs} ms of quiet.` : ''}</p>
<table>${table}</table>
<h2>Visitors and throughput</h2><div id="c1" class="chart"></div>
<h2>First-delta latency per second (ms)</h2><div id="c2" class="chart"></div>
${rep.voice ? '<h2>Voice: sessions and speech end to agent audio (ms, median per second)</h2><div id="c4" class="chart"></div>' : ''}
<h2>The server's own metrics</h2><div id="c3" class="chart"></div>
<script>${uplotJs}</script>
<script>
const d = ${data};
const W = Math.min(960, document.body.clientWidth - 20), H = 240;
const t = d.timeline.map((x) => x.t);
new uPlot({ width: W, height: H, scales: { x: { time: false } }, series: [{ label: 's' }, { label: 'open sockets', stroke: '#3b6fd8' }, { label: 'turns/s', stroke: '#1f9d6b', scale: 'r' }], axes: [{ label: 'seconds' }, { label: 'open sockets' }, { side: 1, scale: 'r', label: 'turns/s' }] }, [t, d.timeline.map((x) => x.open), d.timeline.map((x) => x.turns)], document.getElementById('c1'));
new uPlot({ width: W, height: H, scales: { x: { time: false } }, series: [{ label: 's' }, { label: 'p50', stroke: '#3b6fd8' }, { label: 'p95', stroke: '#d8643b' }], axes: [{ label: 'seconds' }, { label: 'ms' }] }, [t, d.timeline.map((x) => x.p50), d.timeline.map((x) => x.p95)], document.getElementById('c2'));
if (d.server.length > 1) new uPlot({ width: W, height: H, scales: { x: { time: false } }, series: [{ label: 's' }, { label: 'CPU % of a core', stroke: '#7a3bd8' }, { label: 'event-loop delay p99 ms', stroke: '#d8643b', scale: 'ms' }], axes: [{ label: 'seconds' }, { label: 'CPU %' }, { side: 1, scale: 'ms', label: 'ms' }] }, [d.server.map((p) => p.t), d.server.map((p) => p.cpuPct), d.server.map((p) => p.loopP99Ms)], document.getElementById('c3'));
else document.getElementById('c3').textContent = ${JSON.stringify(rep.server?.error ? `not read: ${rep.server.error}` : 'not read: pass --metrics-token or --metrics-url')};
if (document.getElementById('c4')) new uPlot({ width: W, height: H, scales: { x: { time: false } }, series: [{ label: 's' }, { label: 'voice sessions', stroke: '#1f9d6b' }, { label: 'speech end to audio p50 ms', stroke: '#d8643b', scale: 'ms' }], axes: [{ label: 'seconds' }, { label: 'sessions' }, { side: 1, scale: 'ms', label: 'ms' }] }, [t, d.timeline.map((x) => x.voice), d.timeline.map((x) => x.audioP50)], document.getElementById('c4'));
</script></body></html>`;
}
