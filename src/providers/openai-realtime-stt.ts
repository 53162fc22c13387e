/**
 * Streaming speech to text for kind B: OpenAI's Realtime API in transcription mode, through the SDK's WebSocket
 * client opened as the realtime engine opens it (realtime-openai-socket.ts, ?intent=transcription). One session per
 * turn, opened when the visitor starts speaking, closed by the engine once the turn's words are back:
 *   client -> session.update { session: { type: 'transcription', audio: { input: { format: audio/pcm at 24 kHz,
 *               transcription: { model, language? }, turn_detection: null } } } }
 *             input_audio_buffer.append as the turn is heard (16 kHz from the VAD, resampled to the 24 kHz the API takes)
 *             input_audio_buffer.commit at each pause Silero hears and when it ends the turn (one item each)
 *   server -> session.created, session.updated, input_audio_buffer.committed,
 *             conversation.item.input_audio_transcription.delta, .completed { transcript } or .failed { error }
 * Turn detection is off at OpenAI: the VAD here decides turns. This is the GA form of the session; GA sockets refuse
 * the beta transcription_session.update.
 */
import type OpenAI from 'openai';
import type { OpenAIRealtimeError } from 'openai/realtime/internal-base';
import type { OpenAIRealtimeWS } from 'openai/realtime/ws';
import type { RealtimeClientEvent, RealtimeServerEvent } from 'openai/resources/realtime/realtime';
import { bareModelId } from './model-info.js';
import { PcmResampler } from './pcm-resample.js';
import { sendAppend } from './realtime-openai-audio.js';
import { openRealtimeSocket } from './realtime-openai-socket.js';
import { Segments, uploadInstead, type TranscriptionOptions, type TranscriptStream } from './stt-stream.js';

/**
 * The models streamed: the gpt-4o transcribe models and gpt-realtime-whisper, dated versions included. whisper-1 is
 * uploaded whole: the Realtime API takes it but only transcribes the committed whole, and it stays the way to choose
 * the upload (docs/voice.md). Other names (a gateway's own) are uploaded whole too.
 */
export function streamsOpenAiModel(model: string): boolean {
  return /^(gpt-4o(-mini)?-transcribe|gpt-realtime-whisper)(-|$)/.test(bareModelId(model));
}

export interface OpenAiTranscriptionOptions extends TranscriptionOptions {
  client: OpenAI;
  baseUrl: string;
  handshakeTimeoutMs?: number;
}

const VAD_RATE = 16_000;
/** The Realtime API hears PCM16 at 24 kHz only (realtime-openai-wire.ts imports openai.ts, which imports this file). */
const REALTIME_RATE = 24_000;
const LABEL = 'OpenAI\'s realtime transcription';

export function openOpenAiTranscription(o: OpenAiTranscriptionOptions): TranscriptStream {
  const segments = new Segments();
  let rt: OpenAIRealtimeWS | null = null;
  let closed = false;
  const fail = (err: Error) => { const first = !segments.failure; segments.fail(err); if (first) rt?.socket.terminate(); };
  try {
    rt = openRealtimeSocket(o.client, o.baseUrl, o.model, {
      allowPrivateNetwork: o.allowPrivateNetwork,
      handshakeTimeoutMs: o.handshakeTimeoutMs ?? 10_000,
      intent: 'transcription',
      onHttpError: (err) => fail(uploadInstead(`OpenAI refused ${LABEL} (${err.status}): ${(err as { error?: { message?: string } }).error?.message ?? (err.message || 'no reason given')}`)),
    });
  } catch (err) {
    segments.fail(uploadInstead(`${LABEL} could not be opened: ${(err as Error).message}`));
    return { send() {}, commit: () => Promise.reject(segments.failure), close() {} };
  }
  const socket = rt.socket;
  const resampler = new PcmResampler(VAD_RATE, REALTIME_RATE);
  /** What was written before the socket opened, in order. */
  const queue: Array<Buffer | RealtimeClientEvent> = [];
  const write = (item: Buffer | RealtimeClientEvent) => {
    if (socket.readyState === socket.OPEN) {
      if (Buffer.isBuffer(item)) sendAppend(socket, item);
      else rt!.send(item);
    } else if (socket.readyState === socket.CONNECTING) queue.push(item);
  };
  socket.on('open', () => {
    rt!.send({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: REALTIME_RATE },
            // The transcriber takes ISO-639-1 ("en"); the bot may say "en-GB".
            transcription: { model: o.model, ...(o.language ? { language: o.language.split('-')[0].toLowerCase() } : {}) },
            turn_detection: null,
          },
        },
      },
    });
    for (const item of queue.splice(0)) write(item);
  });
  rt.on('event', (e: RealtimeServerEvent) => {
    // Deltas are not read: each segment's words are taken whole.
    if (e.type === 'input_audio_buffer.committed') segments.name(e.item_id);
    else if (e.type === 'conversation.item.input_audio_transcription.completed') segments.done(e.transcript ?? '', e.item_id);
    else if (e.type === 'conversation.item.input_audio_transcription.failed') {
      // The audio arrived and could not be transcribed: an upload of the same audio would fare no better.
      segments.failOne(new Error(`${LABEL} failed: ${e.error?.message ?? 'no reason given'}${e.error?.code ? ` (${e.error.code})` : ''}`), e.item_id);
    } else if (e.type === 'error') {
      // A refused session or event (a model the API does not stream, a commit it would not take): the upload may work.
      fail(uploadInstead(`${LABEL} refused the session: ${e.error.message}${e.error.param ? ` (${e.error.param})` : ''}`));
    }
  });
  // Server `error` events are read above; this hears the socket's own failures.
  rt.on('error', (err: OpenAIRealtimeError) => { if (!err.error) fail(uploadInstead(`${LABEL}'s connection failed: ${err.message}`)); });
  socket.on('close', (code, reason) => closed || fail(uploadInstead(`${LABEL} closed before the words came back (${reason.length ? `${code}: ${reason}` : code})`)));
  return {
    send(pcm) {
      if (segments.failure) return;
      const out = resampler.push(pcm);
      if (out.length) write(out);
    },
    commit(signal) {
      // A socket still opening when the words are wanted would keep the visitor waiting on a slow handshake: the
      // audio is uploaded instead.
      if (socket.readyState === socket.CONNECTING) fail(uploadInstead(`${LABEL} was still connecting when its words were wanted`));
      const words = segments.add(signal, () => socket.terminate());
      if (!signal?.aborted && !segments.failure) {
        const last = resampler.flush();
        if (last.length) write(last);
        write({ type: 'input_audio_buffer.commit' });
      }
      return words;
    },
    close() {
      closed = true;
      segments.fail(new Error('the turn was dropped'));
      if (socket.readyState === socket.OPEN) rt!.close({ code: 1000, reason: 'turn transcribed' }); else socket.terminate();
    },
  };
}
