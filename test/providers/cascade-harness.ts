/**
 * A cascade engine on the fake providers (kinds B, C and D on loopback), every event it emits with its time, and
 * ways to wait for them: shared by the cascade engine tests.
 */
import { test } from 'uvu';
import { CascadeEngine, type CascadeOptions } from '../../src/providers/cascade/engine.js';
import type { CascadeParts } from '../../src/providers/cascade/parts.js';
import { createProvider } from '../../src/providers/index.js';
import type { ProviderAdapter, ProviderKind } from '../../src/providers/types.js';
import type { VoiceEngineEvent, VoiceSessionSpec } from '../../src/providers/voice-engine.js';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import { startFakeSpeech, type FakeSpeech } from '../fakes/speech.js';
import { silentPcm } from '../helpers/spoken.js';

export let openai: FakeOpenAI;
export let speech: FakeSpeech;
export let gemini: FakeGemini;
/** Starts the fakes for the test file (uvu's before/after hooks of `t`). */
export function useFakes(t: typeof test): void {
  t.before(async () => { [openai, speech, gemini] = await Promise.all([startFakeOpenAI(), startFakeSpeech(), startFakeGemini()]); });
  t.after(async () => { await Promise.all([openai.close(), speech.close(), gemini.close()]); });
  t.before.each(() => {
    for (const f of [openai, speech, gemini]) f.speech.reset();
  });
}

export const ORDER_TOOL = { name: 'lookup_order', description: 'Finds an order by its number.', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } };
export const MS_PER_CHAR = 40;
export const bytesFor = (text: string) => Math.round((text.length * MS_PER_CHAR * 24_000) / 1000) * 2;

type Of<T extends VoiceEngineEvent['type']> = Extract<VoiceEngineEvent, { type: T }>;
export type Kind = 'openai' | 'speech' | 'gemini';

export function adapter(kind: Kind): ProviderAdapter {
  const fake = kind === 'openai' ? openai : kind === 'speech' ? speech : gemini;
  return createProvider({ id: `conn_${kind}`, kind: kind as ProviderKind, apiKey: fake.apiKey, baseUrl: fake.baseUrl }, { maxRetries: 0 });
}

/**
 * A cascade engine on the fakes, every event it emits (with when), and ways to wait for them. Speech to text uploads
 * the turn unless `sttModel` names a model that streams (`say` presses and releases push-to-talk at once, before a
 * stream could connect). The fakes are on loopback, so streaming sockets may reach private addresses unless `opts`
 * says otherwise.
 */
export function cascade(o: { stt?: Kind; sttModel?: string; brain?: 'openai' | 'gemini'; tts?: Kind; handsFree?: boolean; spec?: Partial<VoiceSessionSpec>; opts?: CascadeOptions; brainAdapter?: ProviderAdapter } = {}) {
  const brainKind = o.brain ?? 'openai';
  const parts: CascadeParts = {
    stt: { adapter: adapter(o.stt ?? 'openai'), label: `stt ${o.stt ?? 'openai'}`, model: o.sttModel ?? (o.stt === 'speech' ? 'scribe_v1' : 'whisper-1'), language: 'en' },
    brain: { adapter: o.brainAdapter ?? adapter(brainKind), label: `brain ${brainKind}`, model: brainKind === 'gemini' ? 'gemini-2.5-flash' : 'gpt-4o-mini', effort: 'low', temperature: null, maxToolRounds: 3 },
    tts: { adapter: adapter(o.tts ?? 'openai'), label: `tts ${o.tts ?? 'openai'}`, model: '', voice: o.tts === 'gemini' ? 'Kore' : o.tts === 'speech' ? '' : 'nova', speed: 1, style: '' },
  };
  const spec: VoiceSessionSpec = {
    model: 'gpt-4o-mini', voice: '', instructions: 'You are Ada, the shop\'s guide.', tools: [ORDER_TOOL], language: 'en',
    turnDetection: o.handsFree ? { type: 'server_vad', eagerness: 'auto' } : null, bargeIn: true, maxOutputTokens: 2048, history: [], ...o.spec,
  };
  const events: Array<VoiceEngineEvent & { at: number }> = [];
  let react: (e: VoiceEngineEvent) => void = () => {};
  const waiters = new Set<() => void>();
  const engine = new CascadeEngine(parts, spec, (e) => { events.push({ ...e, at: Date.now() }); react(e); for (const w of [...waiters]) w(); }, { timeouts: { sttMs: 2000, brainMs: 2000, ttsMs: 2000 }, allowPrivateNetwork: true, ...o.opts });
  const all = <T extends VoiceEngineEvent['type']>(type: T) => events.filter((e): e is Of<T> & { at: number } => e.type === type);
  const until = <T extends VoiceEngineEvent['type']>(type: T, nth = 1, ms = 8000): Promise<Of<T> & { at: number }> => new Promise((resolve, reject) => {
    const check = () => {
      const found = all(type);
      if (found.length < nth) return;
      waiters.delete(check);
      clearTimeout(timer);
      resolve(found[nth - 1]);
    };
    const timer = setTimeout(() => { waiters.delete(check); reject(new Error(`no ${type} #${nth} within ${ms} ms; events: ${events.map((e) => e.type).join(', ')}`)); }, ms);
    waiters.add(check);
    check();
  });
  /** Answers every tool call at once, as the voice session does once the tool has run. */
  const answerTools = (output: (name: string, args: string) => string) => { react = (e) => { if (e.type === 'tool_call') setTimeout(() => engine.sendToolResult(e.callId, output(e.name, e.arguments)), 10); }; };
  /** Push-to-talk: the visitor holds the button while saying something (the fake's speech to text hears `words`). */
  const say = (words: string) => {
    (o.stt === 'speech' ? speech : openai).speech.hear(words);
    engine.startTurn();
    engine.appendAudio(silentPcm(400));
    engine.commitTurn();
  };
  const kinds = () => events.map((e) => e.type).filter((t) => t !== 'audio');
  const audioBytes = (itemId?: string) => all('audio').filter((a) => !itemId || a.itemId === itemId).reduce((n, a) => n + a.pcm.length, 0);
  return { engine, events, all, until, answerTools, say, kinds, audioBytes, spec };
}

/** Visitor audio in 20 ms frames, as the widget sends it. */
export function feed(engine: CascadeEngine, pcm: Buffer): void {
  for (let off = 0; off < pcm.length; off += 640) engine.appendAudio(pcm.subarray(off, off + 640));
}

