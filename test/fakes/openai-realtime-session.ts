/**
 * One connection of the fake OpenAI Realtime endpoint: the session configuration, the conversation, the input
 * audio buffer with its turn detection, and the response being generated (openai-realtime-response.ts).
 * Client events are answered with the GA API's server events and its error shapes.
 */
import type { WebSocket } from 'ws';
import { audioTokens, FakeResponse, type FakeItem, type ResponseHost } from './openai-realtime-response.js';
import type { RealtimeConnectionRecord } from './openai-realtime.js';
import { EnergyVad, pcmMs } from './realtime-audio.js';
import { countTokens, type HandlerContext, type LastMessage, type Usage } from './script.js';

export interface SessionHooks {
  chunkIntervalMs(): number;
  answerSessionUpdate(): boolean;
  /** The next scripted transcription: a string, null (the transcription fails), undefined (nothing queued). */
  nextHeard(): string | null | undefined;
}

const VOICES = new Set(['alloy', 'ash', 'ballad', 'coral', 'echo', 'sage', 'shimmer', 'verse', 'marin', 'cedar']);
const PCM = { type: 'audio/pcm', rate: 24000 };

function defaultSession(model: string): Record<string, any> {
  return {
    type: 'realtime', object: 'realtime.session', id: `sess_fake${Date.now()}`, model, output_modalities: ['audio'],
    instructions: 'You are a helpful, witty, and friendly AI.', tools: [], tool_choice: 'auto', max_output_tokens: 'inf',
    tracing: null, truncation: 'auto', prompt: null, include: null, expires_at: Math.floor(Date.now() / 1000) + 3600,
    audio: {
      input: {
        format: PCM, transcription: null, noise_reduction: null,
        turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200, idle_timeout_ms: null, create_response: true, interrupt_response: true },
      },
      output: { format: PCM, voice: 'alloy', speed: 1 },
    },
  };
}

/** The first thing wrong with a session.update, as the API words it, with the field. */
function invalidSession(s: Record<string, any>): { message: string; param: string } | null {
  const voice = s.audio?.output?.voice;
  if (voice !== undefined && !VOICES.has(voice)) return { message: `Invalid value: '${voice}'. Supported values are: ${[...VOICES].map((v) => `'${v}'`).join(', ')}.`, param: 'session.audio.output.voice' };
  for (const side of ['input', 'output'] as const) {
    const f = s.audio?.[side]?.format;
    if (f && (f.type !== 'audio/pcm' || f.rate !== 24000)) return { message: `Invalid 'session.audio.${side}.format': only audio/pcm at 24000 Hz is supported here.`, param: `session.audio.${side}.format` };
  }
  const m = s.output_modalities;
  if (m !== undefined && (!Array.isArray(m) || m.length !== 1 || !['audio', 'text'].includes(m[0]))) return { message: "Invalid 'session.output_modalities': choose ['audio'] or ['text'].", param: 'session.output_modalities' };
  const max = s.max_output_tokens;
  if (max !== undefined && max !== 'inf' && !(Number.isInteger(max) && max >= 1 && max <= 4096)) return { message: `Invalid 'session.max_output_tokens': expected an integer from 1 to 4096 or 'inf', got ${max}.`, param: 'session.max_output_tokens' };
  const td = s.audio?.input?.turn_detection;
  if (td && !['server_vad', 'semantic_vad'].includes(td.type)) return { message: `Invalid value: '${td.type}'. Supported values are: 'server_vad' and 'semantic_vad'.`, param: 'session.audio.input.turn_detection.type' };
  if (td?.eagerness !== undefined && (td.type !== 'semantic_vad' || !['low', 'medium', 'high', 'auto'].includes(td.eagerness))) return { message: `Invalid 'eagerness': ${td.eagerness}.`, param: 'session.audio.input.turn_detection.eagerness' };
  if (s.tools !== undefined && (!Array.isArray(s.tools) || s.tools.some((t: any) => t?.type !== 'function' || typeof t.name !== 'string'))) return { message: "Invalid 'session.tools': each tool needs type 'function' and a name.", param: 'session.tools' };
  return null;
}

