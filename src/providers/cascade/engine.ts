/**
 * Cascade voice (voice.mode cascade) behind the voice engine port: the visitor's audio -> speech to text -> the
 * bot's brain (its own text model, the same tools) -> text to speech, each stage streamed into the next. Turns are
 * found by Silero VAD on the server (hands-free) or by push-to-talk; hands-free, the words heard so far at each pause
 * decide how much quiet ends the turn (end-of-turn.ts), and on a likely end the brain starts answering while the
 * visitor may still go on (its reply held until the turn is over, retracted if they do). Every turn is transcribed, the brain
 * answers it in rounds (tool calls go out as `tool_call` and the round continues once every result is back), its
 * text is spoken sentence by sentence as it is written, and barge-in cancels all of it. The voice session actor
 * relays this engine exactly as it relays the realtime ones.
 */
import { ApiError } from '../../kernel/errors.js';
import { isLastingFailure } from '../errors.js';
import { estimateCostUsd, estimateSpeechCostUsd } from '../prices.js';
import type { ProviderConnection } from '../types.js';
import type { VoiceEngine, VoiceEngineEvent, VoiceEngineListener, VoiceSessionSpec } from '../voice-engine.js';
import { brainRound } from './brain.js';
import { END_OF_TURN_MS, endOfTurnDelay, turnTaking } from './end-of-turn.js';
import { CASCADE_TIMEOUTS, type CascadeParts, type CascadeTimeouts } from './parts.js';
import { Replies, type Reply } from './replies.js';
import { SileroVad, VAD_RATE } from './silero.js';
import { Speaker } from './speaker.js';
import { TurnDetector, type TurnDetectorOptions } from './turn-detector.js';
import { Utterance, type Heard } from './utterance.js';

/** A cascade session's parts, carried where the voice session expects its engine's connection (the brain's). */
export type CascadeConnection = ProviderConnection & { cascade: CascadeParts };

export interface CascadeOptions {
  timeouts?: Partial<CascadeTimeouts>;
  turn?: Partial<TurnDetectorOptions>;
  /** Adaptive end of turn (end-of-turn.ts); false: the old fixed pause. Unset: `turnTaking.adaptive`, read at each turn. */
  adaptive?: boolean;
  /** Streaming speech to text opens its own socket, under the same address policy as every provider call. */
  allowPrivateNetwork?: boolean;
}

/** Push-to-talk shorter than this is not sent to speech to text (as the realtime engines refuse it). */
const MIN_TURN_MS = 100;
/** Push-to-talk audio kept at most (a button held down and forgotten). */
const MAX_PTT_MS = 120_000;
const BYTES_PER_MS = (VAD_RATE * 2) / 1000;

type State = 'idle' | 'connecting' | 'ready' | 'closed';

export class CascadeEngine implements VoiceEngine {
  readonly inputRate = VAD_RATE;
  readonly outputRate = 24_000;
  private state: State = 'idle';
  private readonly timeouts: CascadeTimeouts;
  private detector: TurnDetector | null = null;
  /** The visitor's turn in progress (hands-free: from speech start; push-to-talk: from the press). */
  private utterance: Utterance | null = null;
  /** A reply started on a likely end of the turn in progress, and the words it answers. */
  private speculation: { utterance: Utterance; text: string; reply: Reply } | null = null;
  /** Finished turns whose words are still coming: stopped when the session closes. */
  private readonly transcribing = new Set<Utterance>();
  private readonly speaker: Speaker;
  private readonly replies: Replies;
  /** Speech-to-text and speech costs not yet reported: they ride on the next response_done. */
  private unreportedUsd = 0;
  /** Brain tokens spent on replies that were retracted or stopped mid-round: counted in the next response_done. */
  private readonly unreportedTokens = { inputTokens: 0, outputTokens: 0 };
  private seq = 0;

