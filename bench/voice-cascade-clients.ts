/**
 * The cascade voice bench's clients (bench/voice-cascade.ts), both kinds in the clients' process:
 *   - CascadeWidget: the widget's side of a cascade voice session on the chat socket (docs/widget-protocol.md,
 *     Voice): 20 ms frames of 16 kHz PCM16 in real time, looping over one visitor's cycle (espeak-ng speech, then
 *     silence); the send time of the cycle's last speech frame is the end of speech, and the first agent audio frame
 *     after it ends the measured delay. The agent's item is reported played (voice_played) once its audio has
 *     stopped coming for 300 ms, as a widget reports an item it finished playing.
 *   - CascadeDirect: the baseline, the same turn's provider calls made by the client itself on the same cycle:
 *     the turn's WAV to speech to text, the words to the brain (streamed) until its first sentence, that sentence
 *     to speech until its first audio. Their sum is the fakes' own time, loopback HTTP included.
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { VoiceSocket } from '../src/loadtest/voice-socket.js';
import { pcmToWav } from '../src/providers/wav.js';

export const IN_RATE = 16_000;
export const FRAME_MS = 20;
const FRAME_BYTES = (IN_RATE / 50) * 2;
const wallNow = () => performance.timeOrigin + performance.now();

/** What the clients measure while `on`: delays by path (ms), the direct path's stages, and what went wrong. */
export const recorder = {
  on: false,
  server: [] as number[],
  direct: [] as number[],
  stages: { stt: [] as number[], brain: [] as number[], tts: [] as number[] },
  /** The server's turn rule in this window (bench/voice-cascade.ts --turns), and its figures by kind of utterance. */
  rule: 'adaptive' as 'adaptive' | 'fixed',
  turns: {} as Record<string, { delays: number[]; cycles: number; cutoffs: number }>,
  /** Ticks (frames, direct turns) skipped because this process was late. */
  skipped: 0,
  problems: new Map<string, number>(),
};
function turnFigures(kind: string) {
  const key = `${recorder.rule} ${kind}`;
  return recorder.turns[key] ??= { delays: [], cycles: 0, cutoffs: 0 };
}
export function problem(text: string): void { recorder.problems.set(text, (recorder.problems.get(text) ?? 0) + 1); }

/** One visitor's cycle as widget frames (0x01 + 20 ms of PCM16): the speech, then silence up to cycleMs. */
export function cycleFrames(speech: Buffer, cycleMs: number): { frames: Buffer[]; lastSpeech: number } {
  const n = Math.round(cycleMs / FRAME_MS);
  const frames: Buffer[] = [];
  const silent = Buffer.alloc(1 + FRAME_BYTES);
  silent[0] = 0x01;
  for (let i = 0; i < n; i++) {
    const at = i * FRAME_BYTES;
    if (at >= speech.length) { frames.push(silent); continue; }
    const f = Buffer.alloc(1 + FRAME_BYTES);
    f[0] = 0x01;
    speech.copy(f, 1, at, Math.min(speech.length, at + FRAME_BYTES));
    frames.push(f);
  }
  return { frames, lastSpeech: Math.ceil(speech.length / FRAME_BYTES) - 1 };
}

/** A schedule that does not drift: `tick(first + k)` every `periodMs` from a random phase, until stopped. */
class Ticker {
  private timer: NodeJS.Timeout | null = null;
  private t0 = 0;
  private k = 0;
  private first = 0;
  constructor(private readonly periodMs: number, private readonly tick: (k: number) => void) {}
  start(first = 0): void {
    this.stop();
    this.t0 = performance.now() + Math.random() * this.periodMs;
    this.k = 0;
    this.first = first;
    this.timer = setTimeout(() => this.run(), this.t0 - performance.now());
  }
  stop(): void { if (this.timer) clearTimeout(this.timer); this.timer = null; }
  private run(): void {
    this.tick(this.first + this.k++);
    const now = performance.now();
    // More than two periods late (this process was starved): the missed ticks are skipped, not sent in a burst (a
    // microphone does not send the past, and the server refuses more than 100 frames a second).
    const late = now - (this.t0 + this.k * this.periodMs);
    if (late > 2 * this.periodMs) {
      const skip = Math.floor(late / this.periodMs);
      this.k += skip;
      problem(`client: ticks skipped, this process was more than ${2 * this.periodMs} ms late (ticks)`);
      recorder.skipped += skip;
    }
    this.timer = setTimeout(() => this.run(), Math.max(0, this.t0 + this.k * this.periodMs - now));
  }
}

