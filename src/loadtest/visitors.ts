/**
 * Simulated visitors on the real widget protocol (docs/widget-protocol.md): each opens the chat socket, waits
 * for `ready`, then asks `turns` questions, waiting for the stored reply and a think time between them. The
 * first `delta` frame after a question gives the first-delta latency. A share of the visitors (`voiceShare`) talk
 * instead (src/loadtest/voice-visitor.ts). Everything stops at the time limit.
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { emptyVoiceResults, VoiceVisitor, type VisitorRun, type VoiceResults } from './voice-visitor.js';

export interface VisitorPlan {
  wsBase: string;
  botId: string;
  visitors: number;
  turns: number;
  rampMs: number;
  thinkMs: number;
  durationMs: number;
  turnTimeoutMs: number;
  /** Share of the visitors who talk (0 to 1), and how long each of their turns is spoken (ms). */
  voiceShare: number;
  speechMs: number;
}

/** One second of the run. */
export interface Tick { t: number; open: number; turns: number; firstDeltaMs: number[]; voice: number; firstAudioMs: number[] }

export interface VisitorResults {
  startedAt: number;
  elapsedMs: number;
  connected: number;
  turnsDone: number;
  turnsCut: number;
  firstDeltaMs: number[];
  turnMs: number[];
  errors: Record<string, number>;
  ticks: Tick[];
  stoppedBy: 'done' | 'time limit';
  /** Null when no visitor talks. */
  voice: VoiceResults | null;
}

/** Whether visitor i talks: spread evenly, floor(visitors x share) of them. */
export const talks = (i: number, share: number) => Math.floor((i + 1) * share) > Math.floor(i * share);

const QUESTIONS = ['What are your opening hours?', 'Do you ship abroad?', 'How do I return an item?', 'Can I talk to someone?', 'What does delivery cost?'];

