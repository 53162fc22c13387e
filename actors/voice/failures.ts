/**
 * Where a voice failure goes. The visitor reads a short line in their language (the widget's strings, by the
 * `voice` frame's reason, or the line an engine gives for a part that failed); the details, which may name internal
 * addresses and key problems, go to the operator: the log (a warning without a stack for what a provider said or
 * an expected refusal; an error with its stack for anything else), the bot's health record
 * (GET /api/v1/bots/{id}/health, the bot's Voice page), the live socket's agent.status (state `voice_error`) and
 * the servicechat_voice_failures_total metric.
 */
import type { AppContext } from '../../src/app/context.js';
import { noteVoiceFailure, type VoiceFailureStage } from '../../src/bots/health.js';
import { recordVoiceFailure } from '../../src/metrics/record.js';

export interface VoiceFailureReport {
  workspaceId: string;
  botId: string;
  conversationId: string | null;
  sessionId: string;
  stage: VoiceFailureStage;
  /** The operator's detail. */
  message: string;
  /** An unexpected error (a bug, not a provider's answer): logged as an error with its stack. */
  err?: unknown;
}

export function reportVoiceFailure(app: AppContext, r: VoiceFailureReport): void {
  const fields = { botId: r.botId, conversationId: r.conversationId, sessionId: r.sessionId, stage: r.stage, detail: r.message };
  if (r.err) app.log.error({ ...fields, err: r.err }, 'voice failed');
  else app.log.warn(fields, 'voice failed');
  recordVoiceFailure(r.stage);
  if (r.conversationId) {
    app.events.publishVolatile(r.workspaceId, 'agent.status', { conversationId: r.conversationId, state: 'voice_error', error: { stage: r.stage, message: r.message } });
  }
  noteVoiceFailure(app, r.workspaceId, r.botId, { at: app.clock.now(), stage: r.stage, message: r.message, conversationId: r.conversationId })
    .catch((err) => app.log.warn({ err, botId: r.botId }, 'the bot health record could not be written'));
}
