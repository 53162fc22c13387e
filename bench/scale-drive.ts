/**
 * The scale bench's visitors and CPU accounting (bench/scale.ts).
 *
 * Visitors: each sends a message, waits for the bot's stored answer (the assistant `message` frame) and sends
 * again. The lean client does not parse frames: a frame is the answer when it begins `{"t":"message"` and holds
 * `"role":"assistant"`, an error when it begins `{"t":"error"`; other frames (the visitor's own message, status,
 * deltas) are skipped by a prefix test. A visitor's answers come in order after its own message, so the next
 * assistant message is this turn's. The `frames` client is the tests' FrameClient (parses and keeps every frame,
 * scans them on each wait): what the bench used before, kept to measure it.
 *
 * CPU: utime + stime of a process from /proc/<pid>/stat, in ms (Linux only).
 */
import WebSocket from 'ws';
import { connect, type FrameClient } from '../test/team/helpers.js';
import { statCpuMs } from './proc-cpu.js';

/** [user, system, main thread (user + system)] CPU ms of a process; the first two count all its threads. */
export function cpuMs(pid: number): [number, number, number] {
  const [user, sys] = statCpuMs(`/proc/${pid}/stat`);
  const [mu, ms] = statCpuMs(`/proc/${pid}/task/${pid}/stat`);
  return [user, sys, mu + ms];
}

/** `main`: the main thread's share (the event loop); the rest is the store's thread, V8's GC and compiler threads. */
export interface Cpu { user: number; sys: number; main: number }

/** CPU ms of each role over a run: call the result again to get the deltas. */
export function cpuMeter(roles: Record<string, number[]>): () => Record<string, Cpu> {
  const read = () => Object.fromEntries(Object.entries(roles).map(([k, pids]) => [k, pids.map(cpuMs).reduce((a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]], [0, 0, 0])]));
  const start = read();
  return () => {
    const end = read();
    return Object.fromEntries(Object.keys(roles).map((k) => [k, { user: end[k][0] - start[k][0], sys: end[k][1] - start[k][1], main: end[k][2] - start[k][2] }]));
  };
}

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN; };

interface Visitor { ask(text: string): Promise<void>; close(): Promise<void> }

function leanVisitor(url: string, headers: Record<string, string>, onClose: (code: number, error: string) => void): Promise<Visitor> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, headers });
    let waiting: { resolve(): void; reject(e: Error): void } | null = null;
    let ready = false;
    let error = '';
    let opened: (() => void) | null = null;
    ws.on('message', (data: Buffer) => {
      if (!ready) { if (data.toString('latin1', 0, 12) === '{"t":"ready"') { ready = true; opened?.(); } return; }
      if (!waiting || data[2] !== 0x74 /* t */) return;
      const head = data.toString('latin1', 0, 14);
      if (head === '{"t":"message"' && data.includes('"role":"assistant"')) { const w = waiting; waiting = null; w.resolve(); }
      else if (head.startsWith('{"t":"error"')) { const w = waiting; waiting = null; w.reject(new Error(String(data))); }
    });
    ws.on('error', (e) => { error = e.message; if (!ready) reject(e); });
    ws.on('close', (code) => { onClose(code, error); waiting?.reject(new Error(`socket closed (${code})`)); });
    opened = () => resolve({
      ask: (text) => new Promise<void>((res, rej) => { waiting = { resolve: res, reject: rej }; ws.send(JSON.stringify({ t: 'message', text })); }),
      close: () => new Promise<void>((res) => { if (ws.readyState === WebSocket.CLOSED) return res(); ws.once('close', () => res()); ws.close(); }),
    });
  });
}

async function framesVisitor(url: string, headers: Record<string, string>, onClose: (code: number, error: string) => void): Promise<Visitor> {
  const c: FrameClient = await connect(url, headers);
  let error = '';
  c.ws.on('error', (e) => { error = e.message; });
  c.ws.on('close', (code) => onClose(code, error));
  await c.frame('ready');
  return {
    ask: async (text) => { c.send({ t: 'message', text }); await c.next((f) => f.t === 'message' && f.message.role === 'assistant' && f.message.text === `You said: ${text}`, 30_000); },
    close: () => c.close(),
  };
}

