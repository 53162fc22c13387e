/**
 * A fake OpenAI Realtime endpoint (GA protocol) on the fake OpenAI server: WebSocket upgrades on /v1/realtime
 * with the bearer key and a realtime model, session.update, turn detection by audio energy (hands-free) or
 * commits (push-to-talk), the visitor's transcription, scripted spoken replies and tool calls, cancel,
 * barge-in and truncation. Every client event is recorded (audio appends only counted) for tests to assert.
 * With ?intent=transcription (and no model) the socket is a transcription session (openai-realtime-transcription.ts),
 * recorded in `transcriptions`.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { REALTIME_CLIENT_EVENT, realtimeWords } from './openai-realtime-schemas.js';
import { checkMessage } from './strict.js';
import { clientEventId, RealtimeSession } from './openai-realtime-session.js';
import { TranscriptionSession, type TranscriptionRecord } from './openai-realtime-transcription.js';
import type { HandlerContext } from './script.js';

export interface RealtimeClientRecord {
  /** Index of the connection in `connections`. */
  connection: number;
  type: string;
  /** The event as received; consecutive audio appends are merged into one record with `appends` and `bytes`. */
  event?: any;
  appends?: number;
  bytes?: number;
}

export interface RealtimeConnectionRecord {
  model: string;
  /** The effective session: session.created's defaults with every session.update merged in. */
  session: Record<string, any>;
  /** Conversation items in order: text or transcript, audio length; never audio. */
  items: Array<{ id: string; type: string; role?: string; text: string; audioMs: number; callId?: string }>;
  truncations: Array<{ itemId: string; audioEndMs: number }>;
  open: boolean;
  closeCode: number | null;
}

export interface FakeRealtime {
  events: RealtimeClientRecord[];
  connections: RealtimeConnectionRecord[];
  /** What the fake's transcriber hears for the next spoken turns, in order; null makes that transcription fail. */
  hear(...texts: Array<string | null>): void;
  /** Types of the client events received (on one connection, or on all), in order. */
  types(connection?: number): string[];
  /** Records of one client event type (on all connections), in order. */
  sent(type: string): RealtimeClientRecord[];
  /** Real milliseconds between a reply's ~100 ms audio chunks (default 5); raise it to speak over the agent. */
  chunkIntervalMs: number;
  /** When false the fake never answers session.update, so a client waiting for session.updated times out. */
  answerSessionUpdate: boolean;
  /** Closes every open realtime socket with this code (default 1001, going away). */
  closeAll(code?: number): void;
  /** Transcription sessions (?intent=transcription), in the order they were opened. */
  transcriptions: TranscriptionRecord[];
  /** The next transcription commit is answered with conversation.item.input_audio_transcription.failed and this message. */
  failTranscriptionNext(message: string): void;
  /** Real milliseconds a transcription socket's handshake is held before it is answered (default 0): a slow network. */
  transcriptionHandshakeMs: number;
}

export interface RealtimeMount {
  realtime: FakeRealtime;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, ctx: HandlerContext): void;
  close(): void;
}

/**
 * A socket's client events as the API reads them: JSON text frames, each checked against its schema
 * (openai-realtime-schemas.ts) and refused with the API's error event, else handed on with an append's audio decoded.
 */
function readEvents(ws: WebSocket, session: { error(code: string, message: string, eventId: string | null, param?: string | null): void }, on: (event: any, pcm: Buffer | null) => void): void {
  ws.on('message', (data, isBinary) => {
    if (isBinary) return session.error('invalid_event', 'binary frames are not supported; send JSON events', null);
    let event: any;
    try {
      event = JSON.parse(data.toString());
    } catch {
      return session.error('invalid_json', 'The event could not be parsed as JSON.', null);
    }
    const problem = checkMessage(REALTIME_CLIENT_EVENT, event);
    if (problem) {
      const w = realtimeWords(problem);
      return session.error(w.code, w.message, clientEventId(event), w.param);
    }
    on(event, event?.type === 'input_audio_buffer.append' && typeof event.audio === 'string' ? Buffer.from(event.audio, 'base64') : null);
  });
}

