/**
 * A simulated OpenAI Realtime engine (GA protocol) for the capacity test, on the simulated provider's HTTP server:
 * WebSocket upgrades on /v1/realtime with the bearer key. It does what a voice session needs and pays nothing:
 * session.update, turn detection by the audio's energy (speech, then `silenceMs` of quiet ends the turn, as
 * server_vad does), the visitor's transcription, and spoken replies of `replyMs` in real time (one 20 ms audio
 * delta every 20 ms, a transcript word every 200 ms), response.create / cancel, truncation. Barge-in works as the
 * API's: speech while the agent speaks is announced and the server cancels. Only the first bytes of each append are
 * decoded (the energy of ~150 samples), so the tool's own CPU stays small next to the server's.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { appendHead, FRAME_MS, meanLevel, toneFrame } from './voice-wire.js';

export const SIMULATED_REALTIME_MODEL = 'loadtest-realtime';
/** Mean sample level above which a frame is speech (the visitors' tone is 800; silence is 0). */
const SPEECH_LEVEL = 200;
const TRANSCRIPT = 'What are your opening hours?';

export interface VoiceEngineOptions { apiKey: string; silenceMs: number; replyMs: number }

export interface VoiceEngine {
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  sessions(): number;
  close(): void;
}

// One reply chunk: 20 ms of tone, encoded once.
const CHUNK_B64 = toneFrame(0, 2000).toString('base64');

export function startVoiceEngine(o: VoiceEngineOptions): VoiceEngine {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 1 << 20 });
  const live = new Set<Session>();
  const refuse = (socket: Duplex, status: string, message: string) => {
    const body = JSON.stringify({ error: { message, type: 'invalid_request_error' } });
    socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  };
  return {
    upgrade(req, socket, head) {
      const url = new URL(req.url ?? '/', 'http://engine');
      const model = url.searchParams.get('model');
      if (!url.pathname.endsWith('/realtime')) return refuse(socket, '404 Not Found', `no route ${url.pathname}`);
      if (req.headers.authorization !== `Bearer ${o.apiKey}`) return refuse(socket, '401 Unauthorized', 'wrong API key for the load-test engine');
      if (!model) return refuse(socket, '400 Bad Request', "Missing required parameter: 'model'.");
      wss.handleUpgrade(req, socket, head, (ws) => {
        const s = new Session(ws, model, o);
        live.add(s);
        ws.on('close', () => { s.stop(); live.delete(s); });
      });
    },
    sessions: () => live.size,
    close() { for (const s of live) s.stop(); for (const ws of wss.clients) ws.terminate(); wss.close(); },
  };
}

class Session {
  private seq = 0;
  private readonly openedAt = Date.now();
  private speaking = false;
  private quietSince = 0;
  private userItem = '';
  private reply: { id: string; item: string; chunk: number; at: number; transcript: string; timer: NodeJS.Timeout | null } | null = null;
  private readonly chunks: number;

  constructor(private readonly ws: WebSocket, private readonly model: string, private readonly o: VoiceEngineOptions) {
    this.chunks = Math.max(1, Math.round(o.replyMs / FRAME_MS));
    this.send({ type: 'session.created', session: { type: 'realtime', object: 'realtime.session', id: this.id('sess'), model } });
    ws.on('message', (data: Buffer, isBinary) => { if (!isBinary) this.onMessage(data); });
  }

  stop(): void { if (this.reply?.timer) clearTimeout(this.reply.timer); this.reply = null; }

  private id(prefix: string): string { return `${prefix}_lt${(++this.seq).toString(36)}`; }
  private audioMs(): number { return Date.now() - this.openedAt; }

  private send(e: Record<string, unknown>): void {
    if (this.ws.readyState === 1) this.ws.send(JSON.stringify({ event_id: this.id('event'), ...e }));
  }

  private error(code: string, message: string): void {
    this.send({ type: 'error', error: { type: 'invalid_request_error', code, message, param: null, event_id: null } });
  }

  private onMessage(data: Buffer): void {
    const head = appendHead(data, 300);
    if (head) return this.hear(meanLevel(head) >= SPEECH_LEVEL);
    let e: { type?: string; session?: Record<string, unknown>; item?: Record<string, unknown>; item_id?: string; audio_end_ms?: number };
    try { e = JSON.parse(data.toString()); } catch { return this.error('invalid_json', 'The event could not be parsed as JSON.'); }
    switch (e.type) {
      case 'session.update': return this.send({ type: 'session.updated', session: { ...e.session, object: 'realtime.session', model: this.model } });
      case 'conversation.item.create': return this.send({ type: 'conversation.item.added', previous_item_id: null, item: { id: this.id('item'), ...e.item } });
      case 'conversation.item.truncate': return this.send({ type: 'conversation.item.truncated', item_id: e.item_id, content_index: 0, audio_end_ms: e.audio_end_ms });
      case 'input_audio_buffer.clear': this.speaking = false; return this.send({ type: 'input_audio_buffer.cleared' });
      case 'input_audio_buffer.commit': return this.commit();
      case 'response.create':
        if (this.reply) return this.error('conversation_already_has_active_response', 'Conversation already has an active response in progress.');
        return this.respond();
      case 'response.cancel':
        if (!this.reply) return this.error('response_cancel_not_active', 'Cancellation failed: no active response found');
        return this.finish('cancelled');
      default: return this.error('unknown_event', `the load-test engine does not handle '${e.type}'`);
    }
  }

