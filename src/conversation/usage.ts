import type { AppContext } from '../app/context.js';
import type { BotConfig } from '../bots/config/index.js';
import { utcDay, type UsageDayRecord } from '../records/conversations.js';

/** The usage record of one bot and UTC day (security.caps count against it). */
export const usageDayId = (botId: string, day: string) => `use_${botId}_${day}`;

export function usageToday(app: AppContext, workspaceId: string, botId: string): Promise<UsageDayRecord | null> {
  return app.records.usage.findById(workspaceId, usageDayId(botId, utcDay(app.clock.now())));
}

/** Which daily cap today's usage has reached, if any (spend and replies; voice also its minutes). */
export function capReached(caps: BotConfig['security']['caps'], day: UsageDayRecord | null, voice = false): 'dailyUsd' | 'dailyMessages' | 'dailyVoiceMinutes' | null {
  const cost = day?.costUsd ?? 0, replies = day?.replies ?? 0, voiceSeconds = day?.voiceSeconds ?? 0;
  if (caps.dailyUsd !== null && cost >= caps.dailyUsd) return 'dailyUsd';
  if (caps.dailyMessages !== null && replies >= caps.dailyMessages) return 'dailyMessages';
  if (voice && caps.dailyVoiceMinutes !== null && voiceSeconds >= caps.dailyVoiceMinutes * 60) return 'dailyVoiceMinutes';
  return null;
}