export const clientEventId = (ev: any): string | null => (typeof ev?.event_id === 'string' ? ev.event_id : null);

/** What every fake Realtime session does on its socket (conversation and transcription): server events with ids, and the API's error event. */
export abstract class SocketSession {
  private seq = 0;

  abstract readonly record: { session: Record<string, any> };

  constructor(protected readonly ws: WebSocket) {}

  /** The first event on a new socket: the session with its defaults. */
  created(): void {
    this.send({ type: 'session.created', session: this.record.session });
  }

  send(event: Record<string, unknown>): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify({ event_id: this.newId('event'), ...event }));
  }

  newId(prefix: string): string {
    return `${prefix}_fake${String(++this.seq).padStart(6, '0')}`;
  }

  /** A refused client event: its event_id, when it had one, is given back. */
  error(code: string, message: string, clientEventId: string | null, param: string | null = null): void {
    this.send({ type: 'error', error: { type: 'invalid_request_error', code, message, param, event_id: clientEventId } });
  }
}

export class RealtimeSession extends SocketSession implements ResponseHost {
  readonly record: RealtimeConnectionRecord;
  private readonly vad = new EnergyVad();
  private bufferBytes = 0;
  private speechItem: string | null = null;
  private response: FakeResponse | null = null;
  private spoke = false;

  constructor(ws: WebSocket, model: string, private readonly ctx: HandlerContext, private readonly hooks: SessionHooks) {
    super(ws);
    this.record = { model, session: defaultSession(model), items: [], truncations: [], open: true, closeCode: null };
  }

  private get items(): FakeItem[] {
    return this.record.items as FakeItem[];
  }

  handle(ev: any, pcm: Buffer | null): void {
    const id = clientEventId(ev);
    switch (ev?.type) {
      case 'session.update': return this.update(ev.session, id);
      case 'input_audio_buffer.append': return this.append(pcm, id);
      case 'input_audio_buffer.commit': return this.commit(id);
      case 'input_audio_buffer.clear':
        this.bufferBytes = 0;
        this.vad.reset();
        this.speechItem = null;
        return this.send({ type: 'input_audio_buffer.cleared' });
      case 'conversation.item.create': return this.createItem(ev.item, id);
      case 'conversation.item.truncate': return this.truncate(ev, id);
      case 'response.create': return this.respond(ev.response ?? {}, id);
      case 'response.cancel':
        if (!this.response) return this.error('response_cancel_not_active', 'Cancellation failed: no active response found', id);
        return this.response.cancel('client_cancelled');
      default: return this.error('invalid_value', `Invalid value: '${ev?.type}'. This is not a client event type of the Realtime API.`, id, 'type');
    }
  }

  private get session(): Record<string, any> {
    return this.record.session;
  }

  private update(s: any, id: string | null): void {
    if (!s || s.type !== 'realtime') return this.error('missing_required_parameter', "Missing required parameter: 'session.type'.", id, 'session.type');
    const bad = invalidSession(s);
    if (bad) return this.error('invalid_value', bad.message, id, bad.param);
    if (this.spoke && s.audio?.output?.voice && s.audio.output.voice !== this.session.audio.output.voice) {
      return this.error('cannot_update_voice', 'Cannot update a conversation\'s voice if assistant audio is present.', id, 'session.audio.output.voice');
    }
    const cur = this.session;
    // Only the fields present are updated; turn detection, transcription and formats are replaced whole.
    this.record.session = {
      ...cur, ...s,
      audio: { input: { ...cur.audio.input, ...s.audio?.input }, output: { ...cur.audio.output, ...s.audio?.output } },
    };
    if (this.hooks.answerSessionUpdate()) this.send({ type: 'session.updated', session: this.record.session });
  }