  /** One appended frame: speech starts a turn; `silenceMs` of quiet after speech ends it, and the agent answers. */
  private hear(speech: boolean): void {
    const now = Date.now();
    if (speech) {
      this.quietSince = 0;
      if (this.speaking) return;
      this.speaking = true;
      this.userItem = this.id('item');
      this.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: this.audioMs(), item_id: this.userItem });
      return;
    }
    if (!this.speaking) return;
    if (!this.quietSince) this.quietSince = now;
    if (now - this.quietSince + FRAME_MS < this.o.silenceMs) return;
    this.speaking = false;
    this.quietSince = 0;
    this.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: this.audioMs(), item_id: this.userItem });
    this.commit();
    if (!this.reply) this.respond();
  }

  private commit(): void {
    const item_id = this.userItem || this.id('item');
    this.userItem = '';
    this.send({ type: 'input_audio_buffer.committed', previous_item_id: null, item_id });
    this.send({ type: 'conversation.item.input_audio_transcription.completed', item_id, content_index: 0, transcript: TRANSCRIPT });
  }

  private respond(): void {
    const r = { id: this.id('resp'), item: this.id('item'), chunk: 0, at: Date.now(), transcript: '', timer: null as NodeJS.Timeout | null };
    this.reply = r;
    this.send({ type: 'response.created', response: { id: r.id, object: 'realtime.response', status: 'in_progress', output: [], usage: null } });
    this.send({ type: 'response.output_item.added', response_id: r.id, output_index: 0, item: this.wireItem('in_progress') });
    this.send({ type: 'response.content_part.added', response_id: r.id, item_id: r.item, output_index: 0, content_index: 0, part: { type: 'audio', transcript: '' } });
    this.speak();
  }

  private wireItem(status: string) {
    const r = this.reply!;
    return { id: r.item, object: 'realtime.item', type: 'message', role: 'assistant', status, content: status === 'completed' ? [{ type: 'output_audio', transcript: r.transcript }] : [] };
  }

  /** One 20 ms chunk of the reply, on a schedule that does not drift. */
  private speak(): void {
    const r = this.reply;
    if (!r || this.ws.readyState !== 1) return;
    const base = `"response_id":"${r.id}","item_id":"${r.item}","output_index":0,"content_index":0`;
    if (r.chunk % 10 === 0) {
      const word = `${r.chunk ? ' ' : ''}word${r.chunk / 10 + 1}`;
      r.transcript += word;
      this.ws.send(`{"type":"response.output_audio_transcript.delta","event_id":"${this.id('event')}",${base},"delta":"${word}"}`);
    }
    this.ws.send(`{"type":"response.output_audio.delta","event_id":"${this.id('event')}",${base},"delta":"${CHUNK_B64}"}`);
    if (++r.chunk < this.chunks) {
      r.timer = setTimeout(() => this.speak(), Math.max(0, r.at + r.chunk * FRAME_MS - Date.now()));
      return;
    }
    this.finish('completed');
  }

  private finish(status: 'completed' | 'cancelled'): void {
    const r = this.reply!;
    if (r.timer) clearTimeout(r.timer);
    const ids = { response_id: r.id, item_id: r.item, output_index: 0, content_index: 0 };
    this.send({ type: 'response.output_audio.done', ...ids });
    this.send({ type: 'response.output_audio_transcript.done', ...ids, transcript: r.transcript });
    this.send({ type: 'response.content_part.done', ...ids, part: { type: 'audio', transcript: r.transcript } });
    this.send({ type: 'response.output_item.done', response_id: r.id, output_index: 0, item: this.wireItem('completed') });
    // About ten audio tokens a second, as OpenAI counts them.
    const outAudio = Math.ceil((r.chunk * FRAME_MS) / 100), outText = Math.ceil(r.transcript.length / 4);
    this.send({
      type: 'response.done',
      response: {
        id: r.id, object: 'realtime.response', status, status_details: null, output: [this.wireItem('completed')],
        usage: {
          total_tokens: 200 + outAudio + outText, input_tokens: 200, output_tokens: outAudio + outText,
          input_token_details: { text_tokens: 200, audio_tokens: 0, cached_tokens: 0 },
          output_token_details: { text_tokens: outText, audio_tokens: outAudio },
        },
      },
    });
    this.reply = null;
  }
}
