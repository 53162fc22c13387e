/**
 * A bot's health as its operators see it: the last voice failure visitors met that only an operator can fix (an
 * engine refusing the key, a provider that cannot be reached, a part of cascade voice failing). Visitors are told a
 * short line in their language; the details are kept here, one record per bot in the store (every process of a
 * group writes the same one), and shown by GET /api/v1/bots/{id}/health and on the bot's Voice page.
 */
import type { AppContext } from '../app/context.js';
import type { RecordSpecs } from '../app/records.js';
import type { Collection } from '../store/types.js';

export type VoiceFailureStage = 'start' | 'engine' | 'stt' | 'brain' | 'tts';

export interface VoiceFailure {
  at: number;
  stage: VoiceFailureStage;
  /** The provider's or the server's own words, for the operator (may name addresses and key problems). */
  message: string;
  conversationId: string | null;
}

export interface BotHealthRecord {
  _id: string;
  workspaceId: string;
  /** The last voice failure, and how many since voice last worked. */
  voice: { lastFailure: VoiceFailure | null; failuresSinceOk: number; lastOkAt: number | null };
}

declare module '../app/records.js' {
  interface Records {
    botHealth: Collection<BotHealthRecord>;
  }
}
export const botHealthRecords = { botHealth: { name: 'bot_health' } } satisfies RecordSpecs<'botHealth'>;

export async function noteVoiceFailure(app: AppContext, workspaceId: string, botId: string, failure: VoiceFailure): Promise<void> {
  await app.records.botHealth.updateOne({ workspaceId, _id: botId },
    { $set: { 'voice.lastFailure': failure }, $inc: { 'voice.failuresSinceOk': 1 } }, { upsert: true });
}

/** A voice session started: the failures count again from zero (the last one stays, for the record). */
export async function noteVoiceOk(app: AppContext, workspaceId: string, botId: string): Promise<void> {
  await app.records.botHealth.updateOne({ workspaceId, _id: botId }, { $set: { 'voice.failuresSinceOk': 0, 'voice.lastOkAt': app.clock.now() } }, { upsert: true });
}

export async function botHealth(app: AppContext, workspaceId: string, botId: string): Promise<{ botId: string; voice: BotHealthRecord['voice'] }> {
  const r = await app.records.botHealth.findById(workspaceId, botId);
  return { botId, voice: { lastFailure: r?.voice?.lastFailure ?? null, failuresSinceOk: r?.voice?.failuresSinceOk ?? 0, lastOkAt: r?.voice?.lastOkAt ?? null } };
}
