/**
 * The order in which a voice session's turns are stored. Engines report a visitor's words after the agent has
 * begun answering, so turns wait here until everything before them is known: the visitor's transcript, the
 * agent's whole item, and after a barge-in how much of it the widget played.
 */
export interface AgentItem {
  itemId: string;
  messageId: string;
  responseId: string;
  parts: string[];
  /** PCM bytes sent to the widget for this item. */
  audioBytes: number;
  interrupted: boolean;
  /** It was interrupted before the engine had finished it (its words may stop where its audio stopped). */
  cutShort: boolean;
  playedMs: number | null;
  done: boolean;
  /** Its response has ended, so its usage is known and rides on the stored turn. */
  responded: boolean;
  text: string | null;
  /** Clock time the first audio of it was relayed (null before). */
  audioStartedAt: number | null;
}

type Slot =
  | { kind: 'user'; itemId: string; text: string | null; since: number }
  | { kind: 'agent'; item: AgentItem; since: number };

export interface ReadyTurn { role: 'user' | 'assistant'; text: string; item?: AgentItem }

/** Agent items remembered after they are stored (the widget reports playback when it has played them). */
const KEEP_ITEMS = 8;

export class TurnLog {
  private readonly slots: Slot[] = [];
  readonly items = new Map<string, AgentItem>();
  /** Message ids of agent items that ended with nothing heard: their streamed captions must be withdrawn. */
  readonly dropped: string[] = [];

  constructor(private readonly outputRate: number, private readonly waitMs: number) {}

  get pending(): number { return this.slots.length; }

  userTurn(itemId: string, now: number): void {
    if (!this.slots.some((s) => s.kind === 'user' && s.itemId === itemId)) this.slots.push({ kind: 'user', itemId, text: null, since: now });
  }

  userTranscript(itemId: string, text: string, now: number): void {
    const slot = this.slots.find((s) => s.kind === 'user' && s.itemId === itemId);
    if (slot && slot.kind === 'user') slot.text = text;
    else this.slots.push({ kind: 'user', itemId, text, since: now });
  }

  agentItem(itemId: string, messageId: string, responseId: string, now: number): AgentItem {
    // Stored items are kept a while for late played reports; the oldest go once there are more than a few.
    for (const [id, old] of this.items) if (this.items.size >= KEEP_ITEMS && !this.slots.some((s) => s.kind === 'agent' && s.item === old)) this.items.delete(id);
    const item: AgentItem = {
      itemId, messageId, responseId, parts: [], audioBytes: 0, interrupted: false, cutShort: false, playedMs: null, done: false, responded: false, text: null, audioStartedAt: null,
    };
    this.items.set(itemId, item);
    this.slots.push({ kind: 'agent', item, since: now });
    return item;
  }

  audioMs(item: AgentItem): number {
    return (item.audioBytes / 2 / this.outputRate) * 1000;
  }

  itemDone(itemId: string, text: string, now: number): void {
    const item = this.items.get(itemId);
    if (!item || item.done) return;
    item.done = true;
    item.text = text || item.parts.join('');
    // The wait for a played report starts when the item is complete.
    const slot = this.slots.find((s) => s.kind === 'agent' && s.item === item);
    if (slot) slot.since = now;
  }

  /** The response ended (or was cancelled): every item so far is complete, with its usage known. */
  finishAll(now: number): void {
    for (const item of this.items.values()) {
      if (!item.done) this.itemDone(item.itemId, '', now);
      item.responded = true;
    }
  }

  /**
   * Voice ended, so the widget's playback stopped: every agent item not yet stored keeps only what was heard. How an
   * item without a voice_played report counts: the visitor ending it had the widget report what it played first, so
   * it was `unheard`; when the server ends it the widget stops on the `ended` frame, so what played is the audio's
   * time since it began (`elapsed`).
   */
  playbackStopped(now: number, unreported: 'unheard' | 'elapsed'): void {
    for (const slot of this.slots) {
      if (slot.kind !== 'agent') continue;
      const item = slot.item;
      const began = item.audioStartedAt;
      item.playedMs ??= unreported === 'unheard' || began === null ? 0 : Math.min(this.audioMs(item), Math.max(0, now - began));
      if (item.interrupted) continue;
      item.interrupted = true;
      item.cutShort = !item.done;
    }
  }

  /** Removes and returns the turns that can be stored now, oldest first. */
  ready(now: number): ReadyTurn[] {
    const out: ReadyTurn[] = [];
    while (this.slots.length) {
      const head = this.slots[0];
      const expired = now - head.since >= this.waitMs;
      if (head.kind === 'user') {
        if (head.text === null && !expired) break;
        this.slots.shift();
        if (head.text?.trim()) out.push({ role: 'user', text: head.text.trim() });
        continue;
      }
      const item = head.item;
      if (!(item.done && item.responded) && !expired) break;
      // Stored once the widget has played it (or stopped it: a barge-in may still come while it plays), or once it
      // should have finished playing and the wait has passed (a widget that never reports).
      const playsUntil = Math.max(head.since, (item.audioStartedAt ?? head.since) + this.audioMs(item));
      if (item.playedMs === null && now - playsUntil < this.waitMs) break;
      this.slots.shift();
      const full = (item.text ?? item.parts.join('')).trim();
      let text = item.interrupted ? cutToPlayed(full, item.playedMs ?? this.audioMs(item), this.audioMs(item)) : full;
      // An engine whose words keep pace with its audio (cascade) sent no more than was heard: still marked as cut.
      if (item.cutShort && text && !text.endsWith('…')) text = `${text.replace(/[,;:.]$/, '')}…`;
      if (text) out.push({ role: 'assistant', text, item });
      else this.dropped.push(item.messageId);
    }
    return out;
  }
}

/**
 * The part of an interrupted reply the visitor heard: the transcript cut in proportion to the audio played, at a
 * word boundary, marked with an ellipsis. Nothing played, nothing stored.
 */
export function cutToPlayed(text: string, playedMs: number, totalMs: number): string {
  if (!text || playedMs <= 0 || totalMs <= 0) return '';
  const fraction = playedMs / totalMs;
  if (fraction >= 0.98) return text;
  const at = Math.round(text.length * fraction);
  const space = text.lastIndexOf(' ', at);
  const cut = text.slice(0, space > 0 ? space : at).trimEnd().replace(/[,;:]$/, '');
  return cut ? `${cut}…` : '';
}
