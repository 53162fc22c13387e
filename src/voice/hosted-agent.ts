/**
 * A bot's hosted voice agent (voice.mode hosted_agent): the agent this server keeps at the kind D provider, created
 * when the bot is first published with it and updated when a publish changes what it is made of (prompt, greeting,
 * language, voice, speech model, LLM, tools, barge-in, time limit). The provider's agent id is kept in the
 * 'hosted_agents' collection, one record per bot, with a fingerprint of what was sent.
 */
import { createHash } from 'node:crypto';
import type { AppContext } from '../app/context.js';
import type { BotConfig } from '../bots/config/index.js';
import type { AgentSync, HostedAgentPort } from '../bots/hosted-agent-port.js';
import { contextFromIdentity, renderField } from '../bots/config/template-vars.js';
import { ApiError, invalid } from '../kernel/errors.js';
import { providerError } from '../providers/errors.js';
import { AgentApiError, HostedAgentApi } from '../providers/hosted-agent/api.js';
import type { HostedAgentConnection } from '../providers/hosted-agent/engine.js';
import { agentBody, HOSTED_AGENT_LABEL, type AgentDefinition } from '../providers/hosted-agent/wire.js';
import { openProviderKey, providerFetch, providers, type ProviderDoc } from '../providers/connections.js';
import type { Doc } from '../store/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { expressTool } from '../conversation/builtins.js';
import { buildSystemPrompt } from '../conversation/prompt.js';
import { imageDescriber } from './vision-proxy.js';

export interface HostedAgentRecord extends Doc {
  botId: string;
  connectionId: string;
  /** The provider's agent id. */
  agentId: string;
  /** SHA-256 of the body last sent: a publish that would send the same body changes nothing at the provider. */
  fingerprint: string;
  /** The body last sent, so a publish that fails after the update can put it back. */
  body: Record<string, unknown>;
  updatedAt: number;
}

export const hostedAgents = (app: AppContext) => app.store.collection<HostedAgentRecord>('hosted_agents');
export const hostedAgentRecordId = (botId: string) => `hag_${botId.replace(/^bot_/, '')}`;

/** The engine setup of a hosted-agent bot (src/voice/voice-setup.ts VoiceSetup). */
export interface HostedAgentSetup {
  mode: 'hosted_agent';
  connection: HostedAgentConnection;
  /** What usage is counted under: the agent's LLM (the provider bills per minute; no tokens are reported). */
  model: string;
  voice: string;
}

const SPOKEN = 'You are talking with the visitor by voice: your words are spoken aloud. Keep replies short and conversational; never use Markdown, lists, links or emoji.';
const API_TIMEOUT_MS = 15_000;

/** What the agent is made of, from the config. Each conversation sends its own prompt; this one is the fallback. */
export async function agentDefinition(
  app: AppContext, tools: Pick<ToolRegistry, 'toolsFor'>, workspaceId: string, bot: { _id: string; name: string }, config: BotConfig,
): Promise<AgentDefinition> {
  const ctx = contextFromIdentity(config.identity);
  const prompt = buildSystemPrompt({
    config, now: 0, context: [], expressions: false, summary: null, canEnd: config.tools.builtins.end_conversation,
    prompt: { instructions: renderField('identity.instructions', config.identity.instructions, ctx), guardrails: renderField('identity.guardrails', config.identity.guardrails, ctx) },
  }).split('\n\n').filter((p) => !p.startsWith('Current date and time:')).join('\n\n');
  const offered = await tools.toolsFor({ app, workspaceId, botId: bot._id, conversationId: '', visitorId: '', config });
  if (config.face.expressions && config.tools.builtins.express) offered.push(expressTool);
  const v = config.voice;
  const welcome = renderField('welcome.message', config.welcome.message, ctx).trim();
  return {
    name: `${bot.name} (${bot._id})`.slice(0, 120),
    prompt: `${prompt}\n\n${SPOKEN}`,
    firstMessage: config.welcome.speakGreeting ? welcome || `Hi! I'm ${config.identity.agentName}. How can I help you today?` : '',
    language: config.identity.language,
    voice: v.hostedAgent.voice, ttsModel: v.hostedAgent.ttsModel, llm: v.hostedAgent.llm,
    temperature: config.brain.temperature, maxOutputTokens: Math.min(2048, config.brain.maxOutputTokens),
    tools: offered.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
    bargeIn: v.bargeIn, maxDurationSeconds: Math.round(v.maxSessionMinutes * 60),
  };
}

