/**
 * behavior.hours.scope bot: outside opening hours the AI is offline too. A typed message gets texts.offline
 * (at most once an hour per conversation) and the lead form (when lead capture is on); the model is not called.
 * The conversation actor calls this before starting a reply and, when it answers non-null, stores the notice
 * itself (it is inside its own handler, so it must not ask itself) and pushes the form.
 */
import type { AppContext } from '../app.js';
import type { BotConfig } from '../bots/config/index.js';
import type { ConversationRecord } from '../chat/records.js';
import { fieldsLeftToAsk } from '../leads/known.js';
import { leadFormFrame, type LeadField, type LeadFormFrame } from '../leads/form.js';
import { offlineText } from './handoff.js';
import { isOpen } from './hours.js';
import { offlineNotices } from './records.js';

export const OFFLINE_NOTICE_EVERY_MS = 3600_000;

/** The AI is offline now: outside opening hours with scope bot (the widget's config says so; the face sleeps). */
export function botOfflineNow(config: BotConfig, ms: number): boolean {
  const hours = config.behavior.hours;
  return hours.enabled && hours.scope === 'bot' && !isOpen(hours, ms);
}

export async function botOffline(
  app: AppContext, conv: Pick<ConversationRecord, '_id' | 'workspaceId'> & Partial<Pick<ConversationRecord, 'botId' | 'visitorId'>>, config: BotConfig,
): Promise<{ notice: string | null; leadForm: LeadFormFrame | null } | null> {
  const now = app.clock.now();
  if (!botOfflineNow(config, now)) return null;
  const id = `off_${conv._id}`;
  const last = await offlineNotices(app).findById(conv.workspaceId, id);
  const due = !last || now - last.sentAt >= OFFLINE_NOTICE_EVERY_MS;
  if (due) await offlineNotices(app).replaceOne({ _id: id, workspaceId: conv.workspaceId, conversationId: conv._id, sentAt: now });
  const lc = config.behavior.leadCapture;
  // Only what the visitor has not told us yet; nothing left: no form.
  const left = due && lc.enabled ? await fieldsLeftToAsk(app, conv, lc.fields as LeadField[]) : [];
  return {
    notice: due ? offlineText(config) : null,
    leadForm: left.length ? leadFormFrame(conv._id, 'offline', left) : null,
  };
}
