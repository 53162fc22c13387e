/**
 * The cascade voice bench's fake providers (bench/voice-cascade.ts), in their own process: the OpenAI wire protocols
 * a cascade turn uses, each with a fixed, known processing time so the bench can take it off what it measures.
 *   POST /v1/audio/transcriptions  (multipart upload) -> after STT_MS, { text, usage }
 *   POST /v1/chat/completions      (streamed, SSE) -> after BRAIN_MS the first sentence and the start of the second in
 *                                  one delta (so a sentence splitter needs nothing more to cut it), the rest 20 ms later
 *   POST /v1/audio/speech          (response_format pcm) -> after TTS_MS, SPEECH_MS of 24 kHz PCM16 per sentence in
 *                                  100 ms chunks, one every 50 ms (twice real time, as the providers make it)
 *   GET  /v1/realtime?intent=transcription (WebSocket, the Realtime API's transcription session: the server streams a
 *                                  turn there with the gpt-4o transcribe models) -> input_audio_buffer.commit is
 *                                  answered after STT_MS with .committed and ...input_audio_transcription.completed
 *                                  (each commit is one segment: a turn may be committed at its pauses too)
 * The bench's direct clients call the same endpoints, so the fake's own time (and loopback HTTP) is measured in the run.
 * With a catalogue (a JSON file of { text, env }: the bench's espeak-ng segments and utterances, each with its
 * loudness every 20 ms), speech to text hears the entry whose speech is as long as the audio's and likest in loudness
 * (`envelope`), or nothing in silence; without one it always hears the bench's question.
 *
 *   node --import tsx bench/voice-cascade-fake.ts <sttMs> <brainMs> <ttsMs> [catalogue.json]   -> prints {"port":N} on stdout
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { WebSocketServer, type WebSocket } from 'ws';
import { loopDelay } from './loop-delay.js';
import { envelope } from './voice-cascade-hearing.js';

const [STT_MS, BRAIN_MS, TTS_MS] = process.argv.slice(2, 5).map((a, i) => Math.max(0, Number(a) || [100, 150, 100][i]));
const HEARD = 'What are your opening hours on Saturday?';
const REPLY = ['We are open until six on Saturday. Is', ' there anything else I can help you with?'];
const SPEECH_MS = 600;
const CHUNK = Buffer.alloc(24_000 * 0.1 * 2, 1);
const CATALOGUE = process.argv[5] ? JSON.parse(readFileSync(process.argv[5], 'utf8')) as Array<{ text: string; env: number[] }> : null;
/** Transcriptions that matched no catalogue entry (the bench reports them), and brain requests the server gave up. */
const counts = { unmatched: 0, chats: 0, chatsAborted: 0 };
const loop = loopDelay();

/** A segment's audio (PCM16), kept to be heard at its commit. */
class Span {
  private chunks: Buffer[] = [];
  add(pcm: Buffer): void { this.chunks.push(pcm); }
  pcm(): Buffer { return Buffer.concat(this.chunks); }
}

/** What speech to text hears in a segment's audio at `rate`: the catalogue entry as long as it, with the likest loudness. */
function heard(span: Span, rate: number): string {
  if (!CATALOGUE) return HEARD;
  const env = envelope(span.pcm(), rate);
  if (!env.length) return '';
  let best: { text: string; d: number } | null = null;
  for (const e of CATALOGUE) {
    if (Math.abs(e.env.length - env.length) > 4) continue;
    const n = Math.min(e.env.length, env.length);
    let d = 0, m = 0;
    for (let i = 0; i < n; i++) { d += Math.abs(e.env[i] - env[i]); m += e.env[i]; }
    d = d / Math.max(1, m) + Math.abs(e.env.length - env.length) * 0.05;
    if (!best || d < best.d) best = { text: e.text, d };
  }
  // Speech unlike every entry (a part of one, cut at a pause inside it) is not guessed at: nothing is heard.
  if (!best || best.d > 0.35) { counts.unmatched++; return ''; }
  return best.text;
}