/** What a publish did at the provider: `undo` puts things back when the version cannot be stored; `commit` tidies up after. */
const NOTHING: AgentSync = { undo: async () => {}, commit: async () => {} };

/** HostedAgentPort.sync (src/bots/hosted-agent-port.ts). */
async function syncHostedAgent(
  app: AppContext, tools: Pick<ToolRegistry, 'toolsFor'>, workspaceId: string, bot: { _id: string; name: string }, config: BotConfig,
): Promise<AgentSync> {
  const v = config.voice;
  if (!v.enabled || v.mode !== 'hosted_agent' || !v.hostedAgent.connectionId) return NOTHING;
  const doc = await providers(app).findById(workspaceId, v.hostedAgent.connectionId);
  if (!doc) return NOTHING;
  const body = agentBody(await agentDefinition(app, tools, workspaceId, bot, config));
  const fingerprint = createHash('sha256').update(JSON.stringify(body)).digest('hex');
  const api = apiFor(app, doc);
  const records = hostedAgents(app);
  const id = hostedAgentRecordId(bot._id);
  const previous = await records.findById(workspaceId, id);
  const save = (agentId: string) => records.updateOne({ workspaceId, _id: id }, {
    $set: { botId: bot._id, connectionId: doc._id, agentId, fingerprint, body, updatedAt: app.clock.now() },
  }, { upsert: true });
  const restore = async () => {
    if (previous) await records.replaceOne(previous); else await records.deleteOne({ workspaceId, _id: id });
  };
  const fail = (err: unknown) => refusal(err, doc);
  const same = previous?.connectionId === doc._id ? previous : null;

  // A model emptied since the last publish means the provider's default, which a PATCH cannot ask for: a new agent.
  if (same && !dropsModel(same.body, body)) {
    try {
      if (same.fingerprint === fingerprint) await api.get(same.agentId);
      else await api.update(same.agentId, body);
      await save(same.agentId);
      return same.fingerprint === fingerprint ? NOTHING : {
        undo: async () => { await restore(); await api.update(same.agentId, same.body).catch((err) => warn(app, err, same.agentId)); },
        commit: async () => {},
      };
    } catch (err) {
      // Deleted at the provider: made again below.
      if (!(err instanceof AgentApiError && err.status === 404)) throw fail(err);
    }
  }
  let agentId: string;
  try {
    agentId = await api.create(body);
  } catch (err) {
    throw fail(err);
  }
  await save(agentId);
  return {
    undo: async () => { await restore(); await api.remove(agentId).catch((err) => warn(app, err, agentId)); },
    // The agent it replaces goes once the new version is stored (with its own connection's key).
    commit: async () => { if (previous && previous.agentId !== agentId) await removeAgent(app, workspaceId, previous); },
  };
}

/** Whether `next` leaves out a model (LLM or speech model) that `prev` named. */
function dropsModel(prev: Record<string, any>, next: Record<string, any>): boolean {
  const llm = (b: Record<string, any>) => b.conversation_config?.agent?.prompt?.llm;
  const tts = (b: Record<string, any>) => b.conversation_config?.tts?.model_id;
  return (llm(prev) !== undefined && llm(next) === undefined) || (tts(prev) !== undefined && tts(next) === undefined);
}

async function removeAgent(app: AppContext, workspaceId: string, rec: HostedAgentRecord): Promise<void> {
  const doc = await providers(app).findById(workspaceId, rec.connectionId);
  if (!doc) return;
  await apiFor(app, doc).remove(rec.agentId).catch((err) => warn(app, err, rec.agentId));
}

/** The bot is deleted: its hosted agent goes too (at the provider as far as it answers, and here). */
async function removeHostedAgent(app: AppContext, workspaceId: string, botId: string): Promise<void> {
  const rec = await hostedAgents(app).findById(workspaceId, hostedAgentRecordId(botId));
  if (!rec) return;
  await removeAgent(app, workspaceId, rec);
  await hostedAgents(app).deleteOne({ workspaceId, _id: rec._id });
}

