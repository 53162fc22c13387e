import { estimateVoiceCostUsd, type VoiceUsage } from '../../src/providers/prices.js';
import { capReached, usageToday } from '../../src/conversation/usage.js';
import type { VoiceSessionActor } from './actor.js';

/**
 * What a voice session costs: audio seconds both ways (security.caps.dailyVoiceMinutes) and the engine's tokens
 * priced by the built-in list (dailyUsd, /analytics/usage). Spend rides on the stored agent turns; minutes are
 * reported as they pass.
 */
export class VoiceUsageMeter {
  inputBytes = 0;
  outputBytes = 0;
  private reportedSeconds = 0;
  private tokens: VoiceUsage = { inputTextTokens: 0, inputAudioTokens: 0, outputTextTokens: 0, outputAudioTokens: 0 };
  private costUsd = 0;

  constructor(private readonly model: string) {}

  addResponse(u: VoiceUsage): void {
    const t = this.tokens;
    t.inputTextTokens += u.inputTextTokens;
    t.inputAudioTokens += u.inputAudioTokens;
    t.outputTextTokens += u.outputTextTokens;
    t.outputAudioTokens += u.outputAudioTokens;
    // Cascade engines price their own stages (brain, speech to text, speech); realtime ones are priced by token here.
    this.costUsd += u.costUsd ?? estimateVoiceCostUsd(this.model, u);
  }

  /** The usage and spend since the last stored agent turn, which carries them. */
  takeForReply(): { model: string; usage: { inputTokens: number; outputTokens: number }; costUsd: number } {
    const t = this.tokens;
    const out = { model: this.model, usage: { inputTokens: t.inputTextTokens + t.inputAudioTokens, outputTokens: t.outputTextTokens + t.outputAudioTokens }, costUsd: this.costUsd };
    this.tokens = { inputTextTokens: 0, inputAudioTokens: 0, outputTextTokens: 0, outputAudioTokens: 0 };
    this.costUsd = 0;
    return out;
  }

  seconds(inputRate: number, outputRate: number): number {
    return this.inputBytes / 2 / inputRate + this.outputBytes / 2 / outputRate;
  }

  /**
   * Counts the minutes since the last report (and, at the end, spend no stored turn carried) and tells whether a
   * daily cap is reached now.
   */
  async report(a: VoiceSessionActor, final = false): Promise<boolean> {
    const engine = a.engine;
    const total = engine ? this.seconds(engine.inputRate, engine.outputRate) : 0;
    const voiceSeconds = total - this.reportedSeconds;
    this.reportedSeconds = total;
    const costUsd = final ? this.takeForReply().costUsd : 0;
    const { conversations, chat } = a.init;
    if (voiceSeconds > 0 || costUsd > 0) await conversations.ask(a.conversationId, { type: 'voiceUsage', costUsd, voiceSeconds });
    if (final) return false;
    return capReached(chat.config.security.caps, await usageToday(a.init.app, chat.bot.workspaceId, chat.bot._id), true) !== null;
  }
}
