import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { geminiWords, LIVE_MESSAGE } from './gemini-schemas.js';
import { chunkText, countTokens, type HandlerContext, type LastMessage, type ScriptedTurn } from './script.js';
import { checkMessage } from './strict.js';

/**
 * A fake Gemini Live endpoint (BidiGenerateContent JSON messages over WebSocket), mounted on the fake Gemini
 * server. It detects speech by energy in the visitor's PCM16 (or by activityStart/activityEnd when automatic
 * detection is off), "hears" the texts a test queues with hear(), and speaks the shared script's turns as a quiet
 * 24 kHz tone (60 ms a character) with word-by-word output transcription. Speech over a reply interrupts it.
 */
export const LIVE_PATH = '/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent';

/** What a client sent, in arrival order; consecutive audio chunks are merged into running totals. */
export type LiveClientEvent = { session: number } & (
  | { kind: 'setup'; setup: any }
  | { kind: 'audio'; chunks: number; bytes: number }
  | { kind: 'activityStart' } | { kind: 'activityEnd' } | { kind: 'audioStreamEnd' }
  | { kind: 'text'; text: string }
  | { kind: 'clientContent'; turns: Array<{ role?: string; parts?: Array<{ text?: string }> }>; turnComplete: boolean }
  | { kind: 'toolResponse'; functionResponses: Array<{ id: string; name: string; response: any }> }
  | { kind: 'other'; keys: string[] }
);

export interface FakeLive {
  /** Every client message of every session (see LiveClientEvent). */
  events: LiveClientEvent[];
  /** The setup message of each session, in connection order (session n is setups[n - 1]). */
  setups: any[];
  /** WebSocket upgrades accepted on the Live path, including refused keys. */
  connections: number;
  /** Texts the fake hears for the next spoken turns, in order; with none queued it hears "(speech, N ms)". */
  hear(...texts: string[]): void;
  /** Wall-clock pause between 100 ms output chunks (default 5), so a barge-in can land mid-reply. */
  chunkIntervalMs: number;
  /** Sends goAway to every open session. */
  goAway(timeLeft?: string): void;
  readonly openSessions: number;
  /** Closes every open session (1001); the fake server's close() calls it. */
  closeAll(): void;
}

const RMS_SPEECH = 500;
const END_SILENCE_MS = 400;
const OUT_RATE = 24_000;
const CHUNK_MS = 100;
const MS_PER_CHAR = 60;
const MAX_REPLY_MS = 20_000;
const AUDIO_TOKENS_PER_S = 25;

// One 100 ms chunk of a quiet 300 Hz tone (30 whole cycles, so chunks join without clicks), encoded once.
const TONE = (() => {
  const n = (OUT_RATE * CHUNK_MS) / 1000;
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(1200 * Math.sin((2 * Math.PI * 300 * i) / OUT_RATE)), i * 2);
  return b;
})();
const TONE_B64 = TONE.toString('base64');

/** Speech-like PCM16 (a loud tone, RMS well above the fake's threshold) of `ms` at `rate`. */
export function speechPcm(ms: number, rate = 16_000): Buffer {
  const n = Math.round((rate * ms) / 1000);
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(6000 * Math.sin((2 * Math.PI * 180 * i) / rate)), i * 2);
  return b;
}

export function silencePcm(ms: number, rate = 16_000): Buffer {
  return Buffer.alloc(Math.round((rate * ms) / 1000) * 2);
}

/** Splits PCM16 into frames of `frameMs` (20 ms by default), as the widget sends them. */
export function frames(pcm: Buffer, frameMs = 20, rate = 16_000): Buffer[] {
  const size = Math.round((rate * frameMs) / 1000) * 2;
  const out: Buffer[] = [];
  for (let i = 0; i < pcm.length; i += size) out.push(pcm.subarray(i, i + size));
  return out;
}

const CLOSE_FOR_STATUS: Record<number, number> = { 400: 1007, 401: 1008, 403: 1008, 404: 1008 };

