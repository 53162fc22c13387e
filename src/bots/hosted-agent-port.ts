import type { AppContext } from '../app/context.js';
import type { BotConfig } from './config/index.js';

/** A hosted agent made or updated for a publish: put back if the version cannot be stored, else old ones removed. */
export interface AgentSync { undo(): Promise<void>; commit(): Promise<void> }

/**
 * The bot's provider-hosted voice agent, kept in step with what is published and removed with the bot. A port: the
 * voice layer (src/voice/hosted-agent.ts, `hostedAgentPort`) sits above the bots and needs their records, so the
 * caller of publishBot and deleteBot hands it in.
 */
export interface HostedAgentPort {
  /**
   * Creates or updates the bot's hosted agent for `config` (before its version is stored). A refusal by the
   * provider throws 422 naming the setting it objected to; an unreachable provider 502 or 504.
   */
  sync(app: AppContext, workspaceId: string, bot: { _id: string; name: string }, config: BotConfig): Promise<AgentSync>;
  remove(app: AppContext, workspaceId: string, botId: string): Promise<void>;
}
