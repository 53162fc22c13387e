/**
 * Scenario set-up for voice: the real server, a fake provider with its realtime endpoint (OpenAI Realtime or
 * Gemini Live), a published bot with voice on, and scripted widgets that speak PCM16 audio on the chat socket.
 */
import type { BotConfigInput } from '../../src/bots/config/index.js';
import type { Clock } from '../../src/kernel/clock.js';
import { startChatWorld, type ChatWorld, type Visitor } from '../chat/helpers.js';
import { until } from '../helpers/until.js';

export type VoiceKind = 'openai' | 'gemini';
export const RATES: Record<VoiceKind, { input: number; output: number }> = { openai: { input: 24_000, output: 24_000 }, gemini: { input: 16_000, output: 24_000 } };

/** A chat world whose bot has voice on (realtime, through the brain's connection). */
export async function startVoiceWorld(opts: {
  kind?: VoiceKind; voice?: Record<string, unknown>; config?: BotConfigInput; clock?: Clock; env?: Record<string, string>; identitySecret?: string;
} = {}): Promise<ChatWorld> {
  const config = { ...(opts.config ?? {}), voice: { enabled: true, mode: 'realtime', ...(opts.voice ?? {}) } } as BotConfigInput;
  return startChatWorld({ kind: opts.kind ?? 'openai', config, clock: opts.clock, env: opts.env, identitySecret: opts.identitySecret });
}

/** PCM16 mono: a tone loud enough for the fakes' energy detection (speech), or silence. */
export function tone(ms: number, rate: number, amplitude = 8000): Buffer {
  const n = Math.round((rate * ms) / 1000);
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * 220 * i) / rate)), i * 2);
  return b;
}
export const silence = (ms: number, rate: number) => Buffer.alloc(Math.round((rate * ms) / 1000) * 2);

/** Sends PCM as 20 ms audio frames (0x01 + PCM16), as the widget does. */
export function sendAudio(v: Visitor, pcm: Buffer, rate: number): void {
  const step = (rate / 50) * 2;
  for (let i = 0; i < pcm.length; i += step) v.ws.send(Buffer.concat([Buffer.from([0x01]), pcm.subarray(i, i + step)]));
}

/** Speech then enough silence for the engine to end the turn. */
export function speak(v: Visitor, rate: number, ms = 600): void {
  sendAudio(v, Buffer.concat([tone(ms, rate), silence(700, rate)]), rate);
}

/** Starts voice and waits until the session listens; returns its `voice` frame. */
export async function startVoice(v: Visitor, mode?: 'hands_free' | 'ptt'): Promise<any> {
  v.send({ t: 'voice_start', ...(mode ? { mode } : {}) });
  return v.next('voice', (f) => f.state === 'listening' || f.state === 'ended', 10_000);
}

/** Audio bytes (PCM, without the 0x01 byte) the widget received so far. */
export const audioBytes = (v: Visitor) => v.audio.reduce((n, b) => n + b.length - 1, 0);

export { until };

/** The first frame (anywhere in the socket's history) that matches, once it has arrived. */
export async function seen(v: Visitor, t: string, pred: (f: any) => boolean = () => true, ms = 5000): Promise<any> {
  let found: any;
  await until(() => !!(found = v.frames.find((f) => f.t === t && pred(f))), { timeout: ms, message: `a ${t} frame` });
  return found;
}