export function createFakeLive(opts: { apiKey: string; models: string[] }) {
  const wss = new WebSocketServer({ noServer: true });
  const heard: string[] = [];
  const sessions = new Set<LiveSession>();
  const live: FakeLive = {
    events: [], setups: [], connections: 0, chunkIntervalMs: 5,
    hear: (...texts) => { heard.push(...texts); },
    goAway: (timeLeft = '10s') => { for (const s of sessions) s.send({ goAway: { timeLeft } }); },
    get openSessions() { return sessions.size; },
    closeAll: () => {
      for (const s of sessions) {
        s.ws.close(1001, 'server shutting down');
        // A client that never answers the close frame must not hold the test process open.
        setTimeout(() => s.ws.terminate(), 200).unref();
      }
    },
  };

  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer, ctx: HandlerContext): void => {
    // The SDK joins its base URL (which ends in '/') and the path, so the path starts with '//' (which
    // new URL(path, base) would read as a host).
    const url = new URL(`http://fake${req.url ?? '/'}`);
    if (url.pathname.replace(/\/{2,}/g, '/') !== LIVE_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      live.connections++;
      const key = url.searchParams.get('key') ?? req.headers['x-goog-api-key'];
      // Like the real service: the socket opens, then closes with the reason.
      if (key !== opts.apiKey) { ws.close(1007, 'API key not valid. Please pass a valid API key.'); return; }
      const s = new LiveSession(ws, live, heard, ctx, opts.models);
      sessions.add(s);
      ws.on('close', () => { sessions.delete(s); s.stop(); });
    });
  };
  return { live, upgrade };
}

type Reply = { cancelled: boolean; outMs: number; inMs: number; inText: number; waiting: Set<string> | null; resume: ((r: string) => void) | null };

class LiveSession {
  private readonly id: number;
  private setup: any = null;
  private manual = false;
  private bargeIn = true;
  private rate = 16_000;
  private rest = Buffer.alloc(0);
  private inTurn = false;
  private turnMs = 0;
  private silenceMs = 0;
  private reply: Reply | null = null;
  /** Replies run one after another (a turn that ends while the agent speaks, with barge-in off, waits). */
  private replies: Promise<void> = Promise.resolve();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(readonly ws: WebSocket, private readonly live: FakeLive, private readonly heard: string[], private readonly ctx: HandlerContext, private readonly models: string[]) {
    this.id = live.setups.length + 1;
    live.setups.push(null);
    ws.on('message', (data) => this.onMessage(String(data)));
  }

  send(msg: unknown): void {
    // The real service sends JSON in binary frames.
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(Buffer.from(JSON.stringify(msg)));
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    if (this.reply) this.reply.cancelled = true;
  }

  private record(e: Record<string, unknown> & { kind: string }): void {
    this.live.events.push({ session: this.id, ...e } as LiveClientEvent);
  }

  private onMessage(raw: string): void {
    let m: any;
    try { m = JSON.parse(raw); } catch { this.ws.close(1007, 'Invalid JSON payload received.'); return; }
    // As the service: a message it cannot read closes the session (1007) with the reason (at most 123 bytes).
    const problem = checkMessage(LIVE_MESSAGE, m);
    if (problem) { this.record({ kind: 'other', keys: Object.keys(m ?? {}) }); this.ws.close(1007, clip(geminiWords(problem, 'BidiGenerateContentClientMessage'))); return; }
    if (!this.setup) {
      if (!m.setup) { this.ws.close(1007, 'The first message must be setup.'); return; }
      return this.onSetup(m.setup);
    }
    if (m.realtimeInput) return this.onRealtime(m.realtimeInput);
    if (m.clientContent) {
      const turns = m.clientContent.turns ?? [];
      this.record({ kind: 'clientContent', turns, turnComplete: !!m.clientContent.turnComplete });
      if (!m.clientContent.turnComplete) return;
      // A completed client turn interrupts the reply under way, then gets its own answer.
      this.interrupt();
      const text = [...turns].reverse().find((t: any) => t.role !== 'model')?.parts?.map((p: any) => p.text ?? '').join('') ?? '';
      return this.queueAnswer({ role: 'user', text }, 0, countTokens(text));
    }
    if (m.toolResponse) {
      const responses = m.toolResponse.functionResponses ?? [];
      this.record({ kind: 'toolResponse', functionResponses: responses });
      const r = this.reply;
      if (!r?.waiting) return;
      for (const f of responses) r.waiting.delete(f.id);
      if (r.waiting.size === 0) { r.waiting = null; r.resume?.(JSON.stringify(responses[0]?.response ?? {})); }
      return;
    }
    this.record({ kind: 'other', keys: Object.keys(m) });
  }

