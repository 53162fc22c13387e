/**
 * One conversation socket of the fake hosted agent: conversation_initiation_client_data (overrides checked against
 * what the agent allows), the metadata answer, pings, the visitor's audio with turn detection by energy (in audio
 * time), scripted transcripts and replies (a quiet tone, ~60 ms a character, in ~100 ms chunks, after the
 * agent_response text), client tool calls that wait for their results, interruption when the visitor speaks over
 * a reply (with the correction of what was said), user messages and contextual updates. Everything the client
 * sent is recorded (audio chunks only counted).
 */
import type { WebSocket } from 'ws';
import type { FakeAgent } from './hosted-agent.js';
import { EnergyVad, tone } from './realtime-audio.js';
import { argsText, turnChunks, type HandlerContext, type ScriptedTurn } from './script.js';

export interface AgentConversationRecord {
  agentId: string;
  /** The conversation_initiation_client_data message, when one came first. */
  initiation: any | null;
  /** The prompt, first message and language in effect (the agent's, with the overrides applied). */
  prompt: string;
  firstMessage: string;
  language: string;
  /** Client messages in order; consecutive audio chunks are merged into one record with `chunks` and `bytes`. */
  received: Array<{ type: string; message?: any; chunks?: number; bytes?: number }>;
  contextualUpdates: string[];
  toolResults: Array<{ tool_call_id: string; result: string; is_error: boolean }>;
  pings: number;
  pongs: number[];
  /** What was said, as the agent keeps it (an interrupted reply as corrected). */
  transcript: Array<{ role: 'user' | 'agent'; text: string }>;
  interruptions: number;
  open: boolean;
  closeCode: number | null;
}

export interface AgentSessionHooks {
  chunkIntervalMs(): number;
  pingIntervalMs(): number;
  /** The next scripted transcription: a string, null (nothing intelligible), undefined (nothing queued). */
  nextHeard(): string | null | undefined;
}

const MS_PER_CHAR = 60;
const CHUNK_MS = 100;
const MAX_REPLY_MS = 30_000;
const rateOf = (format: string | undefined, fallback: number) => Number(/^pcm_(\d+)$/.exec(format ?? '')?.[1] ?? fallback);

interface Speaking { eventId: number; text: string; sentMs: number; totalMs: number; cut: boolean }

export class AgentSession {
  readonly record: AgentConversationRecord;
  private readonly vad: EnergyVad;
  private readonly inputRate: number;
  private readonly outputRate: number;
  private readonly interrupts: boolean;
  private started = false;
  private eventSeq = 0;
  private speaking: Speaking | null = null;
  /** A reply (or its tool calls) is under way; `gen` tells an answer that was cut from the current one. */
  private busy = false;
  private gen = 0;
  private readonly waiting = new Map<string, (result: string) => void>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private ping: NodeJS.Timeout | null = null;

  constructor(private readonly ws: WebSocket, private readonly agent: FakeAgent, private readonly ctx: HandlerContext, private readonly hooks: AgentSessionHooks) {
    const cc = agent.conversation_config;
    this.inputRate = rateOf(cc.asr?.user_input_audio_format, 16_000);
    this.outputRate = rateOf(cc.tts?.agent_output_audio_format, 16_000);
    this.interrupts = (cc.conversation?.client_events ?? ['interruption']).includes('interruption');
    this.vad = new EnergyVad(this.inputRate);
    this.record = {
      agentId: agent.agent_id, initiation: null, prompt: cc.agent?.prompt?.prompt ?? '', firstMessage: cc.agent?.first_message ?? '', language: cc.agent?.language ?? 'en',
      received: [], contextualUpdates: [], toolResults: [], pings: 0, pongs: [], transcript: [], interruptions: 0, open: true, closeCode: null,
    };
    ws.on('message', (data, isBinary) => this.onMessage(isBinary ? null : data.toString()));
  }

