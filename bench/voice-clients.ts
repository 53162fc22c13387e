/**
 * The voice bench's clients, both kinds in the clients' process:
 *   - Widget: the widget's side of a voice session on the chat socket (docs/widget-protocol.md, Voice): voice_start,
 *     20 ms microphone frames (0x01 + PCM16) in real time, the agent's audio frames read, voice_played reported
 *     when the agent's stored turn arrives, as the widget reports a finished item.
 *   - Direct: the baseline, the same client talking to the fake engine itself, doing the base64 and JSON work the
 *     server would (appends written as the engine writes them; each event parsed and its audio decoded as the SDK
 *     and the engine do).
 * Both stamp each microphone frame's first PCM bytes with its send time and time each agent chunk on arrival.
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { VoiceSocket } from '../src/loadtest/voice-socket.js';
import { API_KEY, APPEND_PREFIX, FRAME_BYTES, FRAME_MS, MODEL, toneFrame, wallNow } from './voice-wire.js';

/** What the clients measure: downstream latencies (engine -> client) by path while `on`, and what went wrong. */
export const recorder = { on: false, down: { direct: [] as number[], server: [] as number[] }, problems: new Map<string, number>() };
/** Audio frames through the server (all of them, recorded or not): the denominator of bytes allocated per frame. */
export const relayed = { up: 0, down: 0 };

function problem(text: string): void {
  recorder.problems.set(text, (recorder.problems.get(text) ?? 0) + 1);
}

/** A microphone: one 20 ms frame every 20 ms from a random phase, on a schedule that does not drift. */
class Mic {
  private timer: NodeJS.Timeout | null = null;
  private t0 = 0;
  private k = 0;
  constructor(private readonly send: () => void) {}
  start(): void {
    this.stop();
    this.t0 = performance.now() + Math.random() * FRAME_MS;
    this.k = 0;
    this.timer = setTimeout(() => this.tick(), this.t0 - performance.now());
  }
  stop(): void { if (this.timer) clearTimeout(this.timer); this.timer = null; }
  private tick(): void {
    this.send();
    this.k++;
    this.timer = setTimeout(() => this.tick(), Math.max(0, this.t0 + this.k * FRAME_MS - performance.now()));
  }
}

export class Widget {
  readonly mic: Mic;
  private readonly frame = toneFrame(1);
  private readonly socket: VoiceSocket;
  /** Agent items by message id: audio bytes received, reported as played when the stored turn arrives. */
  private readonly items = new Map<string, { itemId: string; bytes: number }>();
  private current: { itemId: string; bytes: number } | null = null;
  /** Between voice_start and voice_stop (a stored turn may arrive after voice_stop: nothing to report then). */
  private live = false;

  private constructor(readonly ws: WebSocket) {
    this.socket = new VoiceSocket(ws);
    this.frame[0] = 0x01;
    this.mic = new Mic(() => { this.frame.writeDoubleLE(wallNow(), 1); ws.send(this.frame); relayed.up++; });
    ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) {
        const at = wallNow();
        relayed.down++;
        if (recorder.on) recorder.down.server.push(at - data.readDoubleLE(1));
        if (this.current) this.current.bytes += data.length - 1;
        return;
      }
      this.onFrame(JSON.parse(String(data)));
    });
  }

  static open(url: string, ip: string): Promise<Widget> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, headers: { 'x-forwarded-for': ip } });
      ws.once('message', () => resolve(new Widget(ws)));
      ws.once('error', reject);
    });
  }

  private onFrame(f: any): void {
    if (f.t === 'voice_item') {
      this.current = { itemId: f.itemId, bytes: 0 };
      this.items.set(f.messageId, this.current);
    } else if (f.t === 'message' && f.message.role === 'assistant') {
      const item = this.items.get(f.message.id);
      if (item && this.live) {
        this.items.delete(f.message.id);
        this.ws.send(JSON.stringify({ t: 'voice_played', itemId: item.itemId, ms: item.bytes / (FRAME_BYTES / FRAME_MS) }));
      }
    } else if (f.t === 'voice_interrupt' && this.live) {
      // Playback stops: what was received counts as played, as the widget reports it.
      for (const [messageId, item] of this.items) {
        if (item.itemId !== f.itemId) continue;
        this.items.delete(messageId);
        this.ws.send(JSON.stringify({ t: 'voice_played', itemId: item.itemId, ms: item.bytes / (FRAME_BYTES / FRAME_MS) }));
      }
    } else if (f.t === 'error') problem(`widget: ${f.code} ${f.message}`);
    else if (f.t === 'voice' && f.state === 'ended' && f.reason !== 'visitor') problem(`widget: voice ended (${f.reason}) ${f.message}`);
    this.socket.dispatch(f);
  }

  /** A typed message; resolves once the agent's reply is stored (the conversation exists then). */
  say(text: string): Promise<void> { return this.socket.say(text); }

  /** voice_start; resolves once the session listens (the microphone is started apart). */
  async startVoice(): Promise<void> {
    const f = await this.socket.startVoice();
    if (f?.t !== 'voice' || f.state !== 'listening') throw new Error(`voice did not start: ${f ? JSON.stringify(f) : 'no answer within 30 s'}`);
    this.items.clear();
    this.current = null;
    this.live = true;
  }

  async stopVoice(): Promise<void> {
    this.mic.stop();
    this.live = false;
    if (!(await this.socket.stopVoice())) throw new Error('widget: no ended voice frame within 30 s');
  }
}

export class Direct {
  readonly mic: Mic;
  private readonly pcm = toneFrame();

  private constructor(readonly ws: WebSocket) {
    this.mic = new Mic(() => {
      this.pcm.writeDoubleLE(wallNow(), 0);
      ws.send(`${APPEND_PREFIX}${this.pcm.toString('base64')}"}`);
    });
    ws.on('message', (data: Buffer) => {
      const e = JSON.parse(data.toString());
      if (e.type === 'response.output_audio.delta') {
        const pcm = Buffer.from(e.delta, 'base64');
        if (recorder.on) recorder.down.direct.push(wallNow() - pcm.readDoubleLE(0));
      } else if (e.type === 'error') problem(`direct: ${e.error.message}`);
    });
  }

  /** Connects to the fake engine and configures the session as the engine does (session.update -> session.updated). */
  static open(fakePort: number): Promise<Direct> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${fakePort}/v1/realtime?model=${MODEL}&client=direct`, { perMessageDeflate: false, headers: { authorization: `Bearer ${API_KEY}` } });
      ws.once('open', () => ws.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', output_modalities: ['audio'], audio: { input: { format: { type: 'audio/pcm', rate: 24_000 } } } } })));
      const onReady = (data: Buffer) => {
        if (!String(data).includes('"session.updated"')) return;
        ws.off('message', onReady);
        resolve(new Direct(ws));
      };
      ws.on('message', onReady);
      ws.once('error', reject);
    });
  }
}

/** Opens n clients, 50 at a time. */
export async function openAll<T>(n: number, open: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += 50) out.push(...await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => open(i + k))));
  return out;
}
