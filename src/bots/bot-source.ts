import type { AppContext } from '../app/context.js';
import { perApp } from '../app/context.js';
import { BotConfigSchema, type BotConfig } from './config/index.js';
import { openIdentitySecret, type BotRecord } from './records.js';
import { guardedAdapter, openProviderKey, providers, recommendedModelFor, TEXT_KINDS } from '../providers/connections.js';
import type { ProviderAdapter, ProviderKind } from '../providers/index.js';
import { bareModelId, compatibleCapabilities, openAiCapabilities } from '../providers/model-info.js';
import { providerClient } from '../providers/http-client.js';

/**
 * The read-only view of bots and provider connections the chat engine needs, over the records of the bots
 * area (src/bots/records.ts: 'bots', 'bot_versions') and the providers area (src/providers/connections.ts).
 */
export type BotDoc = BotRecord;

export interface ChatBrain {
  adapter: ProviderAdapter;
  kind: ProviderKind;
  model: string;
  /** The model takes images (vision.uploads and per-turn pictures only then). */
  canSee: boolean;
}

export interface ChatBot {
  bot: { _id: string; workspaceId: string; status: 'running' | 'paused'; identitySecret?: string };
  config: BotConfig;
  /** The published version; 0 for a preview (the draft). */
  version: number;
  /** The draft, loaded with a preview token (docs/widget-protocol.md, Preview). */
  preview: boolean;
  /** Null when no text-model connection is set up (kind A, B or C). */
  brain: ChatBrain | null;
}

function canSee(kind: ProviderKind, model: string): boolean {
  const id = bareModelId(model);
  if (kind === 'gemini') return /^gemini/.test(id);
  return kind === 'openai' ? openAiCapabilities(id).vision : compatibleCapabilities(id).vision;
}

/** Parsed configs by bot, version and record time: a published version never changes, so parse it once. */
const configCache = perApp(() => new Map<string, BotConfig>());
function parsedConfig(app: AppContext, key: string, raw: unknown): BotConfig {
  const cache = configCache(app);
  let c = cache.get(key);
  if (!c) {
    c = BotConfigSchema.parse(raw);
    if (cache.size >= 500) cache.delete(cache.keys().next().value!);
    cache.set(key, c);
  }
  return c;
}

/** Adapters by connection (id, key and base URL), so conversations share one client and its connections. */
const adapterCache = perApp(() => new Map<string, ProviderAdapter>());

/** Finds a bot by id alone (the widget knows only the bot id), across workspaces. */
export async function findBot(app: AppContext, botId: string): Promise<BotDoc | null> {
  return app.records.bots.findOne({ _id: botId }, { crossWorkspace: true });
}

/**
 * Whether the bot is running or paused now, or null when it is gone. Counts instead of reading the record, so
 * the check before every reply does not parse the whole bot (drafts and published configs are large).
 */
export async function botStatus(app: AppContext, botId: string): Promise<'running' | 'paused' | null> {
  const col = app.records.bots;
  if (await col.count({ _id: botId, status: 'running' }, { crossWorkspace: true })) return 'running';
  return (await col.count({ _id: botId }, { crossWorkspace: true })) ? 'paused' : null;
}

/**
 * The bot as a chat needs it: published config (the draft when preview), its version, and the brain.
 * Version 0 is a preview conversation's: the draft (or `draft`, the snapshot the conversation started with),
 * never the published config. Returns null when the bot does not exist or has nothing published (and no preview).
 */
export async function loadBotForChat(app: AppContext, botId: string, opts: { preview?: boolean; version?: number; draft?: unknown } = {}): Promise<ChatBot | null> {
  const doc = await findBot(app, botId);
  if (!doc) return null;
  const preview = !!opts.preview || opts.version === 0 || opts.draft !== undefined;
  let raw: unknown = doc.published?.config;
  let version = doc.published?.version ?? 0;
  if (preview) { raw = opts.draft ?? doc.draft ?? {}; version = 0; }
  else if (opts.version !== undefined && opts.version !== version) {
    const old = await app.records.botVersions.findOne({ workspaceId: doc.workspaceId, botId, version: opts.version });
    if (old) { raw = old.config; version = old.version; }
  }
  if (raw === undefined) return null;
  const config = opts.draft !== undefined ? BotConfigSchema.parse(raw) : parsedConfig(app, `${botId}:${preview ? 'draft' : version}:${doc.updatedAt}`, raw);
  const identitySecret = openIdentitySecret(app, doc) ?? undefined;
  return {
    bot: { _id: doc._id, workspaceId: doc.workspaceId, status: doc.status === 'paused' ? 'paused' : 'running', identitySecret },
    config, version, preview, brain: await brainFor(app, doc.workspaceId, config),
  };
}

async function brainFor(app: AppContext, workspaceId: string, config: BotConfig): Promise<ChatBrain | null> {
  const doc = config.brain.connectionId
    ? await providers(app).findById(workspaceId, config.brain.connectionId)
    // "a new bot uses the first connected": the oldest text-model connection.
    : (await providers(app).find({ workspaceId, kind: { $in: [...TEXT_KINDS] } }, { sort: [['_id', 1]], limit: 1 }))[0] ?? null;
  if (!doc || !TEXT_KINDS.includes(doc.kind)) return null;
  const key = `${doc._id}|${doc.apiKeySealed}|${doc.baseUrl ?? ''}`;
  const adapters = adapterCache(app);
  let adapter = adapters.get(key);
  if (!adapter) {
    // Replies may stream for a while; the guarded client checks every (user-supplied) base URL.
    adapter = guardedAdapter(providerClient(app), { id: doc._id, kind: doc.kind, apiKey: openProviderKey(app, doc), baseUrl: doc.baseUrl ?? null }, { timeoutMs: 120_000, maxRetries: 1 });
    if (adapters.size >= 500) adapters.delete(adapters.keys().next().value!);
    adapters.set(key, adapter);
  }
  if (!adapter.chat) return null;
  const model = config.brain.model || ((await recommendedModelFor(app, doc).catch(() => null)) ?? '');
  if (!model) return null;
  return { adapter, kind: doc.kind, model, canSee: canSee(doc.kind, model) };
}
