/**
 * Spoken text replies (appearance.face.textReplies speak): a typed reply is read aloud in the voice set under
 * voice.cascade.tts while it streams, on the chat socket, to the widgets of the conversation that asked for
 * sound (`speak` frame, sent after the visitor's first click or key, since browsers play sound only then).
 * Without such a widget nothing is synthesised (the widget mimes). The streamed text is cut into sentences by
 * the cascade's splitter and spoken by its Speaker (next sentence made while the current one plays). Speech
 * never touches the text reply: a failure is logged and the widget told; its cost is counted by the caller.
 */
import type { AppContext } from '../app/context.js';
import { perApp } from '../app/context.js';
import type { BotConfig } from '../bots/config/index.js';
import type { Logger } from '../kernel/log.js';
import { SpeakableSplitter } from '../providers/cascade/speakable.js';
import { Speaker } from '../providers/cascade/speaker.js';
import { defaultSpeechModels } from '../providers/cascade/parts.js';
import { guardedAdapter, openProviderKey, providers, TEXT_KINDS } from '../providers/connections.js';
import { estimateSpeechCostUsd } from '../providers/prices.js';
import { SPEECH_STREAM_RATE, type ProviderAdapter, type ProviderKind, type SpeechAlignment } from '../providers/types.js';
import { providerClient } from '../providers/http-client.js';
import type { ChatHub, FrameSink } from '../conversation/hub.js';
import { encodeFrame, type ServerFrame } from '../conversation/protocol.js';
import { audioFrame } from '../conversation/voice-frames.js';

/** A widget socket as this module needs it. */
export interface SpeakSink {
  readonly closed: boolean;
  readonly data: { conversationId: string | null };
  send(message: string | Uint8Array, binary?: boolean): 'ok' | 'backpressure' | 'dropped';
}

const TTS_KINDS: ProviderKind[] = ['speech', 'openai', 'gemini'];
/** A sentence's first audio (and any gap in it) may take this long before speech is given up for the reply. */
export const SPEAK_TIMEOUT_MS = 15_000;
/** What the widget shows when speech fails (the text stays). */
export const SPEAK_FAILED_LINE = "The voice isn't working right now; the reply is shown as text.";

/** Sockets whose visitor has sound on (`{ t: 'speak', on: true }`). */
const speaking = perApp(() => new Set<SpeakSink>());

/** The visitor turned sound on or off; off stops the synthesis of replies to that socket (see SpokenReply.targets). */
export function setSpeak(app: AppContext, sink: SpeakSink, on: boolean): void {
  if (on) speaking(app).add(sink);
  else speaking(app).delete(sink);
}

export function speakClosed(app: AppContext, sink: SpeakSink): void {
  speaking(app).delete(sink);
}

/** Adapters by connection and key: a reply needs one lookup of the connection, not a new client. */
const adapters = perApp(() => new Map<string, ProviderAdapter>());
/** A speech provider's first voice, when the bot names none (kind D needs one in every request). */
const firstVoices = perApp(() => new Map<string, string>());

interface Tts { adapter: ProviderAdapter; label: string; model: string; voice: string; speed: number; style: string }

/** voice.cascade.tts as publishing resolves it: the named connection, else the brain's when its kind fits. */
async function resolveTts(app: AppContext, workspaceId: string, config: BotConfig): Promise<Tts | { error: string }> {
  const c = config.voice.cascade.tts;
  const id = c.connectionId ?? config.brain.connectionId;
  const doc = id
    ? await providers(app).findById(workspaceId, id)
    : (await providers(app).find({ workspaceId, kind: { $in: [...TEXT_KINDS] } }, { sort: [['_id', 1]], limit: 1 }))[0] ?? null;
  if (!doc || !TTS_KINDS.includes(doc.kind)) return { error: 'no text-to-speech connection (voice.cascade.tts.connectionId)' };
  const key = `${doc._id}|${doc.apiKeySealed}|${doc.baseUrl ?? ''}`;
  const cache = adapters(app);
  let adapter = cache.get(key);
  if (!adapter) {
    try {
      adapter = guardedAdapter(providerClient(app), { id: doc._id, kind: doc.kind, apiKey: openProviderKey(app, doc), baseUrl: doc.baseUrl ?? null }, { timeoutMs: SPEAK_TIMEOUT_MS, maxRetries: 0 });
    } catch {
      return { error: `the key of ${doc.name} cannot be read; connect it again` };
    }
    if (cache.size >= 200) cache.delete(cache.keys().next().value!);
    cache.set(key, adapter);
  }
  let voice = c.voice;
  if (!voice && doc.kind === 'speech' && adapter.listVoices) {
    voice = firstVoices(app).get(key) ?? (await adapter.listVoices())[0]?.id ?? '';
    if (!voice) return { error: `${doc.name} lists no voices; choose one (voice.cascade.tts.voice)` };
    firstVoices(app).set(key, voice);
  }
  return { adapter, label: doc.name, model: c.model || defaultSpeechModels(doc.kind).tts, voice, speed: c.speed, style: doc.kind === 'speech' ? '' : c.style };
}

