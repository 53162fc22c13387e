/**
 * The visitor's camera (bot-config.md, vision.webcam): which bots offer it, the camera state each widget socket
 * reported, and the frames it sends. A frame is checked (camera on, rate, size, width, a real picture), stored as
 * an attachment of the conversation and marked with what the bot promised about it at that moment (kept or
 * deleted after the conversation, shared with the team or not). Engines that cannot see get it in words from the
 * vision proxy.
 */
import type { AppContext } from '../app/context.js';
import type { BotConfig } from '../bots/config/index.js';
import { newId } from '../store/ids.js';
import { isImageTooLarge, sniffImageType } from '../../workers/image-types.js';
import { runTask } from '../../workers/pool.js';
import type { ChatBot } from '../bots/bot-source.js';
import { type AttachmentRecord } from '../records/conversations.js';
import { describeImageWith, visionProxy } from './vision-proxy.js';

/** per_turn frames are held to one every two seconds, continuous to one a second (bot-config.md). */
export const MODE_MAX_FPS = { per_turn: 0.5, continuous: 1, on_demand: 1 } as const;
/** The widget encodes frames small enough for one socket frame (MAX_FRAME_BYTES); the bytes after base64. */
export const MAX_CAMERA_FRAME_BYTES = 70 * 1024;
/** A little slack on the frame rate: timers in the browser fire a few milliseconds early. */
const RATE_SLACK_MS = 100;

export type CameraState = 'on' | 'off' | 'denied' | 'failed';

/** The camera as one socket reported it. */
export interface SocketCamera {
  state: CameraState;
  /** When this socket's last accepted frame arrived (for maxFps). */
  lastFrameAt: number;
  /** A frame sent for the next message (per_turn): attached to it, then cleared. */
  pendingFrame: string | null;
  /** The conversation this socket's camera is linked to for look_at_camera (camera-tool.ts). */
  linkedTo: string | null;
}

export interface CameraSettings {
  mode: 'per_turn' | 'continuous' | 'on_demand';
  /** The effective rate: maxFps held to the mode's ceiling. */
  maxFps: number;
  maxWidth: number;
  /** The brain sees pictures itself; otherwise the vision proxy describes them. */
  brainSees: boolean;
}

/**
 * The camera this bot offers, or null: vision.webcam.enabled, and a brain that can see pictures or a vision
 * proxy set up explicitly to describe them (an unset proxy falls back to the brain, which cannot).
 */
export function cameraSettings(chat: Pick<ChatBot, 'config' | 'brain'>): CameraSettings | null {
  const w = chat.config.vision.webcam;
  if (!w.enabled || !chat.brain) return null;
  const brainSees = chat.brain.canSee;
  const proxy = chat.config.vision.proxy;
  if (!brainSees && !proxy.connectionId && !proxy.model) return null;
  return { mode: w.mode, maxFps: Math.min(w.maxFps, MODE_MAX_FPS[w.mode]), maxWidth: w.maxWidth, brainSees };
}

export type FrameResult = { ok: true; record: AttachmentRecord; data: Buffer } | { ok: false; code: 'bad_request' | 'forbidden' | 'invalid' | 'rate_limited'; message: string; retryAfterMs?: number };

/**
 * Checks and stores one camera frame for `conversationId`. Nothing is stored when any check fails. `requested`
 * frames (answers to camera_request) skip the rate check: the agent asked for them.
 */
