/**
 * One response of the fake OpenAI Realtime endpoint, streamed as the GA API does: response.created, a message
 * item whose audio (a quiet 220 Hz tone, ~60 ms a character) comes in ~100 ms chunks with its transcript word
 * by word, function call items, then response.done with usage. A cancel (response.cancel, or the visitor
 * speaking over it) ends it with the .done events of what was sent and status cancelled.
 */
import { FAKE_RATE, tone } from './realtime-audio.js';
import { argsText, chunkText, countTokens, turnChunks, type ScriptedTurn, type Usage } from './script.js';

/** A conversation item as the fake keeps it: words and audio length, never the audio. */
export interface FakeItem {
  id: string;
  type: 'message' | 'function_call' | 'function_call_output';
  role?: 'user' | 'assistant' | 'system';
  /** Message text or transcript, function call arguments, or a function call's output. */
  text: string;
  audioMs: number;
  callId?: string;
  name?: string;
}

export interface ResponseHost {
  send(event: Record<string, unknown>): void;
  newId(prefix: string): string;
  addItem(item: FakeItem): void;
  /** Ends the socket with this close code (a scripted 5xx mid-reply). */
  fail(code: number, reason: string): void;
  chunkIntervalMs(): number;
  /** Tokens of what the model reads: instructions and conversation text, and the visitor's audio. */
  inputTokens(): { text: number; audio: number };
  recordUsage(u: Usage): void;
  ended(r: FakeResponse): void;
}

const MS_PER_CHAR = 60;
const MAX_REPLY_MS = 30_000;
const CHUNK_MS = 100;
/** Like OpenAI's audio tokens: about ten a second, both ways. */
export const audioTokens = (ms: number) => Math.ceil(ms / 100);

interface Speaking { item: FakeItem; wire: Record<string, unknown>; base: Record<string, unknown>; transcript: string; samples: number }

export class FakeResponse {
  readonly id: string;
  private readonly output: Array<Record<string, unknown>> = [];
  private speaking: Speaking | null = null;
  private timer: NodeJS.Timeout | null = null;
  private done = false;
  private outText = '';
  private outAudioMs = 0;

  constructor(private readonly host: ResponseHost, private readonly turn: ScriptedTurn, private readonly session: Record<string, any>) {
    this.id = host.newId('resp');
  }

  start(): void {
    this.host.send({ type: 'response.created', response: this.wire('in_progress', null) });
    void this.run();
  }

  /** Cancelled by the client or by the visitor's speech (reason client_cancelled / turn_detected). */
  cancel(reason: 'client_cancelled' | 'turn_detected'): void {
    if (this.done) return;
    if (this.timer) clearTimeout(this.timer);
    if (this.speaking) this.endMessage('incomplete');
    this.finish('cancelled', { type: 'cancelled', reason });
  }

