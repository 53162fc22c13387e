import { z } from 'zod';

/**
 * The camera part of the widget chat protocol (docs/widget-protocol.md, Camera). The widget reports the camera's
 * state once the visitor answered the consent prompt and the browser's permission prompt; frames are JPEG or WebP
 * pictures in base64, sent only while that state is `on`.
 */
export const CameraClientFrames = [
  /** on: consent given and the camera runs; off: the visitor turned it off; denied / failed: the browser said no. */
  z.strictObject({ t: z.literal('camera'), state: z.enum(['on', 'off', 'denied', 'failed']), message: z.string().max(300).optional() }),
  /**
   * One picture. With requestId it answers a camera_request (look_at_camera); without, it goes with the visitor's
   * next message (per_turn, continuous in a text chat) or to the live view (continuous in a voice session).
   */
  z.strictObject({
    t: z.literal('camera_frame'),
    data: z.string().min(1).max(131_072),
    requestId: z.string().min(1).max(80).optional(),
  }),
  /** The picture a camera_request asked for could not be taken (the camera stopped, the page is hidden). */
  z.strictObject({ t: z.literal('camera_fail'), requestId: z.string().min(1).max(80), message: z.string().max(300) }),
] as const;

export type { CameraServerFrame } from '../../protocol/widget.js';