export class CascadeWidget {
  readonly mic: { start(): void; stop(): void };
  private readonly socket: VoiceSocket;
  /** Send time of the last speech frame whose reply has not started yet (0: none), and whether it is recorded. */
  private endOfSpeech = 0;
  private recordTurn = false;
  private item: { itemId: string; bytes: number } | null = null;
  private quiet: NodeJS.Timeout | null = null;
  private live = false;
  /** The utterance is being spoken (its first to its last speech frame), and the server took the turn meanwhile. */
  private speaking = false;
  private cutOff = false;

  /** `kind`: what the visitor says ("finished", "paused": a pause mid-sentence), for the turn-taking figures. */
  private constructor(readonly ws: WebSocket, cycle: { frames: Buffer[]; lastSpeech: number }, private readonly kind: string) {
    this.socket = new VoiceSocket(ws);
    const { frames, lastSpeech } = cycle;
    const ticker = new Ticker(FRAME_MS, (k) => {
      const i = k % frames.length;
      ws.send(frames[i]);
      if (i === 0) {
        this.speaking = true;
        this.cutOff = false;
        if (recorder.on) turnFigures(this.kind).cycles++;
      }
      if (i !== lastSpeech) return;
      this.speaking = false;
      if (this.endOfSpeech) problem('server: no reply audio before the visitor\'s next turn ended');
      this.endOfSpeech = wallNow();
      this.recordTurn = recorder.on;
    });
    // Each start begins in the cycle's silence, past the speech (a turn cut by a stop is not resumed mid-word).
    this.mic = { start: () => ticker.start(lastSpeech + 1 + Math.floor(Math.random() * (frames.length - lastSpeech - 1))), stop: () => ticker.stop() };
    ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) return this.onAudio(data);
      this.onFrame(JSON.parse(String(data)));
    });
  }

  static open(url: string, ip: string, cycle: { frames: Buffer[]; lastSpeech: number }, kind = 'finished'): Promise<CascadeWidget> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, headers: { 'x-forwarded-for': ip } });
      ws.once('message', () => resolve(new CascadeWidget(ws, cycle, kind)));
      ws.once('error', reject);
    });
  }

  private onAudio(data: Buffer): void {
    if (this.endOfSpeech) {
      if (this.recordTurn) { recorder.server.push(wallNow() - this.endOfSpeech); turnFigures(this.kind).delays.push(wallNow() - this.endOfSpeech); }
      this.endOfSpeech = 0;
    }
    if (!this.item) return;
    this.item.bytes += data.length - 1;
    if (this.quiet) clearTimeout(this.quiet);
    this.quiet = setTimeout(() => this.played(), 300);
  }

  /** The item finished playing (its audio stopped coming): reported with its length at 24 kHz. */
  private played(): void {
    this.quiet = null;
    const item = this.item;
    this.item = null;
    if (item && this.live && this.ws.readyState === 1) this.ws.send(JSON.stringify({ t: 'voice_played', itemId: item.itemId, ms: item.bytes / 48 }));
  }

  private onFrame(f: any): void {
    // The server ended the visitor's turn (speech_stopped) while the utterance was still being said: a cut-off.
    if (f.t === 'voice' && f.state === 'thinking' && this.speaking && !this.cutOff) {
      this.cutOff = true;
      if (recorder.on) turnFigures(this.kind).cutoffs++;
    }
    if (f.t === 'voice_item') {
      if (this.quiet) { clearTimeout(this.quiet); this.played(); }
      this.item = { itemId: f.itemId, bytes: 0 };
    } else if (f.t === 'voice_interrupt' && this.live) {
      problem('server: barge-in (the visitor spoke over the agent)');
      if (this.item?.itemId === f.itemId) { if (this.quiet) clearTimeout(this.quiet); this.played(); }
    } else if (f.t === 'error') problem(`widget: ${f.code} ${f.message}`);
    else if (f.t === 'voice' && f.state === 'ended' && f.reason !== 'visitor') problem(`widget: voice ended (${f.reason}) ${f.message}`);
    this.socket.dispatch(f);
  }

  /** A typed message; resolves once the agent's reply is stored (the conversation exists then). */
  say(text: string): Promise<void> { return this.socket.say(text); }

  async startVoice(): Promise<void> {
    const f = await this.socket.startVoice();
    if (f?.t !== 'voice' || f.state !== 'listening' || f.inputRate !== IN_RATE) throw new Error(`cascade voice did not start at 16 kHz: ${f ? JSON.stringify(f) : 'no answer within 30 s'}`);
    this.live = true;
  }

  async stopVoice(): Promise<void> {
    this.mic.stop();
    this.live = false;
    if (!(await this.socket.stopVoice())) throw new Error('widget: no ended voice frame within 30 s');
  }
}