let cpu = process.cpuUsage();
let t0 = performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req);
  const route = `${req.method} ${req.url}`;
  if (req.headers.authorization !== 'Bearer sk-bench') return json(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
  if (route === 'POST /v1/audio/transcriptions') {
    if (!body.includes('name="model"')) return json(res, 400, { error: { message: 'file and model are required', type: 'invalid_request_error', param: null, code: null } });
    await sleep(STT_MS);
    // The WAV's PCM follows its 44-byte header (src/providers/wav.ts), at 16 kHz.
    const at = body.indexOf('RIFF');
    const span = new Span();
    if (at >= 0) span.add(body.subarray(at + 44, at + 44 + body.readUInt32LE(at + 40)));
    return json(res, 200, { text: heard(span, 16_000), usage: { type: 'duration', seconds: 2 } });
  }
  if (route === 'POST /v1/chat/completions') {
    counts.chats++;
    res.once('close', () => { if (!res.writableEnded) counts.chatsAborted++; });
    const head = 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[';
    const delta = (text: string) => `${head}{"index":0,"delta":{"content":${JSON.stringify(text)}},"finish_reason":null}]}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    await sleep(BRAIN_MS);
    res.write(delta(REPLY[0]));
    await sleep(20);
    res.write(delta(REPLY[1]));
    res.write(`${head}{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`);
    res.write(`${head}],"usage":{"prompt_tokens":300,"completion_tokens":20}}\n\n`);
    res.end('data: [DONE]\n\n');
    return;
  }
  if (route === 'POST /v1/audio/speech') {
    const ask = JSON.parse(body.toString()) as { response_format?: string; input?: string };
    if (ask.response_format !== 'pcm' || !ask.input) return json(res, 400, { error: { message: 'the bench fake speaks pcm only', type: 'invalid_request_error', param: null, code: null } });
    let gone = false;
    res.once('close', () => { gone = true; });
    await sleep(TTS_MS);
    res.writeHead(200, { 'content-type': 'audio/pcm', 'transfer-encoding': 'chunked' });
    for (let ms = 0; ms < SPEECH_MS && !gone; ms += 100) {
      res.write(CHUNK);
      if (ms + 100 < SPEECH_MS) await sleep(50);
    }
    res.end();
    return;
  }
  json(res, 404, { error: { message: `Invalid URL (${route})`, type: 'invalid_request_error', param: null, code: null } });
}

const http = createServer((req, res) => { handle(req, res).catch((err) => { if (!res.headersSent) json(res, 500, { error: { message: String(err) } }); else res.destroy(); }); });
const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
http.on('upgrade', (req, socket, head) => {
  if (!req.url?.startsWith('/v1/realtime?intent=transcription') || req.headers.authorization !== 'Bearer sk-bench') { socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n'); return; }
  wss.handleUpgrade(req, socket, head, transcription);
});

/**
 * One turn's transcription session: appends are read for where speech starts and ends (with a catalogue; otherwise
 * only counted); each commit is answered after STT_MS with what the segment since the last commit said.
 */
function transcription(ws: WebSocket): void {
  const send = (e: Record<string, unknown>) => { if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(e)); };
  send({ type: 'session.created', event_id: 'e0', session: { type: 'transcription' } });
  let span = new Span();
  let items = 0;
  ws.on('message', async (data: Buffer) => {
    // Appends are most of the traffic: their type is read without parsing the JSON.
    if (data.includes('"input_audio_buffer.append"')) {
      if (!CATALOGUE) return;
      const m = /"audio":"([^"]*)"/.exec(data.toString('latin1'));
      if (m) span.add(Buffer.from(m[1], 'base64'));
      return;
    }
    const e = JSON.parse(String(data)) as { type: string; session?: unknown };
    if (e.type === 'session.update') send({ type: 'session.updated', event_id: 'e1', session: e.session });
    else if (e.type === 'input_audio_buffer.commit') {
      const itemId = `item_${++items}`;
      const text = heard(span, 24_000);
      span = new Span();
      send({ type: 'input_audio_buffer.committed', event_id: 'e2', item_id: itemId, previous_item_id: null });
      await sleep(STT_MS);
      send({ type: 'conversation.item.input_audio_transcription.completed', event_id: 'e3', item_id: itemId, content_index: 0, transcript: text, usage: { type: 'duration', seconds: 2 } });
    }
  });
}
http.keepAliveTimeout = 60_000;
http.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (http.address() as AddressInfo).port })}\n`));

process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'measureStart') { Object.assign(counts, { unmatched: 0, chats: 0, chatsAborted: 0 }); loop.start(); cpu = process.cpuUsage(); t0 = performance.now(); process.send!({ ok: true }); }
  else if (m.cmd === 'measureStop') {
    const used = process.cpuUsage(cpu);
    process.send!({ loop: loop.stop(), cpuPct: ((used.user + used.system) / 1000 / (performance.now() - t0)) * 100, ...counts });
  } else if (m.cmd === 'quit') { for (const ws of wss.clients) ws.terminate(); http.closeAllConnections(); http.close(() => process.exit(0)); }
});
