/**
 * look_at_camera (tools.builtins.look_at_camera, vision.webcam.mode on_demand): the agent asks for a picture,
 * the server asks a widget of the conversation whose camera is on (camera_request), and the frame it answers with
 * (camera_frame with the requestId) is stored and given to the model as an image part, or in words from the vision
 * proxy when the brain cannot see.
 */
import type { AppContext } from '../app/context.js';
import type { TimerHandle } from '../kernel/clock.js';
import { newId } from '../store/ids.js';
import type { AgentTool, ToolSource } from '../tools/registry.js';
import type { ChatBot } from '../bots/bot-source.js';
import type { SocketCamera } from './camera.js';
import { encodeFrame } from '../conversation/protocol.js';
import type { AttachmentRecord } from '../records/conversations.js';

/** How long the visitor's browser has to take the picture. */
export const CAMERA_REQUEST_TIMEOUT_MS = 10_000;

interface Link { chat: ChatBot; camera: SocketCamera; visitorId: string; send(frame: string): unknown }
export interface TakenFrame { record: AttachmentRecord; data: Buffer }
interface Pending { conversationId: string; resolve(f: TakenFrame): void; reject(e: Error): void; timer: TimerHandle }

/** Which sockets of each conversation have the camera on, and the pictures the agent is waiting for. */
export class CameraLinks {
  private byConversation = new Map<string, Map<number, Link>>();
  private pending = new Map<string, Pending>();

  constructor(private app: AppContext) {}

  set(conversationId: string, conn: { id: number; send(frame: string): unknown }, entry: Omit<Link, 'send'> | null): void {
    let m = this.byConversation.get(conversationId);
    if (!entry) {
      m?.delete(conn.id);
      if (m && !m.size) this.byConversation.delete(conversationId);
      return;
    }
    if (!m) this.byConversation.set(conversationId, (m = new Map()));
    m.set(conn.id, { ...entry, send: (f) => conn.send(f) });
  }

  /** A socket of the conversation whose camera is on, or null. */
  live(conversationId: string): Link | null {
    for (const e of this.byConversation.get(conversationId)?.values() ?? []) if (e.camera.state === 'on') return e;
    return null;
  }

  /** Asks the visitor's browser for a picture; rejects with words for the agent when none comes. */
  request(conversationId: string, signal: AbortSignal): Promise<TakenFrame> {
    const link = this.live(conversationId);
    if (!link) return Promise.reject(new Error('camera_off'));
    const id = newId('camrq', this.app.clock.now());
    return new Promise<TakenFrame>((resolve, reject) => {
      const timer = this.app.clock.setTimeout(() => this.settle(id, new Error(`the visitor's browser sent no picture within ${CAMERA_REQUEST_TIMEOUT_MS / 1000} seconds`)), CAMERA_REQUEST_TIMEOUT_MS);
      this.pending.set(id, { conversationId, resolve, reject, timer });
      signal.addEventListener('abort', () => this.settle(id, new Error('the reply was stopped')), { once: true });
      link.send(encodeFrame({ t: 'camera_request', requestId: id }));
    });
  }

  /** Whether `requestId` is a picture this conversation was asked for and has not answered yet. */
  waiting(conversationId: string, requestId: string): boolean {
    return this.pending.get(requestId)?.conversationId === conversationId;
  }

  /** The widget's answer (a stored frame, or why there is none); false when nothing of this conversation waits for it. */
  answer(conversationId: string, requestId: string, outcome: TakenFrame | Error): boolean {
    if (!this.waiting(conversationId, requestId)) return false;
    return this.settle(requestId, outcome);
  }

  private settle(id: string, outcome: TakenFrame | Error): boolean {
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    this.app.clock.clearTimeout(p.timer);
    if (outcome instanceof Error) p.reject(outcome); else p.resolve(outcome);
    return true;
  }
}

const CAMERA_OFF = 'The visitor\'s camera is off, so there is nothing to see. If a picture would help, ask the visitor to turn the camera on with the camera button in the chat, then look again.';

/** look_at_camera, taking its picture through the links of open camera sockets. */
function lookAtCameraTool(links: CameraLinks): AgentTool {
  return {
    name: 'look_at_camera',
    description: 'Take a picture with the visitor\'s camera (when they turned it on) to see what they are showing you. Use it when seeing would help, for example when they say "look at this".',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    source: 'builtin',
    label: 'Looking through the camera',
    async run(_args, ctx) {
      let taken: TakenFrame;
      try {
        taken = await links.request(ctx.conversationId, ctx.signal);
      } catch (err) {
        const m = (err as Error).message;
        return { content: m === 'camera_off' ? CAMERA_OFF : `No picture was taken: ${m}. Ask the visitor to check their camera, or go on without it.`, isError: true };
      }
      const { record } = taken;
      // The stored frame goes on the tool call record, so transcripts show what the agent saw (when shared).
      const attachments = [{ id: record._id, mimeType: record.mimeType, width: record.width, height: record.height, ...(record.camera ? { camera: { shared: record.camera.shared, ...(record.camera.description !== undefined ? { description: record.camera.description } : {}) } } : {}) }];
      if (record.camera?.description !== undefined) return { content: `The visitor's camera shows: ${record.camera.description}`, attachments };
      return { content: `Picture taken (${record.width}x${record.height}); it follows as an image.`, images: [{ mimeType: record.mimeType, data: taken.data }], attachments };
    },
  };
}

/** Offered in on_demand mode with tools.builtins.look_at_camera on; whether the camera is on is checked when it runs. */
export function cameraToolSource(links: CameraLinks): ToolSource {
  const tool = lookAtCameraTool(links);
  return {
    name: 'camera',
    tools(ctx) {
      const w = ctx.config?.vision?.webcam;
      if (!w?.enabled || w.mode !== 'on_demand' || ctx.config?.tools?.builtins?.look_at_camera === false) return [];
      return [tool];
    },
  };
}