export async function acceptFrame(
  app: AppContext,
  input: { chat: ChatBot; camera: SocketCamera | undefined; visitorId: string; conversationId: string; data: string; requested: boolean },
): Promise<FrameResult> {
  const settings = cameraSettings(input.chat);
  if (!settings) return { ok: false, code: 'forbidden', message: 'this bot does not use the camera (vision.webcam.enabled, and a brain or vision proxy that can see)' };
  const cam = input.camera;
  if (!cam || cam.state !== 'on') {
    return { ok: false, code: 'forbidden', message: 'camera frames are accepted only after the visitor turned the camera on (send {"t":"camera","state":"on"} first)' };
  }
  const now = app.clock.now();
  const gapMs = 1000 / settings.maxFps;
  if (!input.requested && cam.lastFrameAt && now - cam.lastFrameAt < gapMs - RATE_SLACK_MS) {
    const wait = Math.ceil(gapMs - (now - cam.lastFrameAt));
    return { ok: false, code: 'rate_limited', message: `too many camera frames: at most ${settings.maxFps} a second in ${settings.mode} mode (vision.webcam.maxFps)`, retryAfterMs: wait };
  }
  const bytes = Buffer.from(input.data, 'base64');
  if (bytes.length > MAX_CAMERA_FRAME_BYTES) return { ok: false, code: 'invalid', message: `camera frame is ${bytes.length} bytes; at most ${MAX_CAMERA_FRAME_BYTES} are accepted (send a smaller JPEG)` };
  const type = sniffImageType(bytes);
  if (type !== 'image/jpeg' && type !== 'image/webp') return { ok: false, code: 'invalid', message: 'camera frame: data must be a base64 JPEG or WebP picture' };
  let out;
  try {
    // Re-encoded like uploads (metadata dropped); the width check reads the decoded size, not what the frame claims.
    out = await runTask('resize-image', { data: bytes, maxEdgePx: 4096, format: 'jpeg' });
  } catch (err) {
    if (isImageTooLarge(err)) return { ok: false, code: 'invalid', message: `camera frame: ${err.message}` };
    app.log.info({ err: (err as Error).message }, 'camera: frame could not be read');
    return { ok: false, code: 'invalid', message: 'camera frame: the picture could not be read (a damaged JPEG or WebP)' };
  }
  if (out.width > settings.maxWidth) {
    return { ok: false, code: 'invalid', message: `camera frame is ${out.width} pixels wide; at most ${settings.maxWidth} are accepted (vision.webcam.maxWidth)` };
  }
  cam.lastFrameAt = now;
  const w = input.chat.config.vision.webcam;
  const rec: AttachmentRecord = {
    _id: newId('att', now), workspaceId: input.chat.bot.workspaceId, botId: input.chat.bot._id, visitorId: input.visitorId,
    conversationId: input.conversationId, mimeType: out.mimeType, width: out.width, height: out.height, size: out.data.length, createdAt: now,
    camera: { keep: w.persistFrames, shared: w.shareWithHumanAgents },
  };
  if (!settings.brainSees) rec.camera!.description = await describeFrame(app, input.chat, { mimeType: out.mimeType, data: out.data });
  await app.store.files.put(rec._id, out.data, { workspaceId: rec.workspaceId, contentType: rec.mimeType, size: rec.size, kind: 'chat-attachment' });
  await app.records.attachments.insertOne(rec);
  return { ok: true, record: rec, data: out.data };
}

/** The vision proxy's words for a frame; a failure is said in words too, so the agent knows it saw nothing. */
export async function describeFrame(app: AppContext, chat: ChatBot, image: { mimeType: string; data: Buffer }, signal?: AbortSignal): Promise<string> {
  const proxy = await visionProxy(app, chat.bot.workspaceId, chat.config);
  if ('error' in proxy) return `(the camera picture could not be described: ${proxy.error})`;
  try {
    return (await describeImageWith(proxy.adapter, proxy.model, image, signal)).text || '(the picture showed nothing that could be described)';
  } catch (err) {
    app.log.warn({ err, botId: chat.bot._id }, 'camera: the vision proxy failed');
    return '(the camera picture could not be described just now)';
  }
}

/** The camera frames a team member may see in transcripts: only those taken while the bot shared them. */
export const teamMaySee = (rec: Pick<AttachmentRecord, 'camera'>) => !rec.camera || rec.camera.shared;

/** For the widget's public config: what the camera button needs (null: no button). */
export function publicCamera(chat: Pick<ChatBot, 'config' | 'brain'>, render: (text: string) => string, liveVideo: boolean) {
  const s = cameraSettings(chat);
  if (!s) return { enabled: false as const };
  const w: BotConfig['vision']['webcam'] = chat.config.vision.webcam;
  // liveVideo: the voice engine takes a live view (continuous); otherwise the widget sends frames with messages only.
  return { enabled: true as const, mode: s.mode, maxFps: s.maxFps, maxWidth: s.maxWidth, consentText: render(w.consentText), privacyUrl: w.privacyUrl, liveVideo: s.mode === 'continuous' && liveVideo };
}

/** One picture in a transcript's `attachments`: where it shows (a message, a tool call, or neither: a live view). */
export interface TranscriptAttachment {
  id: string; mimeType: string; width: number; height: number; createdAt: number;
  source: 'upload' | 'camera'; messageId: string | null; toolCallId: string | null; description?: string;
}

/**
 * Every picture of a conversation the team may see, oldest first: uploads and camera frames, each with the message
 * or tool call (look_at_camera) that carries it; a frame carried by neither was a live view (continuous mode).
 * Frames taken while vision.webcam.shareWithHumanAgents was off are left out.
 */
export function transcriptAttachments(
  records: AttachmentRecord[],
  messages: Array<{ _id: string; attachments: Array<{ id: string }> }>,
  toolCalls: Array<{ _id: string; attachments?: Array<{ id: string }> }>,
): TranscriptAttachment[] {
  const inMessage = new Map(messages.flatMap((m) => m.attachments.map((a) => [a.id, m._id] as const)));
  const inCall = new Map(toolCalls.flatMap((t) => (t.attachments ?? []).map((a) => [a.id, t._id] as const)));
  return records.filter(teamMaySee).sort((a, b) => a.createdAt - b.createdAt || (a._id < b._id ? -1 : 1)).map((r) => ({
    id: r._id, mimeType: r.mimeType, width: r.width, height: r.height, createdAt: r.createdAt, source: r.camera ? 'camera' as const : 'upload' as const,
    messageId: inMessage.get(r._id) ?? null, toolCallId: inCall.get(r._id) ?? null,
    ...(r.camera?.description !== undefined ? { description: r.camera.description } : {}),
  }));
}