export interface SpokenReplyInput {
  conversationId: string;
  workspaceId: string;
  config: BotConfig;
  messageId: string;
  log: Logger;
  /** What speech cost, once the reply is spoken or cancelled (only when > 0). */
  charge(costUsd: number): void;
}

/**
 * Starts reading a reply aloud, or returns null when the bot does not speak replies or no widget of the
 * conversation has sound on (the reply is mimed there). `hub` has the conversation's open widgets.
 */
export function startSpokenReply(app: AppContext, hub: Pick<ChatHub, 'sinks'>, input: SpokenReplyInput): SpokenReply | null {
  if (input.config.appearance.face.textReplies !== 'speak') return null;
  const reply = new SpokenReply(speaking(app), hub.sinks(input.conversationId), input);
  if (!reply.targets().length) return null;
  reply.begin(resolveTts(app, input.workspaceId, input.config));
  return reply;
}

/** A word of a spoken reply and when it is heard: ms from the start of the reply's audio. */
export interface SpokenWord { text: string; startMs: number; endMs: number }
/** What a chunk of speech says (kind D sends it), by the chunk the Speaker hands back: its sentence, its characters. */
type Timed = { sentence: number; alignment: SpeechAlignment | null };
const BYTES_PER_MS = (SPEECH_STREAM_RATE * 2) / 1000;

/**
 * The adapter as the Speaker sees it: where the provider times its characters, each chunk is remembered with them,
 * so words can be sent beside the audio (the Speaker passes chunks on as they are).
 */
function timedAdapter(adapter: ProviderAdapter, timings: WeakMap<Buffer, Timed>): ProviderAdapter {
  const aligned = adapter.synthesizeStreamAligned?.bind(adapter);
  if (!aligned) return adapter;
  let sentences = 0;
  // The adapter's other methods stay (through the prototype); only the stream the Speaker reads is replaced.
  return Object.assign(Object.create(adapter) as ProviderAdapter, {
    async *synthesizeStream(text: string, opts: Parameters<typeof aligned>[1], signal?: AbortSignal) {
      const sentence = ++sentences;
      for await (const c of aligned(text, opts, signal)) {
        if (!c.pcm.length) continue;
        timings.set(c.pcm, { sentence, alignment: c.alignment });
        yield c.pcm;
      }
    },
  });
}

export class SpokenReply {
  private readonly splitter = new SpeakableSplitter();
  private speaker: Speaker | null = null;
  /** Sentences cut before the voice was resolved. */
  private waiting: string[] = [];
  private ended = false;
  private stopped = false;
  /** Speech failed: the Speaker goes on as text only, so there is no item to announce. */
  private failed = false;
  private announced = false;
  private costUsd = 0;
  private model = '';
  /** Word timing (kind D): chunks with their characters, audio sent so far, the sentence playing and its start. */
  private readonly timings = new WeakMap<Buffer, Timed>();
  private sentBytes = 0;
  private sentence = 0;
  private sentenceMs = 0;
  private word: SpokenWord | null = null;

  /** `open`: the conversation's sockets (the hub's live set), so each chunk looks at those only, not every socket with sound. */
  constructor(private readonly speaking: Set<SpeakSink>, private readonly open: ReadonlySet<FrameSink>, private readonly input: SpokenReplyInput) {}

  /** The sockets that hear this reply now: with the conversation open and sound on. */
  targets(): SpeakSink[] {
    const out: SpeakSink[] = [];
    for (const s of this.open) if (!s.closed && this.speaking.has(s as unknown as SpeakSink)) out.push(s as unknown as SpeakSink);
    return out;
  }