  constructor(
    private readonly parts: CascadeParts,
    private readonly spec: VoiceSessionSpec,
    private readonly onEvent: VoiceEngineListener,
    private readonly opts: CascadeOptions = {},
  ) {
    this.timeouts = { ...CASCADE_TIMEOUTS, ...opts.timeouts };
    const tts = parts.tts;
    this.speaker = new Speaker(
      { adapter: tts.adapter, label: tts.label, opts: { voice: tts.voice, model: tts.model, speed: tts.speed, style: tts.style || undefined } },
      {
        itemStart: (itemId) => this.deliver({ type: 'agent_item', itemId }),
        words: (itemId, delta) => this.deliver({ type: 'transcript_delta', itemId, delta }),
        audio: (itemId, pcm) => this.deliver({ type: 'audio', itemId, pcm }),
        itemDone: (itemId, text) => this.deliver({ type: 'agent_item_done', itemId, text }),
        failed: (err) => this.deliver({
          type: 'error', fatal: false, message: `text to speech (${tts.label}) failed: ${err.message}`, lasting: isLastingFailure(err),
          stage: 'tts', line: 'The voice is not working right now; the rest of the reply is shown as text.',
        }),
        synthesized: (characters, seconds) => { this.unreportedUsd += estimateSpeechCostUsd(tts.model, { characters, seconds }); },
      },
      this.timeouts.ttsMs,
    );
    this.replies = new Replies(spec, this.speaker, {
      round: (reply, input) => brainRound({ ...input, brain: parts.brain, signal: reply.controller.signal, timeoutMs: this.timeouts.brainMs }),
      newId: (prefix) => this.newId(prefix),
      toolCall: (callId, name, args) => this.deliver({ type: 'tool_call', callId, name, arguments: args }),
      failed: (err) => this.deliver({
        type: 'error', fatal: false, message: `the brain (${parts.brain.label}) failed: ${err.message}`, lasting: isLastingFailure(err),
        stage: 'brain', line: 'Sorry, I could not answer that just now. Please say it again, or type your message.',
      }),
      done: (reply, status) => this.responseDone(reply, status),
      spent: (tokens) => { this.unreportedTokens.inputTokens += tokens.inputTokens; this.unreportedTokens.outputTokens += tokens.outputTokens; },
      maxToolRounds: parts.brain.maxToolRounds,
    });
  }

  async connect(): Promise<void> {
    if (this.state !== 'idle') throw new ApiError('internal', 500, 'this voice engine was already connected; start a new one');
    this.state = 'connecting';
    const { stt, brain, tts } = this.parts;
    try {
      if (!stt.adapter.transcribe) throw new ApiError('invalid', 422, `voice.cascade.stt.connectionId: ${stt.label} cannot transcribe speech; choose an OpenAI or speech provider connection`);
      if (!brain.adapter.chat) throw new ApiError('invalid', 422, `brain.connectionId: ${brain.label} cannot write replies`);
      if (!tts.adapter.synthesizeStream) throw new ApiError('invalid', 422, `voice.cascade.tts.connectionId: ${tts.label} cannot speak; choose a speech provider, OpenAI or Google Gemini connection`);
      if (!tts.voice && tts.adapter.kind === 'speech') this.speaker.voice = await this.firstVoice();
      if (this.spec.turnDetection) {
        const vad = await SileroVad.shared().catch((err: Error) => {
          throw new ApiError('internal', 500, `voice activity detection could not start (${err.message}); use push-to-talk, or check the server's install`);
        });
        this.detector = new TurnDetector(vad, {
          onSpeechStart: () => this.speechStarted(),
          onTurn: (pcm) => this.turnOver(pcm.length),
          onTurnAudio: (pcm) => this.utterance?.audio(pcm),
          onPause: () => this.paused(),
          onResume: () => this.resumed(),
          onDropped: () => this.dropUtterance(),
          onError: (err) => this.fail(`voice activity detection failed: ${err.message}`),
        }, this.opts.turn);
      }
    } catch (err) {
      this.state = 'closed';
      throw err instanceof ApiError ? err : new ApiError('internal', 502, `cascade voice could not start: ${(err as Error).message}`);
    }
    // close() came while the voice list or the model was loading.
    if (this.state !== 'connecting') throw new ApiError('internal', 500, 'the voice session was closed before it was ready');
    this.state = 'ready';
    this.deliver({ type: 'ready' });
  }

