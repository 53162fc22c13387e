import type { AppContext } from '../app/context.js';
import type { BotConfig } from '../bots/config/index.js';
import { openProviderKey, providers, TEXT_KINDS, type ProviderDoc } from '../providers/connections.js';
import type { ProviderConnection } from '../providers/index.js';
import { defaultRealtimeModel } from '../providers/voice.js';
import { cascadeSetup, type CascadeSetup } from './cascade-setup.js';
import { hostedAgentSetup, type HostedAgentSetup } from './hosted-agent.js';

/** The engine a bot's voice sessions use, resolved from its config and the workspace's connections. */
export type VoiceSetup = RealtimeSetup | CascadeSetup | HostedAgentSetup;

export interface RealtimeSetup {
  mode: 'realtime';
  connection: ProviderConnection & { kind: 'openai' | 'gemini' };
  /** The realtime model (the engine's default when the bot names none); empty voice: the engine's default. */
  model: string;
  voice: string;
}

const REALTIME_KINDS = ['openai', 'gemini'] as const;

/**
 * Whether voice can start for this config, and with what; otherwise the reason a person can act on.
 * The microphone button appears only when this resolves (the widget config says so).
 */
export async function voiceSetup(app: AppContext, workspaceId: string, config: BotConfig, botId: string): Promise<VoiceSetup | { error: string }> {
  const v = config.voice;
  if (!v.enabled) return { error: 'voice is off for this bot (voice.enabled)' };
  if (v.mode === 'hosted_agent') return hostedAgentSetup(app, workspaceId, botId, config);
  if (v.mode === 'cascade') return cascadeSetup(app, workspaceId, config);
  let doc: ProviderDoc | null = null;
  if (v.realtime.connectionId) doc = await providers(app).findById(workspaceId, v.realtime.connectionId);
  else {
    // Like publishing: an empty realtime connection uses the brain's connection when it has a realtime engine.
    const brain = config.brain.connectionId
      ? await providers(app).findById(workspaceId, config.brain.connectionId)
      : (await providers(app).find({ workspaceId, kind: { $in: [...TEXT_KINDS] } }, { sort: [['_id', 1]], limit: 1 }))[0] ?? null;
    doc = brain;
  }
  if (!doc || !(REALTIME_KINDS as readonly string[]).includes(doc.kind)) {
    return { error: 'voice needs an OpenAI or Google Gemini connection (voice.realtime.connectionId)' };
  }
  let apiKey: string;
  try { apiKey = openProviderKey(app, doc); } catch { return { error: `the key of ${doc.name} cannot be read; connect it again` }; }
  return {
    mode: 'realtime',
    connection: { id: doc._id, kind: doc.kind as 'openai' | 'gemini', apiKey, baseUrl: doc.baseUrl ?? null },
    // The model is always named, so usage is priced for the model that ran.
    model: v.realtime.model || defaultRealtimeModel(doc.kind), voice: v.realtime.voice,
  };
}
