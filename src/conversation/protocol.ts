import { z } from 'zod';
import type { WidgetMessage } from '../records/conversations.js';
import type { LeadFormFrame } from '../leads/form.js';
import { VoiceClientFrames, type VoiceServerFrame } from './voice-frames.js';
import { CameraClientFrames, type CameraServerFrame } from './camera-frames.js';

/**
 * The widget chat socket protocol (docs/widget-protocol.md): JSON text frames, each an object with `t`.
 * Client frames are validated here; a bad frame gets an `error` frame naming the problem and is dropped.
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
export type ClientFrame = z.infer<typeof ClientFrameSchema>;

export type ChatErrorCode = 'bad_request' | 'unauthorized' | 'invalid' | 'rate_limited' | 'session_limit' | 'not_found' | 'forbidden' | 'internal' | 'unavailable' | 'insufficient_storage';

export type ServerFrame =
  | {
      t: 'ready';
      visitorId: string;
      visitorToken: string;
      verified: boolean;
      conversationId: string | null;
      /** Earlier visible messages of a resumed conversation (empty when behavior.persistence.showHistory is off). */
      history: WidgetMessage[];
      /** The rendered welcome message and suggested prompts (shown until the visitor sends a message). */
      welcome: { message: string; suggestedPrompts: string[] };
      feedback: { thumbs: boolean; csat: boolean };
      /** The bot is outside its opening hours with behavior.hours.scope bot (the face sleeps); `offline` frames follow changes. */
      offline: boolean;
      /**
       * The bot is paused: the chat takes no messages (they are refused with an error frame); the widget shows the
       * offline text and, when lead capture is on, the lead form that follows (reason offline). Absent when running.
       */
      paused?: true;
    }
  /** The bot's opening hours (scope bot) opened or closed while the widget is open. */
  | { t: 'offline'; offline: boolean }
  | { t: 'conversation'; conversationId: string | null }
  | { t: 'message'; conversationId: string; message: WidgetMessage; clientId?: string }
  | { t: 'delta'; conversationId: string; messageId: string; responseId: string; delta: string }
  /** The reply being streamed was dropped (a team member took over, or the model failed). */
  | { t: 'delta_reset'; conversationId: string; messageId: string }
  /** The reply being streamed will not be finished and was not stored (the process writing it died or froze). */
  | { t: 'interrupted'; conversationId: string; messageId: string }
  | { t: 'status'; conversationId: string; state: 'thinking' | 'tool' | 'idle'; tool?: { name: string; label: string } }
  | { t: 'face'; mood: string }
  | { t: 'typing'; active: boolean; authorName?: string | null }
  | { t: 'ended'; conversationId: string; reason: string; askCsat: boolean }
  | { t: 'feedback_ok'; kind: 'thumb' | 'csat'; messageId: string | null; value: number }
  | { t: 'error'; code: ChatErrorCode; message: string; retryAfterMs?: number; clientId?: string; /** a cascade voice stage that failed mid-turn */ stage?: 'stt' | 'brain' | 'tts';
      /** voice_start refused because the visitor's or the address's voice sessions at once are all live */ limit?: 'visitor' | 'address' }
  /** Run a page tool in the browser; answer with tool_result and the same callId. */
  | { t: 'tool_call'; callId: string; name: string; args: Record<string, unknown> }
  /** Ask the visitor before a destructive tool runs; answer with confirm and the same confirmId. */
  | { t: 'confirm'; confirmId: string; tool: { name: string; label: string }; args: Record<string, unknown> }
  /** Show the lead form (leadCapture.when start / before_handoff, or an offline flow); answer with a lead frame. */
  | LeadFormFrame
  | { t: 'lead_ok'; leadId: string }
  /** The visitor's handoff request was taken: `available` tells whether a person may join soon. */
  | { t: 'handoff'; handoffId: string; available: boolean }
  | { t: 'pong' }
  /** A reply is read aloud (speak on): binary audio frames (0x01 + PCM16 at `rate`) for it follow, then speak_end. */
  | { t: 'speak_item'; itemId: string; messageId: string; rate: number }
  | { t: 'speak_end'; itemId: string }
  /** Words of the item and when they are heard (ms from its first audio), where the provider times them (kind D). */
  | { t: 'speak_words'; itemId: string; words: Array<{ text: string; startMs: number; endMs: number }> }
  /** Reading a reply aloud failed; the text is unaffected. */
  | { t: 'speak_error'; messageId: string; message: string }
  | VoiceServerFrame
  | CameraServerFrame;

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
