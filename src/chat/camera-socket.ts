/**
 * The camera frames of the widget socket (docs/widget-protocol.md, Camera): the state the visitor chose, frames
 * for the next message, answers to the agent's camera_request, and the live view of a continuous voice session.
 */
import type { AppContext } from '../app/context.js';
import type { SocketConn } from '../http/types.js';
import type { VoiceService } from '../../actors/voice/index.js';
import { acceptFrame, cameraSettings } from '../voice/camera.js';
import type { CameraLinks } from '../voice/camera-tool.js';
import { encodeFrame, type ClientFrame, type ServerFrame } from '../conversation/protocol.js';
import type { WidgetSocketData } from './widget-socket.js';

type Conn = SocketConn<WidgetSocketData>;
export type CameraFrame = Extract<ClientFrame, { t: 'camera_frame' | 'camera_fail' }>;

const send = (conn: Conn, f: ServerFrame) => conn.send(encodeFrame(f));

/** Links (or unlinks, with null) this socket's camera to a conversation, so look_at_camera can reach it. */
export function linkCamera(links: CameraLinks, conn: Conn, conversationId: string | null): void {
  const cam = conn.data.camera;
  if (!cam) return;
  if (cam.linkedTo && cam.linkedTo !== conversationId) links.set(cam.linkedTo, conn, null);
  cam.linkedTo = conversationId;
  if (conversationId) links.set(conversationId, conn, { chat: conn.data.chat, camera: cam, visitorId: conn.data.visitor.visitorId });
}

/** The frame waiting for the visitor's next message (per_turn), taken once. */
export function takePendingFrame(conn: Conn): string[] {
  const cam = conn.data.camera;
  if (!cam?.pendingFrame) return [];
  const id = cam.pendingFrame;
  cam.pendingFrame = null;
  return [id];
}

export function handleCameraState(app: AppContext, links: CameraLinks, conn: Conn, frame: Extract<ClientFrame, { t: 'camera' }>): void {
  const d = conn.data;
  if (!cameraSettings(d.chat)) return void send(conn, { t: 'error', code: 'forbidden', message: 'this bot does not use the camera (vision.webcam.enabled, and a brain or vision proxy that can see)' });
  d.camera ??= { state: 'off', lastFrameAt: 0, pendingFrame: null, linkedTo: null };
  d.camera.state = frame.state;
  if (frame.state !== 'on') d.camera.pendingFrame = null;
  if (frame.state === 'denied' || frame.state === 'failed') app.log.info({ botId: d.chat.bot._id, state: frame.state, message: frame.message }, 'camera: the visitor\'s camera could not start');
  linkCamera(links, conn, d.conversationId);
}

export async function handleCameraFrame(app: AppContext, s: { cameraLinks: CameraLinks; voice: VoiceService }, conn: Conn, frame: CameraFrame, openConversation: () => Promise<boolean>): Promise<void> {
  const d = conn.data;
  const links = s.cameraLinks;
  if (frame.t === 'camera_fail') {
    if (!d.conversationId || !links.answer(d.conversationId, frame.requestId, new Error(frame.message || 'the camera could not take a picture'))) {
      send(conn, { t: 'error', code: 'not_found', message: 'no camera_request with this requestId is waiting' });
    }
    return;
  }
  const settings = cameraSettings(d.chat);
  const requestId = frame.requestId;
  if (requestId && (!d.conversationId || !links.waiting(d.conversationId, requestId))) {
    return void send(conn, { t: 'error', code: 'not_found', message: 'no camera_request with this requestId is waiting (it timed out, or was answered)' });
  }
  if (settings?.mode === 'on_demand' && !requestId) {
    return void send(conn, { t: 'error', code: 'forbidden', message: 'in on_demand mode pictures are taken only when the agent asks (answer a camera_request)' });
  }
  // Checked before a conversation is opened for it: a frame without consent must leave nothing behind.
  if (settings && d.camera?.state === 'on' && !d.conversationId && !(await openConversation())) return;
  const r = await acceptFrame(app, {
    chat: d.chat, camera: d.camera, visitorId: d.visitor.visitorId, conversationId: d.conversationId ?? '', data: frame.data, requested: !!requestId,
  });
  if (!r.ok) {
    if (requestId) links.answer(d.conversationId!, requestId, new Error(r.message));
    return void send(conn, { t: 'error', code: r.code, message: r.message, ...(r.retryAfterMs ? { retryAfterMs: r.retryAfterMs } : {}) });
  }
  if (requestId) links.answer(d.conversationId!, requestId, { record: r.record, data: r.data });
  else if (settings!.mode === 'continuous' && s.voice.image(conn, { mimeType: r.record.mimeType, data: r.data })) {
    // The live view of a voice session: the engine saw it; nothing waits for a message.
  } else d.camera!.pendingFrame = r.record._id;
  send(conn, { t: 'camera_frame_ok', frameId: r.record._id, ...(requestId ? { requestId } : {}) });
}
