/**
 * Conversation retention (workspace setting conversationRetentionDays): a scheduled job deletes conversations
 * whose last message is older than the workspace keeps them, with everything of theirs (delete-conversations.ts).
 * node-cron runs it on the wall clock; the sweep itself reads the app's clock, so tests drive it with a fake one.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { ConversationService } from '../../actors/conversation/index.js';
import type { AppContext } from '../app/context.js';
import { deleteConversations, deleteUnclaimedAttachments, type DeletedCounts } from './delete-conversations.js';
import type { CameraFramesJob } from './camera-frames.js';

/** Every hour, at seven minutes past (UTC): a conversation goes within the hour after it expires. */
export const RETENTION_SCHEDULE = '7 * * * *';
/** Conversations deleted per store round trip. */
const PAGE = 200;
const DAY_MS = 86_400_000;

export interface RetentionRun { workspaces: number; conversations: number; messages: number; attachments: number }

/** Deletes every expired conversation of every workspace that limits retention (their actors stopped first); returns what went. */
export async function runRetention(app: AppContext, conversations: Pick<ConversationService, 'forget'>): Promise<RetentionRun> {
  const now = app.clock.now();
  const run: RetentionRun = { workspaces: 0, conversations: 0, messages: 0, attachments: 0 };
  const limited = await app.records.workspaces.find({ 'settings.conversationRetentionDays': { $gte: 1 } }, { crossWorkspace: true, sort: [['_id', 1]] });
  for (const ws of limited) {
    const cutoff = now - ws.settings.conversationRetentionDays! * DAY_MS;
    const counts: DeletedCounts = { conversations: 0, messages: 0, attachments: 0 };
    for (;;) {
      const page = await app.records.conversations.find(
        { workspaceId: ws._id, lastMessageAt: { $lt: cutoff } }, { sort: [['lastMessageAt', 1]], limit: PAGE },
      );
      const done = await deleteConversations(app, conversations, ws._id, page.map((c) => c._id));
      counts.conversations += done.conversations; counts.messages += done.messages; counts.attachments += done.attachments;
      // Fewer deleted than found means something else is deleting them too: stop rather than loop.
      if (page.length < PAGE || done.conversations < page.length) break;
    }
    counts.attachments += await deleteUnclaimedAttachments(app, ws._id, cutoff);
    if (counts.conversations || counts.attachments) {
      run.workspaces++;
      run.conversations += counts.conversations; run.messages += counts.messages; run.attachments += counts.attachments;
      app.log.info({ workspaceId: ws._id, retentionDays: ws.settings.conversationRetentionDays, ...counts }, 'expired conversations deleted');
    }
  }
  // Deleted text must not stay readable in the store's files (as with erasure).
  if (run.conversations || run.attachments) await app.store.scrub();
  return run;
}

export interface RetentionJob {
  task: ScheduledTask;
  /** The sweep under way, if any (shutdown waits for it). */
  running: Promise<RetentionRun | null> | null;
}

/** Schedules the sweep for this app; the task is destroyed (and a running sweep awaited) at shutdown. */
export function startRetentionJob(app: AppContext, conversations: Pick<ConversationService, 'forget'>): RetentionJob {
  const job: RetentionJob = {
    task: cron.schedule(RETENTION_SCHEDULE, () => sweep(), {
      name: 'conversation-retention', timezone: 'UTC', noOverlap: true, unref: true,
      logger: {
        info: (m) => app.log.debug({ job: 'conversation-retention' }, String(m)),
        debug: (m) => app.log.debug({ job: 'conversation-retention' }, String(m)),
        warn: (m) => app.log.warn({ job: 'conversation-retention' }, String(m)),
        error: (m, err) => app.log.error({ job: 'conversation-retention', err: err ?? m }, typeof m === 'string' ? m : 'scheduled job failed'),
      },
    }),
    running: null,
  };
  const sweep = () => {
    job.running ??= runRetention(app, conversations)
      .catch((err) => { app.log.error({ err }, 'conversation retention sweep failed; the next run tries again'); return null; })
      .finally(() => { job.running = null; });
    return job.running;
  };
  return job;
}

/** Stops the schedule and waits for a sweep under way (the composition root calls it at shutdown). */
export async function stopRetentionJob(job: RetentionJob | CameraFramesJob): Promise<void> {
  await job.task.destroy();
  await job.running;
}