/** The direct path: one client's turns, each the three provider calls the server makes, on the widget's cycle. */
export class CascadeDirect {
  private readonly ticker: Ticker;
  private readonly wav: Blob;
  constructor(private readonly baseUrl: string, turnPcm: Buffer, cycleMs: number, private readonly prompt: string) {
    this.wav = new Blob([new Uint8Array(pcmToWav(turnPcm, IN_RATE))], { type: 'audio/wav' });
    this.ticker = new Ticker(cycleMs, () => { const on = recorder.on; this.turn().then((t) => { if (on) record(t); }, (err) => problem(`direct: ${err.message}`)); });
  }
  start(): void { this.ticker.start(); }
  stop(): void { this.ticker.stop(); }

  private post(path: string, body: BodyInit, json = true): Promise<Response> {
    return fetch(`${this.baseUrl}${path}`, { method: 'POST', body, headers: { authorization: 'Bearer sk-bench', ...(json ? { 'content-type': 'application/json' } : {}) } });
  }

  async turn(): Promise<{ stt: number; brain: number; tts: number }> {
    const t0 = performance.now();
    const form = new FormData();
    form.append('file', this.wav, 'audio.wav');
    form.append('model', 'gpt-4o-mini-transcribe');
    form.append('language', 'en');
    const heard = ((await (await this.post('/audio/transcriptions', form, false)).json()) as { text: string }).text;
    const t1 = performance.now();
    const chat = await this.post('/chat/completions', JSON.stringify({
      model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, max_completion_tokens: 2048,
      messages: [{ role: 'system', content: this.prompt }, { role: 'user', content: 'hello' }, { role: 'assistant', content: 'Hello, how can I help?' }, { role: 'user', content: heard }],
    }));
    // Read until the first sentence is complete (a full stop followed by more text), as the server's splitter does.
    const reader = chat.body!.getReader();
    const dec = new TextDecoder();
    let text = '';
    let sentence = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the brain ended before a sentence');
      for (const line of dec.decode(value, { stream: true }).split('\n')) {
        const m = /"content":("(?:[^"\\]|\\.)*")/.exec(line);
        if (m) text += JSON.parse(m[1]) as string;
      }
      const end = /[.!?]\s+\S/.exec(text);
      if (end) { sentence = text.slice(0, end.index + 1); break; }
    }
    void drain(reader);
    const t2 = performance.now();
    const speech = await this.post('/audio/speech', JSON.stringify({ model: 'gpt-4o-mini-tts', voice: 'coral', input: sentence, response_format: 'pcm' }));
    const audio = speech.body!.getReader();
    const first = await audio.read();
    if (first.done || !first.value.length) throw new Error('speech ended without audio');
    const t3 = performance.now();
    void drain(audio);
    return { stt: t1 - t0, brain: t2 - t1, tts: t3 - t2 };
  }
}

function record(t: { stt: number; brain: number; tts: number }): void {
  recorder.direct.push(t.stt + t.brain + t.tts);
  recorder.stages.stt.push(t.stt);
  recorder.stages.brain.push(t.brain);
  recorder.stages.tts.push(t.tts);
}

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try { for (;;) if ((await reader.read()).done) return; } catch { /* the fake closed it */ }
}
