/**
 * The brain's side of cascade voice: its view of the conversation, and one reply at a time to what the visitor
 * said. A reply runs in rounds as in text chat (tools offered up to brain.maxToolRounds; the last round offers
 * none): each round's sentences go to the speaker as they are written, its tool calls go out and the next round
 * starts once all their results are back. Input that comes during a reply waits for it. A reply that is cancelled
 * (barge-in, push-to-talk) keeps in the history only what was sent, cut again to what was heard when the widget
 * says how much it played. A reply may be started speculatively, before the visitor's turn is known to be over: it
 * is written but held (nothing spoken, no tool run, nothing reported) until it is confirmed, and retracted without
 * a trace if the visitor goes on speaking.
 */
import { SPEECH_STREAM_RATE, type ChatMessage, type ToolCall } from '../types.js';
import type { VoiceSessionSpec } from '../voice-engine.js';
import type { RoundResult } from './brain.js';
import type { Speaker, SpokenPiece } from './speaker.js';

type Said = Extract<ChatMessage, { role: 'assistant' }>;
type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

export interface Reply {
  readonly controller: AbortController;
  tokens: { inputTokens: number; outputTokens: number };
  /** The assistant message of each item this reply began. */
  readonly items: Map<string, Said>;
  /** This round's tool calls and their results (null until answered). */
  readonly waiting: Map<string, { name: string; output: string | null }>;
  wake: (() => void) | null;
  /** A speculative reply's output, held until it is confirmed (null: it goes out as it comes). */
  held: Array<() => void> | null;
  /** Where the history stood before this reply's question (a retracted reply leaves it as it was). */
  mark: number;
}

export interface RepliesHooks {
  round(reply: Reply, input: { system: string; messages: ChatMessage[]; tools: VoiceSessionSpec['tools'] | undefined; maxOutputTokens: number; onPiece(text: string): void }): Promise<RoundResult>;
  newId(prefix: string): string;
  toolCall(callId: string, name: string, args: string): void;
  failed(err: Error): void;
  done(reply: Reply, status: 'completed' | 'cancelled' | 'failed'): void;
  /**
   * Tokens of brain requests no `done` reports: a retracted reply's finished rounds, and a round stopped mid-way
   * (retracted or interrupted), whose usage the provider never sent: estimated from what was asked and written.
   * The provider bills them all the same.
   */
  spent(tokens: { inputTokens: number; outputTokens: number }): void;
  maxToolRounds: number;
}

/** What a late tool result replaces, when its reply was cancelled before the result came. */
const NOT_WAITED = 'The visitor interrupted before this result came.';
/** Items remembered for cuts after barge-in (the widget reports soon after). */
const KEEP_ITEMS = 16;
/**
 * Messages the brain is given (a long voice session is not compacted as text chat is: its oldest turns drop off,
 * as the session began with the last 40 messages of the conversation).
 */
const BRAIN_MESSAGES = 60;

export class Replies {
  private readonly history: ChatMessage[];
  private inbox: ChatMessage[] = [];
  private active: Reply | null = null;
  private closed = false;
  private readonly byItem = new Map<string, Said>();
  private readonly late = new Map<string, ToolMessage>();

  constructor(private readonly spec: VoiceSessionSpec, private readonly speaker: Speaker, private readonly hooks: RepliesHooks) {
    this.history = spec.history.map((m) => ({ role: m.role, content: m.text }));
  }

  /** A reply is being made (or spoken). */
  get busy(): boolean {
    return this.active !== null;
  }

  /** Something to answer: a reply starts now, or once the current one has ended. */
  ask(msg: ChatMessage): void {
    if (this.closed) return;
    this.inbox.push(msg);
    this.next();
  }

  toolResult(callId: string, output: string): void {
    const call = this.active?.waiting.get(callId);
    if (call) {
      call.output = output;
      this.active!.wake?.();
      return;
    }
    const late = this.late.get(callId);
    if (late) { late.content = output; this.late.delete(callId); }
  }

  /**
   * Starts answering `msg` before the visitor's turn is known to be over; null when a reply is already under way or
   * waiting (the turn is then asked once it is over).
   */
  speculate(msg: ChatMessage): Reply | null {
    if (this.closed || this.active || this.inbox.length) return null;
    this.inbox.push(msg);
    this.next(true);
    return this.active;
  }

  /** The turn is over with the words the speculative reply answers: what it held goes out, and the rest as it comes. */
  confirm(reply: Reply): void {
    if (this.active !== reply || !reply.held) return;
    const held = reply.held;
    reply.held = null;
    for (const fn of held) fn();
  }