export interface DriveResult { turnsPerSec: number; p50: number; p99: number; turns: number; abnormal: string[]; errors: string[] }

/**
 * `visitors` chatting on `urls` (spread round-robin): first for `warmup` seconds, not counted (the servers' JIT
 * warms up), then new visitors (new sockets: a socket may send 240 frames a minute) for `seconds`, measured;
 * `during` measures around the measured part only. Each visitor has its own address in the benchmarking range
 * (198.18.0.0/15, RFC 2544) for servers run with TRUST_PROXY=true, so the per-address connection limit does not
 * cap the number of visitors.
 *
 * `rate` (turns/s over all visitors): a fixed offered load. Each visitor sends on its own schedule (visitor i at
 * i / rate s, then every visitors / rate s), waiting for its answer before the next; below saturation every
 * send is on time, so each configuration does the same work per second. Without it each visitor sends again as
 * soon as it is answered (saturation). With `rate`, every visitor's first turn (which opens its conversation:
 * the lease, the conversation's records) is made before the measured part, which then counts turns of open
 * conversations only.
 */
export async function drive(o: { urls: string[]; botId: string | string[]; visitors: number; warmup: number; seconds: number; client: 'lean' | 'frames'; rate?: number }, during: { start(): Promise<void> | void; stop(): Promise<void> | void }): Promise<DriveResult> {
  const abnormal: string[] = [];
  const errors: string[] = [];
  const make = o.client === 'lean' ? leanVisitor : framesVisitor;
  let lat: number[] = [];
  let turns = 0;
  let address = 0;
  const phase = async (seconds: number, measured: boolean) => {
    const visitors: Visitor[] = [];
    for (let i = 0; i < o.visitors; i++) {
      // An abnormal close (1006) says nothing by itself: keep the client's own error (a bad frame, a reset) with it.
      const onClose = (code: number, error: string) => { if (code !== 1005 && code !== 1000) abnormal.push(`visitor ${i}: ${code} at ${new Date().toISOString()}${error ? ` (${error})` : ''}`); };
      const a = address++;
      const k = i % o.urls.length;
      visitors.push(await make(`${o.urls[k].replace('http', 'ws')}/widget/v1/chat?botId=${Array.isArray(o.botId) ? o.botId[k] : o.botId}`, { 'x-forwarded-for': `198.18.${a >> 8}.${a & 255}` }, onClose));
    }
    if (o.rate) await Promise.all(visitors.map((v, i) => v.ask(`open${i}`)));
    lat = [];
    turns = 0;
    if (measured) await during.start();
    const t0 = performance.now();
    const until = t0 + seconds * 1000;
    const every = o.rate ? (o.visitors / o.rate) * 1000 : 0;
    await Promise.all(visitors.map(async (v, i) => {
      try {
        for (let n = 0; ; n++) {
          if (o.rate) {
            const at = t0 + (i / o.rate) * 1000 + n * every;
            if (at >= until) break;
            const wait = at - performance.now();
            if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          } else if (performance.now() >= until) break;
          const s = performance.now();
          await v.ask(`q${i}-${n}`);
          lat.push(performance.now() - s);
          turns++;
        }
      } catch (err) {
        // A refused turn (e.g. the server's 240 frames a socket a minute) ends this visitor; the report says so.
        errors.push(`visitor ${i}: ${(err as Error).message.slice(0, 200)}`);
      }
    }));
    if (measured) await during.stop();
    await Promise.all(visitors.map((v) => v.close()));
  };
  if (o.warmup > 0) await phase(o.warmup, false);
  await phase(o.seconds, true);
  return { turnsPerSec: turns / o.seconds, p50: pct(lat, 0.5), p99: pct(lat, 0.99), turns, abnormal, errors };
}