function warn(app: AppContext, err: unknown, agentId: string): void {
  app.log.warn({ err, agentId }, 'a hosted agent could not be put back or removed at the provider; remove it there by hand if it stays');
}

function apiFor(app: AppContext, doc: ProviderDoc): HostedAgentApi {
  return new HostedAgentApi({ apiKey: openProviderKey(app, doc), baseUrl: doc.baseUrl ?? null }, { fetch: providerFetch(app), timeoutMs: API_TIMEOUT_MS });
}

/** The provider's field paths, and the setting each comes from. */
const SETTINGS: Array<[RegExp, string]> = [
  [/tts\.voice_id/, 'voice.hostedAgent.voice'],
  [/tts\.model_id/, 'voice.hostedAgent.ttsModel'],
  [/prompt\.llm/, 'voice.hostedAgent.llm'],
  [/agent\.language/, 'identity.language'],
  [/first_message/, 'welcome.message'],
  [/prompt\.tools/, 'tools'],
  [/prompt\.temperature/, 'brain.temperature'],
  [/prompt\.max_tokens/, 'brain.maxOutputTokens'],
  [/prompt\.prompt/, 'identity.instructions'],
  [/max_duration_seconds/, 'voice.maxSessionMinutes'],
];

/** A provider failure while publishing, naming the setting: a refusal is 422, a key refused names the connection. */
function refusal(err: unknown, doc: ProviderDoc): ApiError {
  if (err instanceof AgentApiError && err.status >= 400 && err.status < 500 && err.status !== 429) {
    const keyRefused = err.status === 401 || err.status === 403;
    const path = keyRefused ? 'voice.hostedAgent.connectionId' : SETTINGS.find(([re]) => re.test(err.field ?? ''))?.[1] ?? 'voice.hostedAgent.connectionId';
    const message = keyRefused
      ? `${HOSTED_AGENT_LABEL} refused the key of ${doc.name} (${err.status}: ${err.message}); connect it again with a key that may manage agents`
      : `${HOSTED_AGENT_LABEL} refused the hosted agent: ${err.message}`;
    return invalid(`the draft cannot be published: ${path}: ${message}`, [{ path, message }]);
  }
  const e = providerError(err, { label: HOSTED_AGENT_LABEL, baseUrl: doc.baseUrl || 'the default address' });
  return new ApiError(e.code, e.status, `voice.hostedAgent.connectionId: the hosted agent could not be saved at ${doc.name}: ${e.message}; publish again in a moment`, e.headers, e.details);
}

/** The setup of a hosted-agent voice session, or why voice cannot start: the agent must exist (the bot was published). */
export async function hostedAgentSetup(app: AppContext, workspaceId: string, botId: string, config: BotConfig): Promise<HostedAgentSetup | { error: string }> {
  const h = config.voice.hostedAgent;
  const doc = h.connectionId ? await providers(app).findById(workspaceId, h.connectionId) : null;
  if (!doc || doc.kind !== 'speech') return { error: 'a hosted voice agent needs an ElevenLabs-compatible speech connection (voice.hostedAgent.connectionId)' };
  const rec = await hostedAgents(app).findById(workspaceId, hostedAgentRecordId(botId));
  if (!rec || rec.connectionId !== doc._id) return { error: 'the hosted voice agent has not been created at the provider yet; publish the bot' };
  let apiKey: string;
  try { apiKey = openProviderKey(app, doc); } catch { return { error: `the key of ${doc.name} cannot be read; connect it again` }; }
  return {
    mode: 'hosted_agent',
    connection: {
      id: doc._id, kind: 'speech', apiKey, baseUrl: doc.baseUrl ?? null,
      hostedAgent: { agentId: rec.agentId, fetch: providerFetch(app), describeImage: imageDescriber(app, workspaceId, config) },
    },
    model: `hosted_agent/${h.llm || 'default'}`, voice: h.voice,
  };
}

/**
 * The bots' hosted-agent port: the API's publish and delete hand it to publishBot and deleteBot. `tools` gives the
 * agent the tools a conversation of the bot would have (the root's tool registry).
 */
export const hostedAgentPort = (tools: Pick<ToolRegistry, 'toolsFor'>): HostedAgentPort => ({
  sync: (app, workspaceId, bot, config) => syncHostedAgent(app, tools, workspaceId, bot, config),
  remove: removeHostedAgent,
});