  /** The visitor went on speaking: the speculative reply is stopped and forgotten (its question too). */
  retract(reply: Reply): void {
    if (this.active !== reply || !reply.held) return;
    this.active = null;
    reply.held = null;
    if (reply.tokens.inputTokens || reply.tokens.outputTokens) this.hooks.spent(reply.tokens);
    reply.controller.abort(new Error('the visitor went on speaking'));
    reply.waiting.clear();
    reply.wake?.();
    for (const itemId of reply.items.keys()) this.byItem.delete(itemId);
    this.history.splice(reply.mark);
    this.next();
  }

  /** Stops the reply under way (brain, speech and its audio); `closing`: the session ends, nothing more starts. */
  cancel(reason: string, closing = false): void {
    if (closing) { this.closed = true; this.inbox = []; }
    const reply = this.active;
    if (!reply) return;
    if (reply.held) { this.retract(reply); return; }
    this.active = null;
    reply.controller.abort(new Error(reason));
    this.speaker.cancel();
    for (const [itemId, said] of reply.items) this.keepSent(said, this.speaker.spoken(itemId));
    // Every call keeps an answer (providers refuse a call without one); a result that comes later replaces it.
    for (const [callId, call] of reply.waiting) {
      const msg: ToolMessage = { role: 'tool', toolCallId: callId, name: call.name, content: call.output ?? NOT_WAITED };
      this.history.push(msg);
      if (call.output === null) this.late.set(callId, msg);
    }
    reply.waiting.clear();
    reply.wake?.();
    if (closing) return;
    this.hooks.done(reply, 'cancelled');
    this.next();
  }

  /** The widget played `playedMs` of item `itemId` before it stopped: the history keeps only what was heard. */
  interrupt(itemId: string | null, playedMs: number): void {
    if (this.active && (itemId === null || this.active.items.has(itemId))) this.cancel('interrupted');
    const said = itemId ? this.byItem.get(itemId) : undefined;
    if (said) this.keepSent(said, heard(this.speaker.spoken(itemId!), playedMs));
  }

  private next(speculative = false): void {
    if (this.active || this.closed || !this.inbox.length) return;
    const asked = this.inbox.length;
    this.history.push(...this.inbox);
    this.inbox = [];
    if (this.history.length > 2 * BRAIN_MESSAGES) this.history.splice(0, this.history.length - BRAIN_MESSAGES);
    const reply: Reply = {
      controller: new AbortController(), tokens: { inputTokens: 0, outputTokens: 0 }, items: new Map(), waiting: new Map(), wake: null,
      held: speculative ? [] : null, mark: this.history.length - asked,
    };
    this.active = reply;
    this.speaker.reset();
    void this.run(reply);
  }

  private async run(reply: Reply): Promise<void> {
    const tools = this.spec.tools;
    const signal = reply.controller.signal;
    let said: Said | null = null;
    const sent: string[] = [];
    let asked: ChatMessage[] = [];
    try {
      for (let round = 0; ; round++) {
        const offer = round < this.hooks.maxToolRounds && tools.length > 0;
        const itemId = this.hooks.newId('item');
        const messages = fromFirstUser(this.history.slice(-BRAIN_MESSAGES));
        asked = messages;
        said = { role: 'assistant', content: '' };
        sent.length = 0;
        this.history.push(said);
        reply.items.set(itemId, said);
        this.remember(itemId, said);
        const r = await this.hooks.round(reply, {
          system: this.spec.instructions, messages, tools: offer ? tools : undefined, maxOutputTokens: this.spec.maxOutputTokens,
          onPiece: (text) => { if (!signal.aborted) { sent.push(text); this.out(reply, () => this.speaker.say(itemId, text)); } },
        });
        if (signal.aborted) { this.hooks.spent(r.usage); return; }
        reply.tokens.inputTokens += r.usage.inputTokens;
        reply.tokens.outputTokens += r.usage.outputTokens;
        said.content = sent.join(' ');
        if (sent.length) this.out(reply, () => this.speaker.endItem(itemId));
        const calls: ToolCall[] = offer ? r.calls : [];
        if (calls.length) said.toolCalls = calls;
        else this.dropIfEmpty(said);
        if (!calls.length) break;
        for (const c of calls) reply.waiting.set(c.id, { name: c.name, output: null });
        this.out(reply, () => { for (const c of calls) this.hooks.toolCall(c.id, c.name, c.arguments); });
        await new Promise<void>((resolve) => {
          reply.wake = () => { if (signal.aborted || [...reply.waiting.values()].every((w) => w.output !== null)) resolve(); };
          reply.wake();
        });
        if (signal.aborted) return;
        for (const [callId, call] of reply.waiting) this.history.push({ role: 'tool', toolCallId: callId, name: call.name, content: call.output! });
        reply.waiting.clear();
      }
      this.out(reply, () => this.speaker.then(() => this.finish(reply, 'completed')));
    } catch (err) {
      if (signal.aborted) { this.hooks.spent(roughUsage(this.spec.instructions, asked, sent)); return; }
      // What was handed to the speaker is still spoken; the history holds just that.
      if (said) { said.content = sent.join(' '); if (sent.length) { const last = [...reply.items.keys()].pop()!; this.out(reply, () => this.speaker.endItem(last)); } this.dropIfEmpty(said); }
      this.out(reply, () => { this.hooks.failed(err as Error); this.speaker.then(() => this.finish(reply, 'failed')); });
    }
  }