  private onSetup(setup: any): void {
    this.setup = setup;
    this.live.setups[this.id - 1] = setup;
    this.record({ kind: 'setup', setup });
    const model = String(setup.model ?? '').replace(/^models\//, '');
    if (!this.models.includes(model)) {
      this.ws.close(1008, `models/${model} is not found for API version v1beta, or is not supported for bidiGenerateContent.`);
      return;
    }
    this.manual = !!setup.realtimeInputConfig?.automaticActivityDetection?.disabled;
    this.bargeIn = setup.realtimeInputConfig?.activityHandling !== 'NO_INTERRUPTION';
    this.send({ setupComplete: {} });
  }

  private onRealtime(r: any): void {
    if (r.audio) return this.onAudio(Buffer.from(r.audio.data ?? '', 'base64'), String(r.audio.mimeType ?? ''));
    if (r.activityStart || r.activityEnd) {
      const kind = r.activityStart ? 'activityStart' : 'activityEnd';
      this.record({ kind });
      if (!this.manual) { this.ws.close(1007, 'Explicit activity control is not enabled: automatic activity detection is on.'); return; }
      if (kind === 'activityStart') return this.speechStarts();
      if (this.inTurn) this.endTurn(this.turnMs);
      return;
    }
    if (r.audioStreamEnd) {
      this.record({ kind: 'audioStreamEnd' });
      if (this.inTurn && !this.manual) this.endTurn(this.turnMs - this.silenceMs);
      return;
    }
    if (typeof r.text === 'string') {
      this.record({ kind: 'text', text: r.text });
      this.interrupt();
      return this.queueAnswer({ role: 'user', text: r.text }, 0, countTokens(r.text));
    }
    this.record({ kind: 'other', keys: Object.keys(r) });
  }

  private onAudio(pcm: Buffer, mime: string): void {
    const last = this.live.events.at(-1);
    if (last?.kind === 'audio' && last.session === this.id) { last.chunks++; last.bytes += pcm.length; }
    else this.record({ kind: 'audio', chunks: 1, bytes: pcm.length });
    this.rate = Number(/rate=(\d+)/.exec(mime)?.[1]) || 16_000;
    if (this.manual) {
      if (this.inTurn) this.turnMs += (pcm.length / 2 / this.rate) * 1000;
      return;
    }
    // Energy detection in 20 ms windows of audio time; a partial window waits for the next chunk.
    const window = (this.rate / 50) * 2;
    let buf = this.rest.length ? Buffer.concat([this.rest, pcm]) : pcm;
    while (buf.length >= window) {
      this.onWindow(rms(buf.subarray(0, window)) > RMS_SPEECH);
      buf = buf.subarray(window);
    }
    this.rest = Buffer.from(buf);
  }

  private onWindow(voiced: boolean): void {
    if (!this.inTurn) {
      if (voiced) this.speechStarts();
      else return;
    }
    this.turnMs += 20;
    this.silenceMs = voiced ? 0 : this.silenceMs + 20;
    if (this.silenceMs >= END_SILENCE_MS) this.endTurn(this.turnMs - this.silenceMs);
  }

  private speechStarts(): void {
    if (this.bargeIn || this.manual) this.interrupt();
    this.inTurn = true;
    this.turnMs = 0;
    this.silenceMs = 0;
  }

  private endTurn(ms: number): void {
    this.inTurn = false;
    this.silenceMs = 0;
    const text = this.heard.shift() ?? `(speech, ${Math.round(ms)} ms)`;
    this.queueAnswer({ role: 'user', text }, ms, 0, true);
  }

  /** A spoken turn's transcription is sent when its reply starts, so a turn that waited keeps its own words. */
  private queueAnswer(last: LastMessage, inMs: number, inText: number, spoken = false): void {
    this.replies = this.replies.then(() => {
      if (this.ws.readyState !== this.ws.OPEN) return;
      if (spoken) for (const piece of chunkText(last.text)) this.send({ serverContent: { inputTranscription: { text: piece } } });
      return this.answer(last, inMs, inText);
    });
  }

  /** Speech (or a client turn) over a reply: the reply stops, then interrupted and its turnComplete. */
  private interrupt(): void {
    const r = this.reply;
    if (!r) return;
    r.cancelled = true;
    this.reply = null;
    if (r.waiting) {
      this.send({ toolCallCancellation: { ids: [...r.waiting] } });
      r.resume?.('');
    }
    this.send({ serverContent: { interrupted: true } });
    this.send({ serverContent: { turnComplete: true }, usageMetadata: this.usageOf(r, null) });
  }

  private async answer(last: LastMessage, inMs: number, inText: number): Promise<void> {
    const r: Reply = { cancelled: false, outMs: 0, inMs, inText, waiting: null, resume: null };
    this.reply = r;
    let turn = this.ctx.nextTurn(last);
    for (;;) {
      if (turn.delayMs) await this.sleep(turn.delayMs);
      if (r.cancelled) return;
      if (turn.error) {
        // Fails mid-turn: half of the text is spoken, then the socket closes with the error, as Gemini does.
        const text = typeof turn.text === 'string' ? turn.text : (turn.text ?? []).join('');
        if (text) await this.speak(r, text.slice(0, Math.ceil(text.length / 2)));
        const code = CLOSE_FOR_STATUS[turn.error.status] ?? 1011;
        if (!r.cancelled) this.ws.close(code, (turn.error.message ?? `scripted error ${turn.error.status}`).slice(0, 120));
        return;
      }
      const text = typeof turn.text === 'string' ? turn.text : (turn.text ?? []).join('');
      if (text) await this.speak(r, text);
      if (r.cancelled || !turn.toolCalls?.length) break;
      const calls = turn.toolCalls.map((c, i) => ({
        id: c.id ?? `function-call-${this.id}-${Date.now().toString(36)}-${i}`,
        name: c.name,
        args: typeof c.arguments === 'string' ? JSON.parse(c.arguments) : c.arguments,
      }));
      const result = await new Promise<string>((resolve) => { r.waiting = new Set(calls.map((c) => c.id)); r.resume = resolve; this.send({ toolCall: { functionCalls: calls } }); });
      if (r.cancelled) return;
      r.inText += countTokens(result);
      turn = this.ctx.nextTurn({ role: 'tool', text: result });
    }
    if (r.cancelled) return;
    this.reply = null;
    this.send({ serverContent: { generationComplete: true } });
    this.send({ serverContent: { turnComplete: true }, usageMetadata: this.usageOf(r, turn) });
  }

  /** The text as 100 ms tone chunks, each carrying the words that start within it (one message, as Live 3.x does). */
  private async speak(r: Reply, text: string): Promise<void> {
    const totalMs = Math.min(MAX_REPLY_MS, Math.max(CHUNK_MS, text.length * MS_PER_CHAR));
    const words = chunkText(text);
    let offset = 0;
    const starts = words.map((w) => { const at = (offset / text.length) * totalMs; offset += w.length; return at; });
    let next = 0;
    for (let at = 0; at < totalMs; at += CHUNK_MS) {
      if (r.cancelled) return;
      const ms = Math.min(CHUNK_MS, totalMs - at);
      const data = ms === CHUNK_MS ? TONE_B64 : TONE.subarray(0, Math.round((OUT_RATE * ms) / 1000) * 2).toString('base64');
      let said = '';
      while (next < words.length && starts[next] < at + ms) said += words[next++];
      this.send({ serverContent: { modelTurn: { parts: [{ inlineData: { mimeType: `audio/pcm;rate=${OUT_RATE}`, data } }] }, ...(said ? { outputTranscription: { text: said } } : {}) } });
      r.outMs += ms;
      await this.sleep(this.live.chunkIntervalMs);
    }
  }

  private usageOf(r: Reply, turn: ScriptedTurn | null): Record<string, unknown> {
    const system = countTokens(JSON.stringify(this.setup?.systemInstruction ?? ''));
    const text = turn?.usage?.inputTokens ?? system + r.inText;
    const audioIn = turn?.usage ? 0 : Math.ceil((r.inMs / 1000) * AUDIO_TOKENS_PER_S);
    const audioOut = turn?.usage?.outputTokens ?? Math.ceil((r.outMs / 1000) * AUDIO_TOKENS_PER_S);
    this.ctx.recordUsage({ inputTokens: text + audioIn, outputTokens: audioOut });
    return {
      promptTokenCount: text + audioIn,
      responseTokenCount: audioOut,
      totalTokenCount: text + audioIn + audioOut,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: text }, ...(audioIn ? [{ modality: 'AUDIO', tokenCount: audioIn }] : [])],
      responseTokensDetails: [{ modality: 'AUDIO', tokenCount: audioOut }],
    };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => { this.timers.delete(t); resolve(); }, ms);
      this.timers.add(t);
    });
  }
}

/** A close reason fits in 123 bytes. */
function clip(reason: string): string {
  let out = reason;
  while (Buffer.byteLength(out) > 123) out = out.slice(0, -1);
  return out;
}

function rms(pcm: Buffer): number {
  let sum = 0;
  const n = pcm.length >> 1;
  for (let i = 0; i < n; i++) { const v = pcm.readInt16LE(i * 2); sum += v * v; }
  return Math.sqrt(sum / Math.max(1, n));
}