  /** The socket closed: nothing more is sent. */
  stop(): void {
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private async run(): Promise<void> {
    const t = this.turn;
    if (t.delayMs && !(await this.sleep(t.delayMs))) return;
    const text = turnChunks(t).join('');
    if (t.error && t.error.status >= 500) {
      // The provider fails mid-reply: some audio, then the socket closes.
      if (text && !(await this.speak(text, 2))) return;
      this.stop();
      this.host.fail(1011, t.error.message ?? `scripted error ${t.error.status}`);
      return;
    }
    if (t.error) {
      const message = t.error.message ?? `scripted error ${t.error.status}`;
      this.host.send({ type: 'error', error: { type: 'invalid_request_error', code: 'scripted_error', message, param: null, event_id: null } });
      this.finish('failed', { type: 'failed', error: { type: 'invalid_request_error', code: 'scripted_error' } });
      return;
    }
    if (text && !(await this.speak(text))) return;
    for (const c of t.toolCalls ?? []) this.call(c.id ?? this.host.newId('call'), c.name, argsText(c.arguments));
    this.finish(t.finishReason === 'length' ? 'incomplete' : 'completed', t.finishReason === 'length' ? { type: 'incomplete', reason: 'max_output_tokens' } : null);
  }

  /** Streams a spoken message; false when the response ended meanwhile. `chunkLimit` stops early (no .done events). */
  private async speak(text: string, chunkLimit = Infinity): Promise<boolean> {
    const item: FakeItem = { id: this.host.newId('item'), type: 'message', role: 'assistant', text: '', audioMs: 0 };
    const wire = { id: item.id, object: 'realtime.item', type: 'message', role: 'assistant', status: 'in_progress', content: [] };
    const base = { response_id: this.id, item_id: item.id, output_index: this.output.length, content_index: 0 };
    const s: Speaking = { item, wire, base, transcript: '', samples: 0 };
    this.speaking = s;
    this.host.addItem(item);
    this.host.send({ type: 'response.output_item.added', response_id: this.id, output_index: base.output_index, item: wire });
    this.host.send({ type: 'conversation.item.added', item: wire });
    this.host.send({ type: 'response.content_part.added', ...base, part: { type: 'audio', transcript: '' } });
    const words = chunkText(text);
    const totalMs = Math.min(MAX_REPLY_MS, Math.max(CHUNK_MS, text.length * MS_PER_CHAR));
    const chunks = Math.ceil(totalMs / CHUNK_MS);
    let sentWords = 0;
    for (let i = 0; i < chunks && i < chunkLimit; i++) {
      for (const due = Math.ceil(((i + 1) * words.length) / chunks); sentWords < due; sentWords++) {
        s.transcript += words[sentWords];
        this.host.send({ type: 'response.output_audio_transcript.delta', ...base, delta: words[sentWords] });
      }
      const ms = Math.min(CHUNK_MS, totalMs - i * CHUNK_MS);
      const pcm = tone(ms, 220, 1500, FAKE_RATE, s.samples);
      s.samples += pcm.length / 2;
      item.audioMs += ms;
      this.outAudioMs += ms;
      this.host.send({ type: 'response.output_audio.delta', ...base, delta: pcm.toString('base64') });
      if (!(await this.sleep(this.host.chunkIntervalMs()))) return false;
    }
    if (chunkLimit === Infinity) this.endMessage('completed');
    return true;
  }

  private endMessage(status: 'completed' | 'incomplete'): void {
    const s = this.speaking!;
    this.speaking = null;
    s.item.text = s.transcript;
    this.outText += s.transcript;
    const wire = { ...s.wire, status, content: [{ type: 'output_audio', transcript: s.transcript }] };
    this.host.send({ type: 'response.output_audio.done', ...s.base });
    this.host.send({ type: 'response.output_audio_transcript.done', ...s.base, transcript: s.transcript });
    this.host.send({ type: 'response.content_part.done', ...s.base, part: { type: 'audio', transcript: s.transcript } });
    this.host.send({ type: 'response.output_item.done', response_id: this.id, output_index: s.base.output_index, item: wire });
    this.host.send({ type: 'conversation.item.done', item: wire });
    this.output.push(wire);
  }

  private call(callId: string, name: string, args: string): void {
    const id = this.host.newId('item');
    const outputIndex = this.output.length;
    const wire = { id, object: 'realtime.item', type: 'function_call', status: 'in_progress', call_id: callId, name, arguments: '' };
    this.host.addItem({ id, type: 'function_call', text: args, audioMs: 0, callId, name });
    this.host.send({ type: 'response.output_item.added', response_id: this.id, output_index: outputIndex, item: wire });
    this.host.send({ type: 'conversation.item.added', item: wire });
    this.host.send({ type: 'response.function_call_arguments.delta', response_id: this.id, item_id: id, output_index: outputIndex, call_id: callId, delta: args });
    this.host.send({ type: 'response.function_call_arguments.done', response_id: this.id, item_id: id, output_index: outputIndex, call_id: callId, name, arguments: args });
    const done = { ...wire, status: 'completed', arguments: args };
    this.host.send({ type: 'response.output_item.done', response_id: this.id, output_index: outputIndex, item: done });
    this.host.send({ type: 'conversation.item.done', item: done });
    this.output.push(done);
    this.outText += name + args;
  }

  private finish(status: string, details: Record<string, unknown> | null): void {
    this.done = true;
    const input = this.host.inputTokens();
    const inText = this.turn.usage?.inputTokens ?? input.text;
    const outText = this.turn.usage?.outputTokens ?? (this.outText ? countTokens(this.outText) : 0);
    const outAudio = audioTokens(this.outAudioMs);
    this.host.recordUsage({ inputTokens: inText + input.audio, outputTokens: outText + outAudio });
    const usage = {
      total_tokens: inText + input.audio + outText + outAudio,
      input_tokens: inText + input.audio,
      output_tokens: outText + outAudio,
      input_token_details: { text_tokens: inText, audio_tokens: input.audio, image_tokens: 0, cached_tokens: 0, cached_tokens_details: { text_tokens: 0, audio_tokens: 0, image_tokens: 0 } },
      output_token_details: { text_tokens: outText, audio_tokens: outAudio },
    };
    this.host.send({ type: 'response.done', response: { ...this.wire(status, details), usage } });
    this.host.ended(this);
  }

  private wire(status: string, details: Record<string, unknown> | null): Record<string, unknown> {
    return {
      object: 'realtime.response', id: this.id, status, status_details: details, output: this.output, conversation_id: 'conv_fake',
      output_modalities: ['audio'], max_output_tokens: this.session.max_output_tokens ?? 'inf', metadata: null, usage: null,
      audio: { output: { format: this.session.audio?.output?.format, voice: this.session.audio?.output?.voice } },
    };
  }

  private sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      this.timer = setTimeout(() => { this.timer = null; resolve(!this.done); }, ms);
    });
  }
}
