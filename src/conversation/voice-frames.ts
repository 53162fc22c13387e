import { z } from 'zod';

/**
 * The voice part of the widget chat protocol (docs/widget-protocol.md, Voice): JSON control frames beside the
 * chat frames, and binary audio frames whose first byte says what follows.
 */
export const AUDIO_FRAME = 0x01;
/** Longest microphone frame: 100 ms (the widget sends 20 ms). */
export const MAX_AUDIO_FRAME_MS = 100;
/** Microphone frames a second one socket may send (20 ms frames are 50 a second). */
export const AUDIO_FRAMES_PER_SECOND = 100;
/** Frames a socket may send at once after a pause (a network stall delivers frames in a bunch): 5 s of 20 ms. */
export const AUDIO_BURST_FRAMES = 250;

const itemId = z.string().min(1).max(80);

export const VoiceClientFrames = [
  z.strictObject({ t: z.literal('voice_start'), mode: z.enum(['hands_free', 'ptt']).optional() }),
  z.strictObject({ t: z.literal('voice_ptt'), down: z.boolean() }),
  z.strictObject({ t: z.literal('voice_played'), itemId, ms: z.number().min(0).max(7_200_000) }),
  z.strictObject({ t: z.literal('voice_stop') }),
] as const;

export type { VoiceEndReason, VoiceMode, VoiceServerFrame, VoiceState } from '../../protocol/widget.js';

/**
 * Checks a binary frame from the widget: an audio frame of whole PCM16 samples, at most MAX_AUDIO_FRAME_MS long.
 * Returns what is wrong, or null (the PCM is frame[AUDIO_HEADER, end): no object is made for a good frame).
 */
export function audioFrameProblem(frame: Buffer, inputRate: number): string | null {
  if (frame.length < 3) return 'binary frame is empty; send 0x01 followed by PCM16 audio';
  if (frame[0] !== AUDIO_FRAME) return `binary frame type 0x${frame[0].toString(16).padStart(2, '0')} is unknown; audio frames start with 0x01`;
  const bytes = frame.length - AUDIO_HEADER;
  if (bytes % 2) return 'audio frame has an odd number of bytes; send whole PCM16 samples';
  const max = (inputRate * MAX_AUDIO_FRAME_MS / 1000) * 2;
  if (bytes > max) return `audio frame is ${bytes} bytes; at most ${max} (${MAX_AUDIO_FRAME_MS} ms at ${inputRate} Hz) are accepted`;
  return null;
}

/** Bytes before the PCM in an audio frame (its type). */
export const AUDIO_HEADER = 1;

/** The last frame view made over each engine's reused decoding memory (a view: the same bytes whoever asks). */
const framesOver = new WeakMap<ArrayBufferLike, Buffer>();

/**
 * The binary frame carrying the agent's audio to the widget. With `headroom` (a free byte before the PCM, as the
 * engine decoded it) the header is written there and the frame is a view over the same memory; otherwise a copy.
 * `reused`: the engine decodes every chunk into the same memory (a transient audio event).
 */
export function audioFrame(pcm: Buffer, headroom = 0, reused = false): Buffer {
  if (headroom >= 1) {
    // An engine decoding into reused memory hands the same range chunk after chunk: the same view serves.
    const last = reused ? framesOver.get(pcm.buffer) : undefined;
    const frame = last && last.byteOffset === pcm.byteOffset - 1 && last.length === pcm.length + 1 ? last : Buffer.from(pcm.buffer, pcm.byteOffset - 1, pcm.length + 1);
    if (reused && frame !== last) framesOver.set(pcm.buffer, frame);
    frame[0] = AUDIO_FRAME;
    return frame;
  }
  const out = Buffer.allocUnsafe(pcm.length + 1);
  out[0] = AUDIO_FRAME;
  pcm.copy(out, 1);
  return out;
}