/** Answers a refused upgrade with an HTTP error in OpenAI's JSON shape. */
function refuse(socket: Duplex, status: number, message: string, code: string | null): void {
  const body = JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code } });
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** `heard`: what a transcription session hears in a committed turn (the fake's speech to text, as for uploads). */
export function mountRealtime(opts: { apiKey: string; models: string[]; heard(audio: Buffer): string }): RealtimeMount {
  const wss = new WebSocketServer({ noServer: true });
  const sockets = new Set<WebSocket>();
  const heard: Array<string | null> = [];
  const sessions: RealtimeSession[] = [];
  const transcriptionFailures: string[] = [];

  const realtime: FakeRealtime = {
    events: [],
    connections: [],
    hear: (...texts) => { heard.push(...texts); },
    types: (connection) => realtime.events.filter((e) => connection === undefined || e.connection === connection).map((e) => e.type),
    sent: (type) => realtime.events.filter((e) => e.type === type),
    chunkIntervalMs: 5,
    answerSessionUpdate: true,
    closeAll: (code = 1001) => { for (const ws of sockets) ws.close(code, 'server closing'); },
    transcriptions: [],
    failTranscriptionNext: (message) => { transcriptionFailures.push(message); },
    transcriptionHandshakeMs: 0,
  };

  const transcribe = (ws: WebSocket) => {
    const session = new TranscriptionSession(ws, { heard: opts.heard, nextFailure: () => transcriptionFailures.shift() ?? null });
    realtime.transcriptions.push(session.record);
    readEvents(ws, session, (event, pcm) => session.handle(event, pcm));
    ws.on('close', () => { sockets.delete(ws); session.closed(); });
    session.created();
  };

  const record = (connection: number, event: any, bytes: number) => {
    const last = realtime.events.at(-1);
    if (event.type !== 'input_audio_buffer.append') { realtime.events.push({ connection, type: event.type, event }); return; }
    if (last && last.type === event.type && last.connection === connection) { last.appends! += 1; last.bytes! += bytes; return; }
    realtime.events.push({ connection, type: event.type, appends: 1, bytes });
  };

  return {
    realtime,
    upgrade(req, socket, head, ctx) {
      const url = new URL(req.url ?? '/', 'http://fake');
      if (url.pathname !== '/v1/realtime') return refuse(socket, 404, `Invalid URL (GET ${url.pathname})`, null);
      if (req.headers.authorization !== `Bearer ${opts.apiKey}`) {
        return refuse(socket, 401, 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.', 'invalid_api_key');
      }
      const model = url.searchParams.get('model');
      if (url.searchParams.get('intent') === 'transcription') {
        const answer = () => wss.handleUpgrade(req, socket, head, (ws) => {
          sockets.add(ws);
          if (!model) return transcribe(ws);
          // As the API does: the model of a transcription session is chosen in session.update.
          ws.send(JSON.stringify({ type: 'error', event_id: 'event_fake_model', error: { type: 'invalid_request_error', code: 'invalid_request_error', message: 'You must not provide a model parameter for transcription sessions.', param: null, event_id: null } }));
          ws.close(1008, 'invalid_request_error');
        });
        if (realtime.transcriptionHandshakeMs > 0) { setTimeout(answer, realtime.transcriptionHandshakeMs); return; }
        return answer();
      }
      if (!model) return refuse(socket, 400, "Missing required parameter: 'model'.", 'missing_required_parameter');
      wss.handleUpgrade(req, socket, head, (ws) => {
        sockets.add(ws);
        const index = realtime.connections.length;
        const known = opts.models.includes(model) && model.includes('realtime');
        const session = new RealtimeSession(ws, model, ctx, {
          chunkIntervalMs: () => realtime.chunkIntervalMs,
          answerSessionUpdate: () => realtime.answerSessionUpdate,
          nextHeard: () => (heard.length ? heard.shift()! : undefined),
        });
        sessions.push(session);
        realtime.connections.push(session.record);
        readEvents(ws, session, (event, pcm) => {
          record(index, event, pcm?.length ?? 0);
          session.handle(event, pcm);
        });
        ws.on('close', (code) => { sockets.delete(ws); session.closed(code); });
        if (!known) {
          session.error('model_not_found', `The model '${model}' does not exist or you do not have access to it.`, null);
          ws.close(1008, 'model_not_found');
          return;
        }
        session.created();
      });
    },
    close() {
      for (const ws of sockets) ws.terminate();
      for (const s of sessions) s.closed(1006);
      wss.close();
    },
  };
}
