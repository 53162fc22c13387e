/**
 * The fake speech provider's realtime speech to text (kind D, GET /v1/speech-to-text/realtime as a WebSocket, key in
 * the xi-api-key header): session_started on connect, input_audio_chunk messages (base64 PCM16 at the sample rate of
 * audio_format), a partial_transcript every 10 chunks, and committed_transcript with what the test said the visitor
 * says (`speech.hear`) when a chunk comes with commit: true. Bad input is answered as the provider does: an error
 * message naming the field (input_error), or an HTTP 401 to the handshake without a key.
 * Each socket is recorded: its query, audio bytes and when each chunk and the commit arrived.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { SpeechMount } from './speech-stream.js';

export interface RealtimeSttRecord { query: Record<string, string>; bytes: number; chunkTimes: number[]; committedAt: number | null; closed: boolean }

export interface FakeRealtimeStt {
  /** Every realtime transcription socket opened, in order. */
  sockets: RealtimeSttRecord[];
  /** The next socket's commit is answered with this error message instead of words. */
  failNext(message: string): void;
}

export function mountRealtimeStt(o: { apiKey: string; speech: SpeechMount }) {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const api: FakeRealtimeStt = { sockets: [], failNext: (message) => { failures.push(message); } };
  const failures: string[] = [];
  return {
    api,
    /** Takes the upgrade if it is for this endpoint. */
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
      const url = new URL(req.url ?? '/', 'http://fake');
      if (url.pathname !== '/v1/speech-to-text/realtime') return false;
      if (req.headers['xi-api-key'] !== o.apiKey) { refuse(socket, 401, 'invalid_api_key', 'Invalid API key'); return true; }
      const query = Object.fromEntries(url.searchParams);
      if (!query.model_id) { refuse(socket, 422, 'invalid_request', 'model_id: field required'); return true; }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const record: RealtimeSttRecord = { query, bytes: 0, chunkTimes: [], committedAt: null, closed: false };
        api.sockets.push(record);
        const audio: Buffer[] = [];
        const send = (m: Record<string, unknown>) => { if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m)); };
        send({ message_type: 'session_started', session_id: `sess_${api.sockets.length}`, config: { sample_rate: 16_000, audio_format: query.audio_format ?? 'pcm_16000', model_id: query.model_id, commit_strategy: query.commit_strategy ?? 'manual' } });
        ws.on('message', (data: Buffer) => {
          let m: { message_type?: string; audio_base_64?: string; commit?: boolean };
          try { m = JSON.parse(String(data)); } catch { return send({ message_type: 'input_error', error: 'Invalid JSON' }); }
          if (m.message_type !== 'input_audio_chunk' || typeof m.audio_base_64 !== 'string') return send({ message_type: 'input_error', error: 'message_type: expected input_audio_chunk with audio_base_64' });
          const pcm = Buffer.from(m.audio_base_64, 'base64');
          audio.push(pcm);
          record.bytes += pcm.length;
          record.chunkTimes.push(Date.now());
          if (record.chunkTimes.length % 10 === 0) send({ message_type: 'partial_transcript', text: '…' });
          if (!m.commit) return;
          record.committedAt = Date.now();
          const failure = failures.shift();
          if (failure) return send({ message_type: 'error', error: failure });
          send({ message_type: 'committed_transcript', text: o.speech.heard(Buffer.concat(audio)) });
          audio.length = 0;
        });
        ws.on('close', () => { record.closed = true; });
      });
      return true;
    },
    close() { for (const ws of wss.clients) ws.terminate(); wss.close(); },
  };
}

function refuse(socket: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ detail: { status: code, message } });
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