export async function runVisitors(plan: VisitorPlan, onProgress?: (r: VisitorResults) => void): Promise<VisitorResults> {
  const start = performance.now();
  const talkers = Array.from({ length: plan.visitors }, (_, i) => talks(i, plan.voiceShare)).filter(Boolean).length;
  const r: VisitorResults = {
    startedAt: Date.now(), elapsedMs: 0, connected: 0, turnsDone: 0, turnsCut: 0, firstDeltaMs: [], turnMs: [], errors: {}, ticks: [], stoppedBy: 'done',
    voice: talkers ? emptyVoiceResults(talkers) : null,
  };
  const error = (kind: string) => { r.errors[kind] = (r.errors[kind] ?? 0) + 1; };
  let open = 0;
  let voiceOpen = 0;
  let tick: Tick = { t: 0, open: 0, turns: 0, firstDeltaMs: [], voice: 0, firstAudioMs: [] };
  const ticker = setInterval(() => {
    tick.open = open;
    tick.voice = voiceOpen;
    r.ticks.push(tick);
    tick = { t: r.ticks.length, open, turns: 0, firstDeltaMs: [], voice: voiceOpen, firstAudioMs: [] };
    r.elapsedMs = performance.now() - start;
    onProgress?.(r);
  }, 1000);
  const sockets = new Set<WebSocket>();
  let stopping = false;
  const stopAll = new Promise<void>((resolve) => setTimeout(() => { stopping = true; r.stoppedBy = 'time limit'; resolve(); }, plan.durationMs).unref());
  const sleep = (ms: number) => new Promise<void>((res) => { const t = setTimeout(res, ms); void stopAll.then(() => { clearTimeout(t); res(); }); });
  const voiceRun: VisitorRun = {
    turns: plan.turns, thinkMs: plan.thinkMs, turnTimeoutMs: plan.turnTimeoutMs, speechMs: plan.speechMs, stopped: stopAll, sleep,
    stopping: () => stopping,
    voiceOpen: (d) => { voiceOpen += d; },
    firstAudio: (ms) => { r.voice!.firstAudioMs.push(ms); tick.firstAudioMs.push(ms); },
    stored: (ms) => { r.voice!.storedMs.push(ms); },
  };

  const visitor = async (i: number) => {
    await sleep(plan.rampMs ? Math.random() * plan.rampMs : 0);
    if (stopping) return;
    // Each visitor has its own address in the benchmarking range (198.18.0.0/15, RFC 2544): a server with
    // TRUST_PROXY=true counts its per-address limits per visitor, as it would for real visitors.
    const headers = { 'x-forwarded-for': `198.${18 + ((i >> 16) & 1)}.${(i >> 8) & 255}.${i & 255}` };
    const ws = new WebSocket(`${plan.wsBase}/widget/v1/chat?botId=${encodeURIComponent(plan.botId)}`, { perMessageDeflate: false, headers });
    sockets.add(ws);
    const talker = r.voice && talks(i, plan.voiceShare) ? new VoiceVisitor(ws, voiceRun, r.voice) : null;
    let waiting: { kind: 'ready' | 'reply'; sentAt: number; gotDelta: boolean; resolve: () => void } | null = null;
    let closed = false;
    let ready = false;
    const opened = new Promise<boolean>((resolve) => {
      ws.once('unexpected-response', (_req, res) => { error(`connect ${res.statusCode}`); res.resume(); resolve(false); });
      ws.once('error', (err) => { if (ws.readyState !== WebSocket.OPEN) { error(`connect ${(err as NodeJS.ErrnoException).code ?? 'failed'}`); resolve(false); } });
      ws.once('open', () => resolve(true));
    });
    ws.on('message', (data, isBinary) => {
      talker?.onMessage(data as Buffer, isBinary);
      if (isBinary) return;
      let f: { t?: string; code?: string; message?: { role?: string } };
      try { f = JSON.parse(String(data)); } catch { return error('bad frame'); }
      if (f.t === 'ready') ready = true;
      if (!waiting) return;
      if (waiting.kind === 'ready' && f.t === 'ready') return waiting.resolve();
      if (talker) return;
      if (f.t === 'error') { error(`frame ${f.code ?? 'error'}`); if (waiting.kind === 'reply') { waiting.resolve(); } return; }
      if (waiting.kind !== 'reply') return;
      if (f.t === 'delta' && !waiting.gotDelta) {
        waiting.gotDelta = true;
        const ms = performance.now() - waiting.sentAt;
        r.firstDeltaMs.push(ms);
        tick.firstDeltaMs.push(ms);
      } else if (f.t === 'message' && f.message?.role === 'assistant') {
        r.turnsDone++;
        tick.turns++;
        r.turnMs.push(performance.now() - waiting.sentAt);
        waiting.resolve();
      }
    });
    ws.on('close', (code) => { closed = true; if (!stopping && code !== 1000) error(`closed ${code}`); waiting?.resolve(); });
    if (!(await opened)) { sockets.delete(ws); return; }
    open++;
    r.connected++;
    const wait = (kind: 'ready' | 'reply', sentAt: number) => new Promise<'ok' | 'timeout'>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), plan.turnTimeoutMs);
      waiting = { kind, sentAt, gotDelta: false, resolve: () => { clearTimeout(timer); waiting = null; resolve('ok'); } };
      void stopAll.then(() => { if (waiting?.kind === kind) waiting.resolve(); });
    });
    try {
      // The ready frame usually comes with the upgrade, before anyone waits for it.
      if (!ready && (await wait('ready', performance.now())) === 'timeout') return error('no ready frame');
      if (talker) return await talker.talk();
      for (let t = 0; t < plan.turns && !stopping && !closed; t++) {
        if (t > 0 && plan.thinkMs) await sleep(Math.random() * 2 * plan.thinkMs);
        if (stopping || closed) break;
        const before = r.turnsDone;
        ws.send(JSON.stringify({ t: 'message', text: `${QUESTIONS[(i + t) % QUESTIONS.length]} (visitor ${i}, turn ${t + 1})` }));
        const outcome = await wait('reply', performance.now());
        if (outcome === 'timeout') { error('reply timeout'); break; }
        if (stopping && r.turnsDone === before) r.turnsCut++;
      }
    } finally {
      open--;
      sockets.delete(ws);
      if (ws.readyState === WebSocket.OPEN) ws.close(1000);
    }
  };

  await Promise.race([Promise.all(Array.from({ length: plan.visitors }, (_, i) => visitor(i))), stopAll]);
  stopping = true;
  for (const ws of sockets) ws.terminate();
  clearInterval(ticker);
  tick.open = open;
  tick.voice = voiceOpen;
  r.ticks.push(tick);
  r.elapsedMs = performance.now() - start;
  return r;
}