  private send(m: Record<string, unknown>): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(m));
  }

  private onMessage(text: string | null): void {
    let m: any;
    try { m = JSON.parse(text ?? ''); } catch { this.ws.close(1003, 'Invalid message: expected JSON'); return; }
    const type: string = typeof m?.user_audio_chunk === 'string' ? 'user_audio_chunk' : String(m?.type ?? 'unknown');
    const pcm = type === 'user_audio_chunk' ? Buffer.from(m.user_audio_chunk, 'base64') : null;
    const last = this.record.received.at(-1);
    if (pcm && last?.type === type) { last.chunks! += 1; last.bytes! += pcm.length; } else this.record.received.push(pcm ? { type, chunks: 1, bytes: pcm.length } : { type, message: m });
    if (!this.started) this.start(type === 'conversation_initiation_client_data' ? m : null);
    switch (type) {
      case 'conversation_initiation_client_data': return;
      case 'user_audio_chunk': return this.audio(pcm!);
      case 'pong': this.record.pongs.push(m.event_id); return;
      case 'user_message':
        this.record.transcript.push({ role: 'user', text: String(m.text ?? '') });
        void this.answer(this.ctx.nextTurn({ role: 'user', text: String(m.text ?? '') }));
        return;
      case 'contextual_update': this.record.contextualUpdates.push(String(m.text ?? '')); return;
      case 'client_tool_result': {
        this.record.toolResults.push({ tool_call_id: m.tool_call_id, result: String(m.result ?? ''), is_error: !!m.is_error });
        const resolve = this.waiting.get(m.tool_call_id);
        this.waiting.delete(m.tool_call_id);
        resolve?.(String(m.result ?? ''));
        return;
      }
      case 'user_activity': return;
      default: this.send({ type: 'error', error_event: { message: `Unknown message type: ${type}` } });
    }
  }

  /** The first message opens the conversation: overrides the agent allows are applied, others refused (1008). */
  private start(initiation: any | null): void {
    this.started = true;
    this.record.initiation = initiation;
    const over = initiation?.conversation_config_override?.agent ?? {};
    const allowed = this.agent.platform_settings?.overrides?.conversation_config_override?.agent ?? {};
    const asked: Array<[string, boolean]> = [['prompt', over.prompt?.prompt !== undefined], ['first_message', over.first_message !== undefined], ['language', over.language !== undefined]];
    for (const [field, present] of asked) {
      const ok = field === 'prompt' ? allowed.prompt?.prompt === true : allowed[field] === true;
      if (present && !ok) { this.ws.close(1008, `Override for field '${field}' is not allowed by config.`); return; }
    }
    if (over.prompt?.prompt !== undefined) this.record.prompt = over.prompt.prompt;
    if (over.first_message !== undefined) this.record.firstMessage = over.first_message;
    if (over.language !== undefined) this.record.language = over.language;
    const cc = this.agent.conversation_config;
    this.send({
      type: 'conversation_initiation_metadata',
      conversation_initiation_metadata_event: {
        conversation_id: `conv_fake${Date.now()}`, agent_output_audio_format: cc.tts?.agent_output_audio_format ?? 'pcm_16000', user_input_audio_format: cc.asr?.user_input_audio_format ?? 'pcm_16000',
      },
    });
    this.ping = setInterval(() => { this.record.pings++; this.send({ type: 'ping', ping_event: { event_id: this.record.pings, ping_ms: this.record.pings === 1 ? null : 20 } }); }, this.hooks.pingIntervalMs());
    if (this.record.firstMessage) void this.answer({ text: this.record.firstMessage });
  }

  private audio(pcm: Buffer): void {
    for (const e of this.vad.feed(pcm)) {
      if (e.type === 'start') {
        if (this.speaking && this.interrupts) this.cut();
        continue;
      }
      const heard = this.hooks.nextHeard();
      const text = heard === undefined ? `(speech, ${Math.round(e.speechMs)} ms)` : heard ?? '';
      this.send({ type: 'user_transcript', user_transcription_event: { user_transcript: text } });
      if (!text) continue;
      this.record.transcript.push({ role: 'user', text });
      if (!this.busy) void this.answer(this.ctx.nextTurn({ role: 'user', text }));
    }
  }

  /** The visitor spoke over the reply: it stops, and the agent keeps only the words said so far. */
  private cut(): void {
    const s = this.speaking!;
    s.cut = true;
    this.speaking = null;
    this.busy = false;
    this.record.interruptions++;
    this.send({ type: 'interruption', interruption_event: { event_id: s.eventId } });
    const words = s.text.split(' ');
    const corrected = words.slice(0, Math.floor((words.length * s.sentMs) / s.totalMs)).join(' ');
    this.send({ type: 'agent_response_correction', agent_response_correction_event: { original_agent_response: s.text, corrected_agent_response: corrected } });
    const last = [...this.record.transcript].reverse().find((t) => t.role === 'agent');
    if (last) last.text = corrected;
  }

  /** A reply and, while it calls tools, the replies that follow their results. */
  private async answer(first: ScriptedTurn): Promise<void> {
    const gen = ++this.gen;
    this.busy = true;
    try {
      for (let turn: ScriptedTurn | null = first; turn && this.record.open;) {
        if (turn.delayMs && !(await this.sleep(turn.delayMs))) return;
        if (turn.error) { this.ws.close(1011, turn.error.message ?? `scripted error ${turn.error.status}`); return; }
        const text = turnChunks(turn).join('');
        if (text && !(await this.speak(text))) return;
        const calls: NonNullable<ScriptedTurn['toolCalls']> = turn.toolCalls ?? [];
        if (!calls.length) return;
        const results: string[] = await Promise.all(calls.map((c, i) => new Promise<string>((resolve) => {
          const id = c.id ?? `toolu_fake${this.eventSeq}_${i}`;
          this.waiting.set(id, resolve);
          const parameters = typeof c.arguments === 'string' ? JSON.parse(argsText(c.arguments) || '{}') : c.arguments;
          this.send({ type: 'client_tool_call', client_tool_call: { tool_name: c.name, tool_call_id: id, parameters } });
        })));
        turn = this.record.open ? this.ctx.nextTurn({ role: 'tool', text: results.join('\n') }) : null;
      }
    } finally {
      if (gen === this.gen) this.busy = false;
    }
  }

  /** Streams one spoken reply; false when it was cut or the socket closed meanwhile. */
  private async speak(text: string): Promise<boolean> {
    const s: Speaking = { eventId: ++this.eventSeq, text, sentMs: 0, totalMs: Math.min(MAX_REPLY_MS, Math.max(CHUNK_MS, text.length * MS_PER_CHAR)), cut: false };
    this.speaking = s;
    this.record.transcript.push({ role: 'agent', text });
    this.send({ type: 'agent_response', agent_response_event: { agent_response: text, event_id: s.eventId } });
    let samples = 0;
    while (s.sentMs < s.totalMs && !s.cut) {
      const ms = Math.min(CHUNK_MS, s.totalMs - s.sentMs);
      const pcm = tone(ms, 220, 1500, this.outputRate, samples);
      samples += pcm.length / 2;
      s.sentMs += ms;
      this.send({ type: 'audio', audio_event: { audio_base_64: pcm.toString('base64'), event_id: s.eventId } });
      if (!(await this.sleep(this.hooks.chunkIntervalMs()))) return false;
    }
    if (s.cut) return false;
    this.speaking = null;
    return true;
  }

  private sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const t = setTimeout(() => { this.timers.delete(t); resolve(this.record.open); }, ms);
      this.timers.add(t);
    });
  }

  closed(code: number): void {
    if (!this.record.open) return;
    this.record.open = false;
    this.record.closeCode = code;
    if (this.ping) clearInterval(this.ping);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const resolve of this.waiting.values()) resolve('');
    this.waiting.clear();
  }
}
