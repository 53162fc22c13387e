/**
 * The voice bench's fake engine: the part of OpenAI's Realtime GA protocol a voice session uses, in its own process
 * so its work sits on neither the server's nor the clients' event loop. After session.update -> session.updated,
 * each connection runs a conversation in real time, started at a random point of its cycle so sessions are not in
 * step: the visitor's turn lasts LISTEN_MS (a pause, input_audio_buffer.speech_started, then speech_stopped,
 * committed and the input transcription), then the agent replies for REPLY_MS (response.created, output_item.added,
 * one response.output_audio.delta of 20 ms every 20 ms with a transcript delta every 200 ms, the .done events,
 * response.done with usage), and again. A visitor's turn starts only while audio arrives, so clients whose
 * microphones are off get no replies (the bench alternates the direct and the server path in windows).
 * test/fakes/openai-realtime.ts is the protocol-faithful fake for tests; it speaks 100 ms chunks as fast as asked
 * and decides turns from the audio's energy, which a paced load cannot use. This one also answers the bot's text
 * brain (Chat Completions, one short streamed reply), so conversations can be opened by text before voice.
 *
 * Timing: every appended frame carries its send time in its first 8 PCM bytes (bench/voice-wire.ts); the fake reads
 * it on arrival (upstream latency, by path: ?client=direct marks the direct clients' connections) and stamps each
 * audio chunk it writes (downstream, read by the clients).
 *
 *   node --import tsx bench/voice-fake.ts <listenMs> <replyMs>   -> prints {"port":N} on stdout
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { WebSocketServer, type WebSocket } from 'ws';
import { loopDelay } from './loop-delay.js';
import { API_KEY, appendStamp, FRAME_MS, spread, toneFrame, wallNow } from './voice-wire.js';

const LISTEN_MS = Math.max(FRAME_MS, Number(process.argv[2]) || 1000);
const REPLY_MS = Math.max(FRAME_MS, Number(process.argv[3]) || 2000);
const CHUNKS = Math.round(REPLY_MS / FRAME_MS);
/** Silence at the start of the visitor's turn, before speech_started (a third of it, at most 500 ms). */
const PAUSE_MS = Math.min(500, Math.round(LISTEN_MS / 3));

// An audio chunk is the tone frame with the stamp in its first 8 bytes: 9 bytes make 12 base64 characters, so
// only those are encoded per chunk and the other 951 bytes' base64 is made once.
const tone = toneFrame();
const stampBytes = Buffer.from(tone.subarray(0, 9));
const restB64 = tone.toString('base64', 9);

/** Upstream latencies by path: connections from the server's engine, or the bench's direct clients (?client=direct). */
const up = { direct: [] as number[], server: [] as number[] };
let measuring = false;
const loop = loopDelay();
let cpu = process.cpuUsage();
let t0 = performance.now();
const live = new Set<Session>();

class Session {
  private seq = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly openedAt = performance.now();
  private configured = false;
  private userItem = '';
  private response = '';
  private item = '';
  private chunk = 0;
  private replyAt = 0;
  private transcript = '';
  private lastAppendAt = -Infinity;
  /** The visitor's turn is due but no audio comes: it starts when audio does (an engine answers what it hears). */
  private waiting = false;

  constructor(private readonly ws: WebSocket, private readonly model: string, private readonly path: 'direct' | 'server') {
    this.send({ type: 'session.created', session: { type: 'realtime', object: 'realtime.session', id: this.id('sess'), model } });
    ws.on('message', (data: Buffer, isBinary) => { if (!isBinary) this.onMessage(data); });
    ws.on('close', () => this.stop());
    live.add(this);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    live.delete(this);
  }

  private id(prefix: string): string { return `${prefix}_${(++this.seq).toString(36)}`; }

  private send(e: Record<string, unknown>): void {
    if (this.ws.readyState === 1) this.ws.send(JSON.stringify({ event_id: this.id('event'), ...e }));
  }

