/**
 * Camera frames the bot did not promise to keep (vision.webcam.persistFrames off, recorded on each frame when it
 * was taken) are deleted once their conversation has been over for FRAMES_KEPT_AFTER_END_MS. The job is durable
 * because its state is the store itself: every run looks for such frames, so a run missed while the server was
 * stopped is made up by the first run after it starts (one at start-up, then every quarter hour). The sweep reads
 * the app's clock, so tests drive it with a fake one.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { AppContext } from '../app/context.js';
import { type AttachmentRecord } from '../records/conversations.js';

/** A frame goes this long after its conversation ended, at the next run (so within about 1 h 15 min). */
export const FRAMES_KEPT_AFTER_END_MS = 60 * 60_000;
/** Every quarter hour, at three minutes past (UTC). */
export const CAMERA_FRAMES_SCHEDULE = '3,18,33,48 * * * *';
/** Frames looked at per run; a run that finds more comes back at the next quarter hour. */
const PAGE = 2000;

/** Deletes the frames whose time is up; returns how many went. */
export async function runCameraFrameSweep(app: AppContext): Promise<{ frames: number; conversations: number }> {
  const db = app.records;
  const cutoff = app.clock.now() - FRAMES_KEPT_AFTER_END_MS;
  const frames = await app.records.attachments.find({ 'camera.keep': false }, { crossWorkspace: true, limit: PAGE, sort: [['conversationId', 1]] });
  const byConversation = new Map<string, AttachmentRecord[]>();
  for (const f of frames) if (f.conversationId) byConversation.set(f.conversationId, [...(byConversation.get(f.conversationId) ?? []), f]);
  let deleted = 0;
  let convs = 0;
  for (const [conversationId, list] of byConversation) {
    const workspaceId = list[0].workspaceId;
    const conv = await db.conversations.findById(workspaceId, conversationId);
    // A conversation deleted meanwhile took its attachments along; one still open keeps its frames.
    if (conv && (conv.status !== 'ended' || (conv.endedAt ?? Infinity) > cutoff)) continue;
    const ids = list.map((f) => f._id);
    for (const id of ids) await app.store.files.delete(workspaceId, id);
    // The messages stop naming them, so transcripts never point at a picture that is gone.
    const named = new Set(ids);
    const messages = await db.messages.find({ workspaceId, conversationId });
    for (const m of messages) {
      if (!m.attachments.some((a) => named.has(a.id))) continue;
      await db.messages.updateOne({ workspaceId, _id: m._id }, { $set: { attachments: m.attachments.filter((a) => !named.has(a.id)) } });
    }
    await db.attachments.deleteMany({ workspaceId, _id: { $in: ids } });
    deleted += ids.length;
    convs++;
  }
  if (deleted) {
    app.log.info({ frames: deleted, conversations: convs }, 'camera frames deleted after their conversations ended (vision.webcam.persistFrames off)');
    await app.store.scrub();
  }
  return { frames: deleted, conversations: convs };
}

export interface CameraFramesJob { task: ScheduledTask; running: Promise<unknown> | null; sweep(): Promise<unknown> }

/** Schedules the sweep (and runs it once now, for frames whose time came while the server was stopped). */
export function startCameraFramesJob(app: AppContext): CameraFramesJob {
  const job: CameraFramesJob = {
    task: cron.schedule(CAMERA_FRAMES_SCHEDULE, () => job.sweep(), { name: 'camera-frames', timezone: 'UTC', noOverlap: true, unref: true }),
    running: null,
    sweep: () => job.running ??= runCameraFrameSweep(app)
      .catch((err) => { app.log.error({ err }, 'camera frame sweep failed; the next run tries again'); return null; })
      .finally(() => { job.running = null; }),
  };
  void job.sweep();
  return job;
}
