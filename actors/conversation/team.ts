import { newId } from '../../src/store/ids.js';
import type { FeedbackRecord } from '../../src/records/conversations.js';
import type { PublicMessage } from '../../src/records/conversations.js';
import type { ServerFrameOf } from '../../src/conversation/protocol.js';
import type { ConversationActor } from './actor.js';
import type { ConversationMsg, ConversationReplies } from './messages.js';

type Msg<T extends ConversationMsg['type']> = Extract<ConversationMsg, { type: T }>;

/** A team member takes over: the running reply is dropped and the AI stays quiet until release. */
export async function handleTakeover(a: ConversationActor, msg: Msg<'takeover'>): Promise<ConversationReplies['takeover']> {
  const { conv } = a;
  // Decided here, by the conversation's one writer: of takeovers that raced each other, only the first counts.
  if (conv.takenOverBy) return { ok: true, changed: false, takenOverBy: conv.takenOverBy };
  a.s.reply?.controller.abort(new Error('taken over'));
  a.s.pendingReply = false;
  // The AI goes quiet in voice too: its voice session ends (the visitor continues in text with the team member).
  a.s.voice?.end('team_takeover');
  a.s.voice = null;
  conv.takenOverBy = { userId: msg.userId, userName: msg.userName };
  await setAndAnnounce(a, { takenOverBy: conv.takenOverBy });
  return { ok: true, changed: true, takenOverBy: conv.takenOverBy };
}

export async function handleRelease(a: ConversationActor, _msg: Msg<'release'>): Promise<ConversationReplies['release']> {
  a.conv.takenOverBy = null;
  await setAndAnnounce(a, { takenOverBy: null });
  return { ok: true };
}

async function setAndAnnounce(a: ConversationActor, patch: Record<string, unknown>): Promise<void> {
  const { conv } = a;
  const now = a.app.clock.now();
  conv.updatedAt = now;
  await a.db.conversations.updateOne({ workspaceId: conv.workspaceId, _id: conv._id }, { $set: { ...patch, updatedAt: now } });
  await a.app.events.publish(conv.workspaceId, 'conversation.updated', { conversationId: conv._id, patch });
}

/** A team member's reply (role human_agent) or internal note (visibility internal, never sent to the widget). */
export async function handleTeamMessage(a: ConversationActor, msg: Msg<'teamMessage'>): Promise<PublicMessage> {
  return a.storeMessage({ role: 'human_agent', text: msg.text, authorName: msg.authorName, visibility: msg.internal ? 'internal' : 'visible' });
}

export async function handleFeedback(a: ConversationActor, msg: Msg<'feedback'>): Promise<ConversationReplies['feedback']> {
  const { conv } = a;
  if (!a.s.chat?.config.behavior.feedback.thumbs) return { ok: false, code: 'forbidden', message: 'feedback: thumbs are off for this bot (behavior.feedback.thumbs)' };
  if (msg.visitorId !== conv.visitorId) return { ok: false, code: 'forbidden', message: 'this conversation belongs to another visitor' };
  const target = await a.db.messages.findById(conv.workspaceId, msg.messageId);
  if (!target || target.conversationId !== conv._id || target.role !== 'assistant') return { ok: false, code: 'not_found', message: `messageId: no reply ${msg.messageId} in this conversation` };
  await saveFeedback(a, { t: 'feedback_ok', kind: 'thumb', messageId: msg.messageId, value: msg.value });
  return { ok: true };
}

export async function handleCsat(a: ConversationActor, msg: Msg<'csat'>): Promise<ConversationReplies['csat']> {
  const { conv } = a;
  if (!a.s.chat?.config.behavior.feedback.csat) return { ok: false, code: 'forbidden', message: 'csat: ratings are off for this bot (behavior.feedback.csat)' };
  if (msg.visitorId !== conv.visitorId) return { ok: false, code: 'forbidden', message: 'this conversation belongs to another visitor' };
  if (conv.status !== 'ended') return { ok: false, code: 'invalid', message: 'csat: a conversation is rated once it has ended' };
  conv.csat = msg.value;
  await a.db.conversations.updateOne({ workspaceId: conv.workspaceId, _id: conv._id }, { $set: { csat: msg.value } });
  await saveFeedback(a, { t: 'feedback_ok', kind: 'csat', messageId: null, value: msg.value }, msg.comment);
  return { ok: true };
}

/** One thumb per reply and one CSAT per conversation: a second one replaces the first. `ok` is the widget's answer. */
async function saveFeedback(a: ConversationActor, ok: ServerFrameOf<'feedback_ok'>, comment?: string): Promise<void> {
  const { conv } = a;
  const { kind, messageId, value } = ok;
  const now = a.app.clock.now();
  const existing = await a.db.feedback.findOne({ workspaceId: conv.workspaceId, conversationId: conv._id, kind, messageId });
  const rec: FeedbackRecord = {
    _id: existing?._id ?? newId('fb', now), workspaceId: conv.workspaceId, botId: conv.botId, conversationId: conv._id,
    messageId, kind, value, ...(comment ? { comment } : {}), createdAt: now,
  };
  await a.db.feedback.replaceOne(rec);
  a.push(ok);
  await a.app.events.publish(conv.workspaceId, 'feedback.received', {
    botId: conv.botId, conversationId: conv._id, messageId, kind, value, ...(comment ? { comment } : {}),
  });
}

