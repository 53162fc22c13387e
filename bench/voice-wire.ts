/**
 * What the voice bench's processes share: the audio format (PCM16 mono 24 kHz, 20 ms frames), the send-time stamp
 * every frame carries in its first PCM bytes, and the hand-written input_audio_buffer.append event. The format and
 * its helpers live in src/loadtest/voice-wire.ts, shared with the capacity test (which ships; the bench does not).
 */
export { APPEND_PREFIX, appendStamp, FRAME_BYTES, FRAME_MS, RATE, spread, toneFrame, wallNow, type Spread } from '../src/loadtest/voice-wire.js';

/** The model the engine asks for (OpenAI's default realtime model). */
export const MODEL = 'gpt-realtime';
export const API_KEY = 'sk-bench';

/** The files the voice benches build for their server process (bench/build.ts buildPrivately): it and what it imports from bench/ and test/. */
export const VOICE_SERVER_ENTRIES = ['bench/voice-server.ts', 'bench/voice-wire.ts', 'bench/seed-bot.ts', 'bench/loop-delay.ts', 'bench/gc-account.ts', 'bench/proc-cpu.ts', 'test/helpers/auth.ts'];