  private onMessage(data: Buffer): void {
    const now = wallNow();
    const at = appendStamp(data);
    if (!Number.isNaN(at)) {
      if (measuring) up[this.path].push(now - at);
      this.lastAppendAt = performance.now();
      if (this.waiting) { this.waiting = false; this.listen(); }
      return;
    }
    let e: { type?: string; session?: Record<string, unknown>; item?: Record<string, unknown>; item_id?: string; audio_end_ms?: number };
    try { e = JSON.parse(data.toString()); } catch { return this.error('invalid_json', 'The event could not be parsed as JSON.'); }
    switch (e.type) {
      case 'session.update':
        this.send({ type: 'session.updated', session: { ...e.session, object: 'realtime.session', id: 'sess_bench', model: this.model } });
        if (!this.configured) { this.configured = true; this.timer = setTimeout(() => this.listen(), Math.random() * (LISTEN_MS + REPLY_MS)); }
        return;
      case 'conversation.item.create': return this.send({ type: 'conversation.item.added', previous_item_id: null, item: { id: this.id('item'), ...e.item } });
      case 'conversation.item.truncate': return this.send({ type: 'conversation.item.truncated', item_id: e.item_id, content_index: 0, audio_end_ms: e.audio_end_ms });
      case 'input_audio_buffer.clear': return this.send({ type: 'input_audio_buffer.cleared' });
      case 'response.cancel':
        // Replies are not cancelled here (the bench's conversation runs on its own clock); a cancel with none active is refused as the API does.
        return this.chunk > 0 && this.chunk < CHUNKS ? undefined : this.error('response_cancel_not_active', 'Cancellation failed: no active response found');
      case 'input_audio_buffer.append': return; // appends without a stamp (not written by the bench's clients or engine)
      default: return this.error('invalid_value', `the bench fake does not handle '${e.type}'`);
    }
  }

  private error(code: string, message: string): void {
    this.send({ type: 'error', error: { type: 'invalid_request_error', code, message, param: null, event_id: null } });
  }

  private audioMs(): number { return Math.round(performance.now() - this.openedAt); }

  /** The visitor's turn: a pause (the widget reports the reply played), then speech until LISTEN_MS. */
  private listen(): void {
    if (performance.now() - this.lastAppendAt > 200) { this.waiting = true; return; }
    this.timer = setTimeout(() => {
      this.userItem = this.id('item');
      this.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: this.audioMs(), item_id: this.userItem });
      this.timer = setTimeout(() => this.heard(), LISTEN_MS - PAUSE_MS);
    }, PAUSE_MS);
  }

  /** The visitor stopped: their turn is committed and transcribed, and the agent answers (create_response). */
  private heard(): void {
    const item_id = this.userItem;
    this.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: this.audioMs(), item_id });
    this.send({ type: 'input_audio_buffer.committed', previous_item_id: null, item_id });
    this.send({ type: 'conversation.item.input_audio_transcription.completed', item_id, content_index: 0, transcript: 'What are your opening hours?' });
    this.response = this.id('resp');
    this.item = this.id('item');
    this.transcript = '';
    this.send({ type: 'response.created', response: { id: this.response, object: 'realtime.response', status: 'in_progress', output: [], usage: null } });
    this.send({ type: 'response.output_item.added', response_id: this.response, output_index: 0, item: this.wireItem('in_progress') });
    this.send({ type: 'response.content_part.added', response_id: this.response, item_id: this.item, output_index: 0, content_index: 0, part: { type: 'audio', transcript: '' } });
    this.chunk = 0;
    this.replyAt = performance.now();
    this.speak();
  }

  private wireItem(status: string) {
    return { id: this.item, object: 'realtime.item', type: 'message', role: 'assistant', status, content: status === 'completed' ? [{ type: 'output_audio', transcript: this.transcript }] : [] };
  }

  /** One 20 ms chunk of the reply, on a schedule that does not drift. */
  private speak(): void {
    if (this.ws.readyState !== 1) return;
    const base = `"response_id":"${this.response}","item_id":"${this.item}","output_index":0,"content_index":0`;
    if (this.chunk % 10 === 0) {
      const word = `word${this.chunk / 10} `;
      this.transcript += word;
      this.ws.send(`{"type":"response.output_audio_transcript.delta","event_id":"${this.id('event')}",${base},"delta":"${word}"}`);
    }
    const event = this.id('event');
    stampBytes.writeDoubleLE(wallNow(), 0);
    this.ws.send(`{"type":"response.output_audio.delta","event_id":"${event}",${base},"delta":"${stampBytes.toString('base64')}${restB64}"}`);
    if (++this.chunk < CHUNKS) {
      this.timer = setTimeout(() => this.speak(), Math.max(0, this.replyAt + this.chunk * FRAME_MS - performance.now()));
      return;
    }
    this.replyDone();
    this.listen();
  }

  private replyDone(): void {
    const ids = { response_id: this.response, item_id: this.item, output_index: 0, content_index: 0 };
    this.send({ type: 'response.output_audio.done', ...ids });
    this.send({ type: 'response.output_audio_transcript.done', ...ids, transcript: this.transcript });
    this.send({ type: 'response.content_part.done', ...ids, part: { type: 'audio', transcript: this.transcript } });
    this.send({ type: 'response.output_item.done', response_id: this.response, output_index: 0, item: this.wireItem('completed') });
    // About ten audio tokens a second each way, as OpenAI counts them.
    const inAudio = Math.ceil(LISTEN_MS / 100), outAudio = Math.ceil(REPLY_MS / 100), outText = Math.ceil(this.transcript.length / 4);
    this.send({
      type: 'response.done',
      response: {
        id: this.response, object: 'realtime.response', status: 'completed', status_details: null, output: [this.wireItem('completed')],
        usage: {
          total_tokens: 200 + inAudio + outAudio + outText, input_tokens: 200 + inAudio, output_tokens: outAudio + outText,
          input_token_details: { text_tokens: 200, audio_tokens: inAudio, cached_tokens: 0 },
          output_token_details: { text_tokens: outText, audio_tokens: outAudio },
        },
      },
    });
  }
}