  begin(tts: Promise<Tts | { error: string }>): void {
    tts.then((t) => {
      if (this.stopped) return;
      if ('error' in t) return this.fail(new Error(t.error));
      this.model = t.model;
      const id = this.input.messageId;
      // The words reach the widget as the reply's deltas, so the Speaker's caption callbacks have nothing to do
      // (named both ways, as the cascade engine's Speaker is changing how it hands out words).
      const out = {
        itemStart: () => {
          if (this.failed) return;
          this.announced = true;
          this.frame({ t: 'speak_item', itemId: id, messageId: id, rate: SPEECH_STREAM_RATE });
        },
        pieceStart: () => {},
        words: () => {},
        audio: (_item: string, pcm: Buffer) => this.audio(pcm),
        itemDone: () => {
          if (!this.announced) return;
          this.words([], true);
          this.frame({ t: 'speak_end', itemId: id });
        },
        failed: (err: Error) => this.fail(err),
        synthesized: (characters: number, seconds: number) => { this.costUsd += estimateSpeechCostUsd(this.model, { characters, seconds }); },
      };
      this.speaker = new Speaker({ adapter: timedAdapter(t.adapter, this.timings), label: t.label, opts: { voice: t.voice, model: t.model, speed: t.speed, style: t.style || undefined } }, out, SPEAK_TIMEOUT_MS);
      for (const p of this.waiting.splice(0)) this.speaker.say(id, p);
      if (this.ended) this.finish();
    }, (err: Error) => this.fail(err));
  }

  /** More of the reply's text. */
  push(delta: string): void {
    if (this.stopped) return;
    for (const p of this.splitter.push(delta)) this.say(p);
  }

  /** The reply is complete: speak the rest, then count the cost. */
  end(): void {
    if (this.stopped || this.ended) return;
    this.ended = true;
    for (const p of this.splitter.flush()) this.say(p);
    if (this.speaker) this.finish();
  }

  /** The reply was dropped, or nobody listens any more: synthesis in flight is aborted. */
  cancel(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.speaker?.cancel();
    this.charge();
  }

  private say(piece: string): void {
    if (this.speaker) this.speaker.say(this.input.messageId, piece);
    else this.waiting.push(piece);
  }

  private finish(): void {
    const speaker = this.speaker!;
    speaker.endItem(this.input.messageId);
    speaker.then(() => { this.stopped = true; this.charge(); });
  }

  private charge(): void {
    const usd = this.costUsd;
    this.costUsd = 0;
    if (usd > 0) this.input.charge(usd);
  }

  private fail(err: Error): void {
    this.failed = true;
    this.input.log.warn({ err, conversationId: this.input.conversationId, messageId: this.input.messageId }, 'reading a reply aloud failed');
    this.frame({ t: 'speak_error', messageId: this.input.messageId, message: SPEAK_FAILED_LINE });
    // The Speaker goes on showing the rest as text only (no more requests); without one there is nothing to do.
    if (!this.speaker) { this.stopped = true; this.charge(); }
  }

  private frame(f: ServerFrame): void {
    const text = encodeFrame(f);
    for (const s of this.targets()) s.send(text);
  }

  private audio(pcm: Buffer): void {
    const to = this.targets();
    // The visitor turned sound off or closed the chat: stop paying for speech nobody hears.
    if (!to.length) { this.cancel(); return; }
    const timed = this.timings.get(pcm);
    if (timed) {
      if (timed.sentence !== this.sentence) {
        this.words([], true);
        this.sentence = timed.sentence;
        this.sentenceMs = this.sentBytes / BYTES_PER_MS;
      }
      if (timed.alignment) this.words(this.wordsOf(timed.alignment), false);
    }
    this.sentBytes += pcm.length;
    const frame = audioFrame(pcm);
    for (const s of to) s.send(frame, true);
  }

  /** Complete words of a chunk's characters; a word still being said waits for its end (next chunk or sentence). */
  private wordsOf(a: SpeechAlignment): SpokenWord[] {
    const out: SpokenWord[] = [];
    a.characters.forEach((ch, i) => {
      const start = Math.round(this.sentenceMs + (a.starts[i] ?? 0) * 1000);
      const end = Math.round(this.sentenceMs + (a.ends[i] ?? a.starts[i] ?? 0) * 1000);
      if (/\s/.test(ch)) { if (this.word) out.push(this.word); this.word = null; return; }
      if (this.word) { this.word.text += ch; this.word.endMs = end; } else this.word = { text: ch, startMs: start, endMs: end };
    });
    return out;
  }

  private words(words: SpokenWord[], flush: boolean): void {
    if (flush && this.word) { words.push(this.word); this.word = null; }
    if (words.length) this.frame({ t: 'speak_words', itemId: this.input.messageId, words });
  }
}