  private append(pcm: Buffer | null, id: string | null): void {
    if (!pcm) return this.error('invalid_value', "Invalid 'audio'. Expected base64-encoded audio bytes.", id, 'audio');
    this.bufferBytes += pcm.length;
    const found = this.vad.feed(pcm);
    const td = this.session.audio.input.turn_detection;
    if (!td) return;
    for (const e of found) {
      if (e.type === 'start') {
        this.speechItem = this.newId('item');
        this.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: Math.round(e.atMs), item_id: this.speechItem });
        if (td.interrupt_response !== false) this.response?.cancel('turn_detected');
      } else {
        this.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: Math.round(e.atMs), item_id: this.speechItem });
        this.commitAudio(e.speechMs);
        if (td.create_response !== false && !this.response) this.respond({}, null);
      }
    }
  }

  private commit(id: string | null): void {
    const ms = pcmMs(this.bufferBytes);
    if (ms < 100) {
      return this.error('input_audio_buffer_commit_empty', `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has ${ms.toFixed(2)}ms of audio.`, id);
    }
    this.vad.reset();
    this.commitAudio(ms);
  }

  /** The buffer becomes a user item; its transcription follows (the scripted `heard` text, or a description). */
  private commitAudio(speechMs: number): void {
    const id = this.speechItem ?? this.newId('item');
    const previous = this.items.at(-1)?.id ?? null;
    this.speechItem = null;
    this.bufferBytes = 0;
    this.send({ type: 'input_audio_buffer.committed', previous_item_id: previous, item_id: id });
    const item: FakeItem = { id, type: 'message', role: 'user', text: '', audioMs: Math.round(speechMs) };
    this.items.push(item);
    const wire = { id, object: 'realtime.item', type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_audio', transcript: null }] };
    this.send({ type: 'conversation.item.added', previous_item_id: previous, item: wire });
    this.send({ type: 'conversation.item.done', previous_item_id: previous, item: wire });
    const heard = this.hooks.nextHeard();
    item.text = heard ?? (heard === null ? '' : `(speech, ${item.audioMs} ms)`);
    if (!this.session.audio.input.transcription) return;
    if (heard === null) {
      this.send({ type: 'conversation.item.input_audio_transcription.failed', item_id: id, content_index: 0, error: { type: 'transcription_error', code: 'audio_unintelligible', message: 'Audio could not be transcribed.', param: null } });
      return;
    }
    const usage = { type: 'tokens', input_tokens: audioTokens(item.audioMs), output_tokens: countTokens(item.text), total_tokens: audioTokens(item.audioMs) + countTokens(item.text), input_token_details: { text_tokens: 0, audio_tokens: audioTokens(item.audioMs) } };
    this.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: id, content_index: 0, transcript: item.text, logprobs: null, usage });
  }

  private createItem(it: any, id: string | null): void {
    if (!it || typeof it !== 'object') return this.error('missing_required_parameter', "Missing required parameter: 'item'.", id, 'item');
    const itemId: string = typeof it.id === 'string' ? it.id : this.newId('item');
    let item: FakeItem;
    if (it.type === 'message') {
      const allowed: Record<string, string[]> = { user: ['input_text', 'input_audio'], system: ['input_text'], assistant: ['output_text'] };
      const parts = allowed[it.role];
      if (!parts) return this.error('invalid_value', `Invalid value: '${it.role}'. Supported values are: 'user', 'assistant', and 'system'.`, id, 'item.role');
      if (!Array.isArray(it.content) || it.content.some((c: any) => !parts.includes(c?.type))) {
        return this.error('invalid_value', `Invalid 'item.content' for role ${it.role}: content types must be ${parts.join(' or ')}.`, id, 'item.content');
      }
      item = { id: itemId, type: 'message', role: it.role, text: it.content.map((c: any) => c.text ?? c.transcript ?? '').join(''), audioMs: 0 };
    } else if (it.type === 'function_call_output') {
      if (!this.items.some((x) => x.type === 'function_call' && x.callId === it.call_id)) {
        return this.error('invalid_value', `Tool call ID '${it.call_id}' not found in conversation.`, id, 'item.call_id');
      }
      item = { id: itemId, type: 'function_call_output', text: String(it.output ?? ''), audioMs: 0, callId: it.call_id };
    } else if (it.type === 'function_call') {
      item = { id: itemId, type: 'function_call', text: String(it.arguments ?? ''), audioMs: 0, callId: it.call_id, name: it.name };
    } else {
      return this.error('invalid_value', `Invalid value: '${it.type}'. Supported values are: 'message', 'function_call', and 'function_call_output'.`, id, 'item.type');
    }
    const previous = this.items.at(-1)?.id ?? null;
    this.items.push(item);
    const wire = { ...it, id: itemId, object: 'realtime.item', status: 'completed' };
    this.send({ type: 'conversation.item.added', previous_item_id: previous, item: wire });
    this.send({ type: 'conversation.item.done', previous_item_id: previous, item: wire });
  }

  private truncate(ev: any, id: string | null): void {
    const item = this.items.find((x) => x.id === ev.item_id);
    if (!item) return this.error('item_not_found', `Conversation item with id '${ev.item_id}' not found.`, id, 'item_id');
    if (item.type !== 'message' || item.role !== 'assistant') return this.error('invalid_value', 'Only assistant messages can be truncated.', id, 'item_id');
    if (ev.content_index !== 0) return this.error('invalid_value', `Invalid 'content_index': ${ev.content_index}.`, id, 'content_index');
    const end = ev.audio_end_ms;
    if (!Number.isInteger(end) || end < 0 || end > item.audioMs) {
      return this.error('invalid_value', `Audio content of ${item.audioMs}ms is already shorter than ${end}ms`, id, 'audio_end_ms');
    }
    // Like the API, the text of a cut item is dropped so the model never assumes words that were not heard.
    item.audioMs = end;
    item.text = '';
    this.record.truncations.push({ itemId: item.id, audioEndMs: end });
    this.send({ type: 'conversation.item.truncated', item_id: item.id, content_index: 0, audio_end_ms: end });
  }

  private respond(params: Record<string, any>, id: string | null): void {
    if (this.response) {
      return this.error('conversation_already_has_active_response', `Conversation already has an active response in progress: ${this.response.id}. Wait until the response is finished before creating a new one.`, id);
    }
    const turn = this.ctx.nextTurn(this.lastMessage());
    const session = params.instructions ? { ...this.session, instructions: params.instructions } : this.session;
    this.response = new FakeResponse(this, turn, session);
    this.response.start();
  }

  private lastMessage(): LastMessage {
    const last = [...this.items].reverse().find((x) => (x.type === 'message' && x.role === 'user') || x.type === 'function_call_output');
    return { role: last?.type === 'function_call_output' ? 'tool' : 'user', text: last?.text ?? '' };
  }

  // ResponseHost
  addItem(item: FakeItem): void {
    if (item.type === 'message' && item.role === 'assistant') this.spoke = true;
    this.items.push(item);
  }

  fail(code: number, reason: string): void {
    this.ws.close(code, reason);
  }

  chunkIntervalMs(): number {
    return this.hooks.chunkIntervalMs();
  }

  inputTokens(): { text: number; audio: number } {
    const words = [this.session.instructions ?? '', ...this.items.map((x) => x.text)].join('\n');
    const audio = this.items.reduce((n, x) => n + (x.role === 'user' ? audioTokens(x.audioMs) : 0), 0);
    return { text: countTokens(words), audio };
  }

  recordUsage(u: Usage): void {
    this.ctx.recordUsage(u);
  }

  ended(r: FakeResponse): void {
    if (this.response === r) this.response = null;
  }

  closed(code: number): void {
    if (!this.record.open) return;
    this.record.open = false;
    this.record.closeCode = code;
    this.response?.stop();
    this.response = null;
  }
}