  appendAudio(pcm: Buffer): void {
    if (this.state !== 'ready') return;
    if (this.detector) { this.detector.push(pcm); return; }
    const u = this.utterance ??= this.newUtterance(false);
    if (u.length + pcm.length > MAX_PTT_MS * BYTES_PER_MS) return;
    u.audio(Buffer.from(pcm));
  }

  startTurn(): void {
    // Push-to-talk always interrupts.
    this.replies.cancel('push-to-talk');
    this.detector?.reset();
    this.dropUtterance();
    // Push-to-talk streams too: the held button's audio goes to speech to text as it comes.
    if (!this.detector && this.state === 'ready') this.utterance = this.newUtterance(false);
  }

  commitTurn(): void {
    if (this.state !== 'ready') return;
    const bytes = this.utterance?.length ?? 0;
    if (bytes < MIN_TURN_MS * BYTES_PER_MS) {
      this.dropUtterance();
      this.deliver({ type: 'error', fatal: false, message: 'push-to-talk was released after less than 100 ms of audio; nothing was sent, hold the button while speaking' });
      return;
    }
    this.turnOver(bytes);
  }

  sendText(text: string): void {
    if (this.state !== 'ready') return;
    this.replies.ask({ role: 'user', content: text });
  }

  respond(instructions?: string): void {
    if (this.state !== 'ready') return;
    // Kept in the brain's history as the turn it answers (providers want a user turn before a reply).
    this.replies.ask({ role: 'user', content: `[The visitor started a voice conversation.${instructions ? ` Instruction: ${instructions}` : ''}]` });
  }

  sendToolResult(callId: string, output: string): void {
    this.replies.toolResult(callId, output);
  }

  interrupt(itemId: string | null, playedMs: number): void {
    this.replies.interrupt(itemId, playedMs);
  }

  close(): void {
    if (this.state === 'closed') return;
    const was = this.state;
    this.state = 'closed';
    this.replies.cancel('closed', true);
    for (const u of this.transcribing) u.close();
    this.detector?.reset();
    this.dropUtterance();
    if (was === 'ready') this.onEvent({ type: 'closed', reason: 'closed' });
  }

  private speechStarted(): void {
    this.deliver({ type: 'speech_started' });
    if (this.spec.bargeIn) this.replies.cancel('the visitor spoke');
    // The turn's audio goes to speech to text as it is heard; the detector sends what it kept so far next.
    this.dropUtterance();
    this.utterance = this.newUtterance(this.opts.adaptive ?? turnTaking.adaptive);
  }

  private newUtterance(adaptive: boolean): Utterance {
    const { stt } = this.parts;
    return new Utterance(stt, {
      allowPrivateNetwork: this.opts.allowPrivateNetwork ?? false,
      sttMs: this.timeouts.sttMs,
      heardSeconds: (seconds) => { this.unreportedUsd += estimateSpeechCostUsd(stt.model, { seconds }); },
      streamBroke: (message) => this.deliver({ type: 'error', fatal: false, stage: 'stt', message: `streaming speech to text (${stt.label}) broke, so its audio was uploaded instead: ${message}` }),
    }, adaptive);
  }

  /** The turn in progress ends without a turn (a noise, push-to-talk pressed again, the session ending). */
  private dropUtterance(): void {
    this.retract();
    this.utterance?.close();
    this.utterance = null;
  }

  /**
   * The visitor paused: the words so far set how much quiet ends the turn, and on a likely end (a finished question
   * or sentence) the brain starts on them while the visitor may still go on.
   */
  private paused(): void {
    const u = this.utterance;
    if (!u?.adaptive) return;
    const pause = u.pauses;
    void u.commit().then((heard) => {
      if (this.utterance !== u || u.pauses !== pause || this.state !== 'ready') return;
      const delay = heard.err ? END_OF_TURN_MS.middle : endOfTurnDelay(heard.text, this.spec.language ?? this.parts.stt.language);
      this.detector?.endAfter(delay);
      // Only a finished question or sentence is a likely end: the brain starts on it.
      if (heard.err || !heard.text || delay > END_OF_TURN_MS.statement) return;
      const reply = this.replies.speculate({ role: 'user', content: heard.text });
      if (reply) this.speculation = { utterance: u, text: heard.text, reply };
    });
  }

