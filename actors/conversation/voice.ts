import { utcDay, type MessageRecord, type PublicMessage, type UsageDayRecord } from '../../src/records/conversations.js';
import { usageDayId } from '../../src/conversation/usage.js';
import type { ConversationActor } from './actor.js';
import type { ConversationMsg, ConversationReplies, VoicePort } from './messages.js';

type Msg<T extends ConversationMsg['type']> = Extract<ConversationMsg, { type: T }>;

/**
 * The conversation's side of a voice session: the session attaches itself (so typed text, a takeover or the end
 * reach it), and its turns and usage are stored here, so the conversation keeps one writer.
 */
export function handleVoiceAttach(a: ConversationActor, msg: Msg<'voiceAttach'>): ConversationReplies['voiceAttach'] {
  const { conv } = a;
  if (conv.status !== 'open') return { ok: false, code: 'not_found', message: 'this conversation has ended; start voice again' };
  if (conv.takenOverBy) return { ok: false, code: 'forbidden', message: `${conv.takenOverBy.userName} from the team is answering this conversation; voice is off while they are` };
  if (a.s.voice && a.s.voice.sessionId !== msg.port.sessionId) a.s.voice.end('visitor');
  a.s.voice = msg.port;
  return { ok: true, messageCount: conv.messageCount };
}

export function handleVoiceDetach(a: ConversationActor, msg: Msg<'voiceDetach'>): void {
  if (a.s.voice?.sessionId === msg.sessionId) a.s.voice = null;
}

/** A spoken turn, once its words are known: role user or assistant, modality voice. */
export async function handleVoiceTurn(a: ConversationActor, msg: Msg<'voiceTurn'>): Promise<ConversationReplies['voiceTurn']> {
  const { conv } = a;
  const config = a.s.chat?.config;
  if (conv.status !== 'open' || !config) return null;
  if (msg.role === 'user' && conv.messageCount >= 3 * config.security.maxTurnsPerConversation) return null;
  const extra: Partial<MessageRecord> = { modality: 'voice' };
  if (msg.role === 'assistant') Object.assign(extra, { model: msg.model, usage: msg.usage, costUsd: msg.costUsd });
  const stored: PublicMessage = await a.storeMessage({ id: msg.id, role: msg.role, text: msg.text, extra });
  if (msg.role === 'assistant') await countUsage(a, { costUsd: msg.costUsd ?? 0, replies: 1, voiceSeconds: 0 });
  return stored;
}

/** Audio seconds (both ways) and spend not carried by a stored reply: the daily caps count them. */
export async function handleVoiceUsage(a: ConversationActor, msg: Msg<'voiceUsage'>): Promise<void> {
  const { conv } = a;
  if (msg.costUsd > 0) {
    conv.costUsd += msg.costUsd;
    await a.db.conversations.updateOne({ workspaceId: conv.workspaceId, _id: conv._id }, { $inc: { costUsd: msg.costUsd } });
  }
  await countUsage(a, { costUsd: msg.costUsd, replies: 0, voiceSeconds: msg.voiceSeconds });
}

async function countUsage(a: ConversationActor, inc: { costUsd: number; replies: number; voiceSeconds: number }): Promise<void> {
  const { conv } = a;
  const day = utcDay(a.app.clock.now());
  await a.db.usage.updateOne(
    { workspaceId: conv.workspaceId, _id: usageDayId(conv.botId, day) },
    { $inc: inc, $setOnInsert: { botId: conv.botId, day } satisfies Partial<UsageDayRecord> },
    { upsert: true },
  );
}

export type { VoicePort };
