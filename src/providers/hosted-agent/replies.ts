/**
 * The provider's reply events as the voice engine port's items and responses. The protocol marks no end of a reply,
 * so a reply counts as complete once its audio has paused for `quietMs`, or at once when the visitor's next words,
 * a reply with another event id, or the correction after an interruption arrive.
 */
import type { VoiceEngineEvent } from '../voice-engine.js';

interface Item { id: string; eventId: number | null; text: string; interrupted: boolean }

const NO_USAGE = { inputTextTokens: 0, inputAudioTokens: 0, outputTextTokens: 0, outputAudioTokens: 0 };

export class Replies {
  private item: Item | null = null;
  /** Agent output since the visitor's last turn: one response, ended by quiet or by the visitor. */
  private responding = false;
  private cancelled = false;
  private quiet: NodeJS.Timeout | null = null;
  /** Audio of replies up to this event id was interrupted: late chunks of it are dropped. */
  private cutUpTo = -1;
  private seq = 0;

  constructor(private readonly deliver: (e: VoiceEngineEvent) => void, private readonly quietMs: number) {}

  /** The session ended: no more events. */
  stop(): void {
    this.stopQuiet();
  }

  toolCall(callId: string | undefined, name: string, parameters: Record<string, unknown>): void {
    this.endItem();
    this.responding = true;
    this.deliver({ type: 'tool_call', callId: callId ?? `call_${++this.seq}`, name, arguments: JSON.stringify(parameters) });
    this.armQuiet();
  }

  visitorSaid(text: string): void {
    this.endResponse();
    const itemId = `user_${++this.seq}`;
    this.deliver({ type: 'speech_stopped' });
    this.deliver({ type: 'user_turn', itemId });
    this.deliver({ type: 'user_transcript', itemId, text: text.trim() });
  }

  agentSays(text: string, eventId: number | null): void {
    if (eventId !== null && eventId <= this.cutUpTo) return;
    // A second reply text means the first one is complete.
    if (this.item && (this.item.text || (eventId !== null && this.item.eventId !== null && eventId !== this.item.eventId))) this.endItem();
    const item = this.item ?? this.openItem(eventId);
    item.eventId ??= eventId;
    item.text = text.trim();
    if (item.text) this.deliver({ type: 'transcript_delta', itemId: item.id, delta: item.text });
    this.armQuiet();
  }

  agentAudio(b64: string, eventId: number | null): void {
    if (!b64 || (eventId !== null && eventId <= this.cutUpTo)) return;
    if (this.item && eventId !== null && this.item.eventId !== null && eventId !== this.item.eventId) this.endItem();
    const item = this.item ?? this.openItem(eventId);
    item.eventId ??= eventId;
    // Decoded after one spare byte, so the widget's frame header is written in front of it without a copy.
    const buf = Buffer.allocUnsafe(1 + ((b64.length * 3) >> 2));
    const pcm = buf.subarray(1, 1 + buf.write(b64, 1, 'base64'));
    this.deliver({ type: 'audio', itemId: item.id, pcm, headroom: 1 });
    this.armQuiet();
  }

  /** The visitor spoke over the reply: the provider stopped it; its correction (what was said) may follow. */
  interrupted(eventId: number | null): void {
    this.cutUpTo = Math.max(this.cutUpTo, eventId ?? this.item?.eventId ?? this.cutUpTo);
    if (this.item) this.item.interrupted = true;
    if (this.responding) this.cancelled = true;
    this.deliver({ type: 'interrupted' });
    this.armQuiet();
  }

  corrected(text: string): void {
    if (!this.item?.interrupted) return;
    this.item.text = text.trim();
    this.endResponse();
  }

  private openItem(eventId: number | null): Item {
    this.responding = true;
    this.item = { id: `agent_${++this.seq}`, eventId, text: '', interrupted: false };
    this.deliver({ type: 'agent_item', itemId: this.item.id });
    return this.item;
  }

  private endItem(): void {
    const item = this.item;
    if (!item) return;
    this.item = null;
    this.deliver({ type: 'agent_item_done', itemId: item.id, text: item.text });
  }

  private endResponse(): void {
    this.stopQuiet();
    this.endItem();
    if (!this.responding) return;
    const status = this.cancelled ? 'cancelled' : 'completed';
    this.responding = false;
    this.cancelled = false;
    this.deliver({ type: 'response_done', usage: { ...NO_USAGE }, status });
  }

  private armQuiet(): void {
    this.stopQuiet();
    this.quiet = setTimeout(() => { this.quiet = null; this.endResponse(); }, this.quietMs);
  }

  private stopQuiet(): void {
    if (this.quiet) clearTimeout(this.quiet);
    this.quiet = null;
  }
}