  /** The visitor goes on after a pause: a reply started on it is retracted, and the next words are a new segment. */
  private resumed(): void {
    const u = this.utterance;
    if (!u) return;
    u.spoke = true;
    u.pauses++;
    this.retract();
  }

  private retract(): void {
    const s = this.speculation;
    this.speculation = null;
    if (s) this.replies.retract(s.reply);
  }

  /** A finished turn (its audio the first `bytes` heard): announced, and answered once its words are known. */
  private turnOver(bytes: number): void {
    const u = this.utterance;
    this.utterance = null;
    if (!u) return;
    const itemId = this.newId('turn');
    if (this.detector) this.deliver({ type: 'speech_stopped' });
    this.deliver({ type: 'user_turn', itemId });
    const s = this.speculation;
    this.speculation = null;
    if (s && s.utterance === u && !u.spoke) {
      // Nothing was said after the words the speculative reply answers: it is the reply.
      u.close();
      this.deliver({ type: 'user_transcript', itemId, text: s.text });
      this.replies.confirm(s.reply);
      return;
    }
    if (s) this.replies.retract(s.reply);
    this.transcribing.add(u);
    void u.finish(bytes).then((heard) => {
      this.transcribing.delete(u);
      if (this.state === 'ready') this.answer(itemId, heard);
    });
  }

  private answer(itemId: string, { text, err }: Heard): void {
    const { stt } = this.parts;
    this.deliver({ type: 'user_transcript', itemId, text });
    if (err) {
      this.deliver({
        type: 'error', fatal: false, message: `speech to text (${stt.label}) failed: ${err.message}`, lasting: isLastingFailure(err),
        stage: 'stt', line: 'Sorry, I could not make out what you said. Please say it again, or type your message.',
      });
    }
    if (text) this.replies.ask({ role: 'user', content: text });
    // Nothing to answer: the turn still ends (the session goes back to listening, its cost is counted).
    else if (!this.replies.busy) this.responseDone(null, err ? 'failed' : 'completed');
  }

  private responseDone(reply: Reply | null, status: 'completed' | 'cancelled' | 'failed'): void {
    const own = reply?.tokens ?? { inputTokens: 0, outputTokens: 0 };
    const tokens = { inputTokens: own.inputTokens + this.unreportedTokens.inputTokens, outputTokens: own.outputTokens + this.unreportedTokens.outputTokens };
    this.unreportedTokens.inputTokens = this.unreportedTokens.outputTokens = 0;
    const costUsd = estimateCostUsd(this.parts.brain.model, tokens) + this.unreportedUsd;
    this.unreportedUsd = 0;
    this.deliver({
      type: 'response_done', status,
      usage: { inputTextTokens: tokens.inputTokens, outputTextTokens: tokens.outputTokens, inputAudioTokens: 0, outputAudioTokens: 0, costUsd },
    });
  }

  private async firstVoice(): Promise<string> {
    const voices = await this.parts.tts.adapter.listVoices!();
    if (!voices.length) throw new ApiError('invalid', 422, `voice.cascade.tts.voice: ${this.parts.tts.label} lists no voices; choose one there, then here`);
    return voices[0].id;
  }

  private fail(message: string): void {
    if (this.state !== 'ready') return;
    this.deliver({ type: 'error', fatal: true, message });
    this.close();
  }

  private newId(prefix: string): string {
    return `${prefix}_${Date.now().toString(36)}${(++this.seq).toString(36)}`;
  }

  /** A listener that throws would leave the session out of step, so it ends the session (as the realtime engines do). */
  private deliver(e: VoiceEngineEvent): void {
    if (this.state === 'closed') return;
    try {
      this.onEvent(e);
    } catch (err) {
      this.state = 'closed';
      this.replies.cancel('closed', true);
      try {
        this.onEvent({ type: 'closed', reason: `the voice session stopped: ${(err as Error)?.message ?? String(err)}` });
      } catch { /* the listener already failed once */ }
    }
  }
}
