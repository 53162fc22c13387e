import { z } from 'zod';
import type { ClientFrame, ServerFrame } from '../../protocol/widget.js';
import type { SchemaMatches } from '../kernel/validation.js';
import { VoiceClientFrames } from './voice-frames.js';
import { CameraClientFrames } from './camera-frames.js';

/**
 * The widget chat socket protocol (docs/widget-protocol.md): JSON text frames, each an object with `t`. The frame
 * types are protocol/widget.ts (the widget reads the same ones); client frames are validated here, by a schema the
 * compiler checks against ClientFrame; a bad frame gets an `error` frame naming the problem and is dropped.
 */
export const MAX_FRAME_BYTES = 96 * 1024;
/**
 * The largest frame the socket takes: above MAX_FRAME_BYTES, so a frame that is too large gets an error frame (the
 * socket stays open) instead of a bare close. Past it, up to twice it, an error frame and close 4413 (src/http/sockets.ts).
 */
export const MAX_SOCKET_PAYLOAD_BYTES = 1024 * 1024;

const id = z.string().min(1).max(80);

export const ClientFrameSchema = z.discriminatedUnion('t', [
  z.strictObject({
    t: z.literal('message'),
    /** Length is checked against security.maxMessageChars by the conversation, so the error can name the limit. */
    text: z.string().max(40_000),
    attachments: z.array(id).max(10).optional(),
    /** The widget's own id for the message, echoed back on the stored message so it can replace its draft. */
    clientId: z.string().max(80).optional(),
  }),
  z.strictObject({ t: z.literal('typing'), active: z.boolean() }),
  z.strictObject({ t: z.literal('feedback'), messageId: id, value: z.union([z.literal(1), z.literal(-1)]) }),
  z.strictObject({ t: z.literal('csat'), value: z.int().min(1).max(5), comment: z.string().max(2000).optional() }),
  z.strictObject({ t: z.literal('new_conversation') }),
  /** The tools the page registered (replaces earlier ones); used only when tools.client allows them. */
  z.strictObject({
    t: z.literal('tools'),
    tools: z.array(z.strictObject({ name: z.string().min(1).max(64), description: z.string().max(1024), parameters: z.record(z.string(), z.unknown()) })).max(50),
  }),
  /** The visitor asks for a person (chat menu), when behavior.handoff.enabled. */
  z.strictObject({ t: z.literal('handoff'), reason: z.string().max(500).optional() }),
  /** The visitor sends the lead form the server showed (lead_form). */
  z.strictObject({ t: z.literal('lead'), fields: z.record(z.string().max(32), z.string().max(2000)) }),
  /** The page's answer to a tool_call frame. */
  z.strictObject({ t: z.literal('tool_result'), callId: id, content: z.string().max(200_000), isError: z.boolean().optional() }),
  /** The visitor's answer to a confirm frame (run a destructive tool or not). */
  z.strictObject({ t: z.literal('confirm'), confirmId: id, approved: z.boolean() }),
  z.strictObject({ t: z.literal('ping') }),
  /** Read replies aloud to this widget (appearance.face.textReplies speak), sent once the visitor has clicked or typed. */
  z.strictObject({ t: z.literal('speak'), on: z.boolean() }),
  ...VoiceClientFrames,
  ...CameraClientFrames,
]);

export type { ChatErrorCode, ClientFrame, ServerFrame, ServerFrameOf } from '../../protocol/widget.js';

/** The schema reads exactly the frames the widget sends (protocol/widget.ts). */
const schemaMatchesClientFrame: SchemaMatches<z.infer<typeof ClientFrameSchema>, ClientFrame> = true;
void schemaMatchesClientFrame;

/** Parses one frame; returns the frame or a clear error (never throws). */
export function decodeClientFrame(raw: string | Buffer, isBinary: boolean): { ok: true; frame: ClientFrame } | { ok: false; message: string } {
  if (isBinary) return { ok: false, message: 'binary frames are audio and are accepted only during a voice session (send voice_start first)' };
  const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  if (size > MAX_FRAME_BYTES) {
    const camera = (typeof raw === 'string' ? raw.slice(0, 40) : raw.subarray(0, 40).toString('utf8')).includes('"camera_frame"');
    return { ok: false, message: camera ? `camera frame is ${size} bytes; at most ${MAX_FRAME_BYTES} are accepted (send a smaller or more compressed picture)` : `frame is ${size} bytes; at most ${MAX_FRAME_BYTES} are accepted` };
  }
  let value: unknown;
  try { value = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8')); } catch { return { ok: false, message: 'frame is not valid JSON' }; }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, message: 'frame must be a JSON object with a "t" field' };
  const r = ClientFrameSchema.safeParse(value);
  if (r.success) return { ok: true, frame: r.data };
  const i = r.error.issues[0];
  const path = i.path.map(String).join('.');
  return { ok: false, message: path ? `${path}: ${i.message}` : i.message };
}

export const encodeFrame = (f: ServerFrame): string => JSON.stringify(f);