  /** Output of `reply`: now, or once a speculative reply is confirmed. */
  private out(reply: Reply, fn: () => void): void {
    if (reply.held) reply.held.push(fn);
    else fn();
  }

  private finish(reply: Reply, status: 'completed' | 'failed'): void {
    if (this.active !== reply) return;
    this.active = null;
    this.hooks.done(reply, status);
    this.next();
  }

  /** The message holds the sentences sent (none: it leaves the history, unless it carries tool calls). */
  private keepSent(said: Said, pieces: SpokenPiece[] | string): void {
    said.content = typeof pieces === 'string' ? pieces : pieces.map((p) => p.text).join(' ');
    this.dropIfEmpty(said);
  }

  private dropIfEmpty(said: Said): void {
    if (said.content || said.toolCalls?.length) return;
    const at = this.history.lastIndexOf(said);
    if (at >= 0) this.history.splice(at, 1);
  }

  private remember(itemId: string, said: Said): void {
    this.byItem.set(itemId, said);
    if (this.byItem.size > KEEP_ITEMS) this.byItem.delete(this.byItem.keys().next().value!);
  }
}

/**
 * A stopped round's tokens, when the provider never sent its usage: about four characters a token, of the system
 * prompt and messages asked (the provider read them all; a picture as about a thousand, a message's framing as
 * four) and of the sentences written before the stop.
 */
export function roughUsage(system: string, messages: ChatMessage[], written: string[]): { inputTokens: number; outputTokens: number } {
  let chars = system.length;
  for (const m of messages) {
    if (typeof m.content === 'string') chars += m.content.length;
    // A picture costs about a thousand tokens at the providers' usual detail, whatever its bytes.
    else for (const part of m.content) chars += part.type === 'text' ? part.text.length : 4000;
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) chars += c.name.length + c.arguments.length;
  }
  const out = written.reduce((n, t) => n + t.length + 1, 0);
  // Each message (the system prompt is one) costs a few tokens of its own framing, and the reply's priming three.
  return { inputTokens: Math.ceil(chars / 4) + 4 * (messages.length + 1) + 3, outputTokens: Math.ceil(out / 4) };
}

/** Providers want the conversation to start with a user turn (which also keeps tool calls with their results). */
function fromFirstUser(history: ChatMessage[]): ChatMessage[] {
  const first = history.findIndex((m) => m.role === 'user');
  return first < 0 ? [] : history.slice(first);
}

/** Speaking pace assumed for a sentence whose audio was cut off before its length was known (about 15 characters a second). */
const MS_PER_CHAR = 65;

/**
 * The words of an item the visitor heard before playback stopped: whole sentences while their audio had played,
 * the sentence it stopped in cut in proportion at a word boundary and marked with "…". A sentence whose audio was
 * still coming is measured at the pace of the item's complete ones.
 */
export function heard(pieces: SpokenPiece[], playedMs: number): string {
  const bytesPerMs = (SPEECH_STREAM_RATE * 2) / 1000;
  const done = pieces.filter((p) => p.complete && p.bytes > 0);
  const perChar = done.length ? done.reduce((n, p) => n + p.bytes, 0) / done.reduce((n, p) => n + p.text.length, 0) : MS_PER_CHAR * bytesPerMs;
  let left = Math.max(0, playedMs) * bytesPerMs;
  const out: string[] = [];
  for (const p of pieces) {
    // A sentence sent without audio (speech failed) was shown as text: with no length, it counts as heard.
    const total = p.complete ? p.bytes : Math.max(p.bytes, p.text.length * perChar);
    if (left >= total * 0.98) { out.push(p.text); left -= total; continue; }
    const at = Math.round(p.text.length * (left / total));
    const space = p.text.lastIndexOf(' ', at);
    const cut = p.text.slice(0, space > 0 ? space : 0).trimEnd().replace(/[,;:]$/, '');
    if (cut) out.push(`${cut}…`);
    break;
  }
  return out.join(' ');
}