// The bot's text brain (Chat Completions, streamed) on the same fake, so the bench opens conversations by text.
const http = createServer((req, res) => {
  req.resume();
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') { res.writeHead(404).end(); return; }
  req.on('end', () => {
    const head = 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[';
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`${head}{"index":0,"delta":{"content":"Hello, how can I help?"},"finish_reason":null}]}\n\n`);
    res.write(`${head}{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`);
    res.write(`${head}],"usage":{"prompt_tokens":50,"completion_tokens":6}}\n\n`);
    res.end('data: [DONE]\n\n');
  });
});
const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
http.on('upgrade', (req, socket, head) => {
  const url = new URL(req.url ?? '/', 'http://fake');
  const model = url.searchParams.get('model');
  if (url.pathname !== '/v1/realtime' || req.headers.authorization !== `Bearer ${API_KEY}` || !model) {
    socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    return;
  }
  wss.handleUpgrade(req, socket, head, (ws) => new Session(ws, model, url.searchParams.get('client') === 'direct' ? 'direct' : 'server'));
});
http.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (http.address() as AddressInfo).port })}\n`));

// Commands from the parent over IPC.
process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'measureStart') {
    up.direct.length = 0; up.server.length = 0; loop.start(); cpu = process.cpuUsage(); t0 = performance.now();
    process.send!({ ok: true });
  } else if (m.cmd === 'recordOn' || m.cmd === 'recordOff') {
    measuring = m.cmd === 'recordOn';
    process.send!({ ok: true });
  } else if (m.cmd === 'measureStop') {
    measuring = false;
    const used = process.cpuUsage(cpu);
    process.send!({ up: { direct: spread(up.direct), server: spread(up.server) }, loop: loop.stop(), cpuPct: ((used.user + used.system) / 1000 / (performance.now() - t0)) * 100, live: live.size });
  } else if (m.cmd === 'live') process.send!({ live: live.size });
  else if (m.cmd === 'quit') {
    for (const ws of wss.clients) ws.terminate();
    http.close(() => process.exit(0));
  }
});
