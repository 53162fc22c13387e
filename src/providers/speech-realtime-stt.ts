/**
 * Streaming speech to text for kind D (an ElevenLabs-style provider's realtime endpoint,
 * GET /v1/speech-to-text/realtime as a WebSocket): a cascade turn's audio is sent as it arrives, and at the end of the
 * turn (and at each pause in it) a commit asks for the words of what was sent since the last, so transcription runs
 * while the visitor speaks instead of after.
 *   client -> { message_type: 'input_audio_chunk', audio_base_64, commit, sample_rate }
 *   server -> session_started, partial_transcript { text }, committed_transcript { text }; failures as
 *             { message_type: 'error' | 'auth_error' | 'quota_exceeded' | ..., error }
 * The socket is opened under the outbound address policy (as the realtime engines' are). One socket per turn: it
 * opens when the visitor starts speaking and is closed by the engine once the turn's words are back.
 */
import WebSocket, { type ClientOptions } from 'ws';
import { checkLiteralHost, guardedLookup } from '../security/guarded-connector.js';
import { Segments, type TranscriptStream } from './stt-stream.js';

/** Models served by the realtime endpoint (the batch endpoint takes the others). */
export const isRealtimeSttModel = (model: string) => /realtime/i.test(model);

export interface RealtimeSttOptions { baseUrl: string; apiKey: string; model: string; language?: string; allowPrivateNetwork: boolean; handshakeTimeoutMs?: number }

const RATE = 16_000;

export function openRealtimeTranscription(o: RealtimeSttOptions): TranscriptStream {
  const url = new URL(`${o.baseUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}/v1/speech-to-text/realtime`);
  url.searchParams.set('model_id', o.model);
  url.searchParams.set('audio_format', 'pcm_16000');
  url.searchParams.set('commit_strategy', 'manual');
  if (o.language) url.searchParams.set('language_code', o.language.slice(0, 2).toLowerCase());
  const segments = new Segments();
  let closed = false;
  const fail = (message: string) => { segments.fail(new Error(message)); };
  let ws: WebSocket;
  try {
    // net skips the lookup hook for IP literals, so those are checked here.
    checkLiteralHost(url, o);
    const options: ClientOptions & { lookup: ReturnType<typeof guardedLookup> } = {
      headers: { 'xi-api-key': o.apiKey },
      lookup: guardedLookup({ allowPrivateNetwork: o.allowPrivateNetwork }),
      handshakeTimeout: o.handshakeTimeoutMs ?? 10_000,
      perMessageDeflate: false,
    };
    ws = new WebSocket(url, options);
  } catch (err) {
    segments.fail(err as Error);
    return { send() {}, commit: () => Promise.reject(segments.failure), close() {} };
  }
  const queue: string[] = [];
  const chunk = (pcm: Buffer, commit: boolean) => JSON.stringify({ message_type: 'input_audio_chunk', audio_base_64: pcm.toString('base64'), commit, sample_rate: RATE });
  const write = (text: string) => { if (ws.readyState === WebSocket.OPEN) ws.send(text); else if (ws.readyState === WebSocket.CONNECTING) queue.push(text); };
  ws.on('open', () => { for (const text of queue.splice(0)) ws.send(text); });
  ws.on('unexpected-response', (_req, res) => {
    let body = '';
    res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => {
      let detail = body;
      try { const j = JSON.parse(body) as { detail?: { message?: string } | string }; detail = typeof j.detail === 'string' ? j.detail : j.detail?.message ?? body; } catch { /* not JSON */ }
      fail(`the speech provider refused the realtime transcription (${res.statusCode}): ${detail || 'no reason given'}`);
    });
  });
  ws.on('message', (data: Buffer) => {
    let m: { message_type?: string; text?: string; error?: string; message?: string };
    try { m = JSON.parse(String(data)); } catch { return fail('the realtime transcription sent something that is not JSON'); }
    if (m.message_type === 'committed_transcript') segments.done(m.text ?? '');
    else if (m.message_type && /error|exceeded|limit|invalid|expired|unaccepted/.test(m.message_type)) fail(`the realtime transcription failed (${m.message_type}): ${m.error ?? m.message ?? 'no reason given'}`);
  });
  ws.on('error', (err) => fail(`the realtime transcription's connection failed: ${err.message}`));
  ws.on('close', () => { if (!closed) fail('the realtime transcription closed before the words came back'); });
  return {
    send(pcm) { if (!segments.failure) write(chunk(pcm, false)); },
    commit(signal) {
      const words = segments.add(signal, () => ws.terminate());
      // The commit rides on an empty chunk: everything sent since the last commit is one segment.
      if (!signal?.aborted && !segments.failure) write(chunk(Buffer.alloc(0), true));
      return words;
    },
    close() {
      closed = true;
      segments.fail(new Error('the turn was dropped'));
      if (ws.readyState === WebSocket.OPEN) ws.close(); else ws.terminate();
    },
  };
}
