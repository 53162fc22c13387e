/**
 * behavior.hours.scope bot: outside opening hours the AI is offline too. A typed message gets texts.offline
 * (at most once an hour per conversation) and the lead form (when lead capture is on); the model is not called.
 * The conversation actor calls this before starting a reply and, when it answers non-null, stores the notice
 * itself (it is inside its own handler, so it must not ask itself) and pushes the form.
 */
import type { AppContext } from '../../src/app/context.js';
import type { BotConfig } from '../../src/bots/config/index.js';
import { botOfflineNow, offlineText } from '../../src/bots/hours.js';
import type { ConversationRecord } from '../../src/records/conversations.js';
import { fieldsLeftToAsk } from '../../src/leads/known.js';
import { leadFormFrame, type LeadField, type LeadFormFrame } from '../../src/leads/form.js';

export const OFFLINE_NOTICE_EVERY_MS = 3600_000;

export async function botOffline(
  app: AppContext, conv: Pick<ConversationRecord, '_id' | 'workspaceId'> & Partial<Pick<ConversationRecord, 'botId' | 'visitorId'>>, config: BotConfig,
): Promise<{ notice: string | null; leadForm: LeadFormFrame | null } | null> {
  const now = app.clock.now();
  if (!botOfflineNow(config, now)) return null;
  const id = `off_${conv._id}`;
  const last = await app.records.offlineNotices.findById(conv.workspaceId, id);
  const due = !last || now - last.sentAt >= OFFLINE_NOTICE_EVERY_MS;
  if (due) await app.records.offlineNotices.replaceOne({ _id: id, workspaceId: conv.workspaceId, conversationId: conv._id, sentAt: now });
  const lc = config.behavior.leadCapture;
  // Only what the visitor has not told us yet; nothing left: no form.
  const left = due && lc.enabled ? await fieldsLeftToAsk(app, conv, lc.fields as LeadField[]) : [];
  return {
    notice: due ? offlineText(config) : null,
    leadForm: left.length ? leadFormFrame(conv._id, 'offline', left) : null,
  };
}
