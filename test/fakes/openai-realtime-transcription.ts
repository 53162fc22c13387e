/**
 * A transcription session of the fake OpenAI Realtime endpoint (GA protocol, /v1/realtime?intent=transcription with
 * no model in the URL): session.created, session.update with session.type 'transcription' (audio/pcm at 24 kHz, a
 * transcription model, turn detection), input_audio_buffer.append / commit / clear, and for each commit
 * input_audio_buffer.committed, conversation.item.input_audio_transcription.delta per word and .completed with what
 * the test said the visitor says (the fake's `speech.hear`, as for uploads), or .failed when the test asks for it.
 * Refusals are the API's error events: a realtime session.update, the beta transcription_session.update, a model
 * that does not transcribe, a wrong audio format, a commit of less than 100 ms.
 * Each session is recorded: its effective configuration, audio bytes and when each append and commit arrived.
 */
import type { WebSocket } from 'ws';
import { clientEventId, SocketSession } from './openai-realtime-session.js';
import { pcmMs } from './realtime-audio.js';

export interface TranscriptionRecord {
  /** The effective session: session.created's defaults with every session.update merged in. */
  session: Record<string, any>;
  bytes: number;
  appendTimes: number[];
  committedAt: number | null;
  open: boolean;
}

export interface TranscriptionHooks {
  /** What the visitor said in this audio (PCM16 at 24 kHz). */
  heard(audio: Buffer): string;
  /** A failure scripted for the next commit (its message), or null. */
  nextFailure(): string | null;
}

const MODELS = ['whisper-1', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe', 'gpt-4o-mini-transcribe-2025-12-15', 'gpt-4o-transcribe-diarize', 'gpt-realtime-whisper'];

export class TranscriptionSession extends SocketSession {
  readonly record: TranscriptionRecord;
  private audio: Buffer[] = [];
  private previous: string | null = null;

  constructor(ws: WebSocket, private readonly hooks: TranscriptionHooks) {
    super(ws);
    this.record = {
      session: {
        type: 'transcription', object: 'realtime.transcription_session', id: `sess_fake${Date.now()}`, include: null, expires_at: Math.floor(Date.now() / 1000) + 3600,
        audio: { input: { format: { type: 'audio/pcm', rate: 24000 }, transcription: null, noise_reduction: null, turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200 } } },
      },
      bytes: 0, appendTimes: [], committedAt: null, open: true,
    };
  }

  handle(ev: any, pcm: Buffer | null): void {
    const id = clientEventId(ev);
    switch (ev?.type) {
      case 'session.update': return this.update(ev.session, id);
      case 'transcription_session.update':
        return this.error('invalid_value', "Invalid value: 'transcription_session.update'. Use 'session.update' with session.type 'transcription' on GA sockets.", id, 'type');
      case 'input_audio_buffer.append':
        if (!pcm) return this.error('invalid_value', "Invalid 'audio'. Expected base64-encoded audio bytes.", id, 'audio');
        this.audio.push(pcm);
        this.record.bytes += pcm.length;
        this.record.appendTimes.push(Date.now());
        return;
      case 'input_audio_buffer.commit': return this.commit(id);
      case 'input_audio_buffer.clear':
        this.audio = [];
        return this.send({ type: 'input_audio_buffer.cleared' });
      default: return this.error('invalid_value', `Invalid value: '${ev?.type}'. This is not a client event type of a Realtime transcription session.`, id, 'type');
    }
  }

  closed(): void {
    this.record.open = false;
  }

  private update(s: any, id: string | null): void {
    if (s?.type === 'realtime') return this.error('invalid_request_error', 'Passing a realtime session update event to a transcription session is not allowed.', id, 'session.type');
    if (s?.type !== 'transcription') return this.error('missing_required_parameter', "Missing required parameter: 'session.type'.", id, 'session.type');
    const input = s.audio?.input ?? {};
    const f = input.format;
    if (f && (f.type !== 'audio/pcm' || f.rate !== 24000)) return this.error('invalid_value', "Invalid 'session.audio.input.format': only audio/pcm at 24000 Hz is supported here.", id, 'session.audio.input.format');
    const model = input.transcription?.model;
    if (input.transcription && !MODELS.includes(model)) {
      return this.error('invalid_value', `Invalid value: '${model}'. Supported values are: ${MODELS.map((m) => `'${m}'`).join(', ')}.`, id, 'session.audio.input.transcription.model');
    }
    const cur = this.record.session;
    this.record.session = { ...cur, ...s, audio: { input: { ...cur.audio.input, ...input } } };
    this.send({ type: 'session.updated', session: this.record.session });
  }

  private commit(id: string | null): void {
    const audio = Buffer.concat(this.audio);
    const ms = pcmMs(audio.length);
    if (ms < 100) {
      return this.error('input_audio_buffer_commit_empty', `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has ${ms.toFixed(2)}ms of audio.`, id);
    }
    this.audio = [];
    this.record.committedAt = Date.now();
    const itemId = this.newId('item');
    this.send({ type: 'input_audio_buffer.committed', previous_item_id: this.previous, item_id: itemId });
    this.previous = itemId;
    if (!this.record.session.audio.input.transcription) return;
    const failure = this.hooks.nextFailure();
    if (failure) {
      this.send({ type: 'conversation.item.input_audio_transcription.failed', item_id: itemId, content_index: 0, error: { type: 'transcription_error', code: 'audio_unintelligible', message: failure, param: null } });
      return;
    }
    const text = this.hooks.heard(audio);
    for (const word of text.match(/\S+\s*/g) ?? []) {
      this.send({ type: 'conversation.item.input_audio_transcription.delta', item_id: itemId, content_index: 0, delta: word });
    }
    this.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: itemId, content_index: 0, transcript: text, usage: { type: 'duration', seconds: Math.ceil(ms / 1000) } });
  }
}
