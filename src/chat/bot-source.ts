import type { AppContext } from '../app.js';
import { perApp } from '../app.js';
import { BotConfigSchema, type BotConfig } from '../bots/config/index.js';
import { createProvider, type ProviderAdapter, type ProviderKind } from '../providers/index.js';
import { bareModelId, compatibleCapabilities, openAiCapabilities } from '../providers/model-info.js';
import { createGuardedClient, type GuardedClient } from '../security/guarded-client.js';
import { openSecret } from '../security/secret-box.js';
import type { Doc } from '../store/types.js';

/**
 * The small read-only view of bots and provider connections the chat engine needs. Bot CRUD and provider
 * routes are another area's; this reads their records: collection 'bots' { _id, workspaceId, name, status,
 * draft, published: { version, config } | null, identitySecretSealed? } and 'providers' { _id, workspaceId,
 * kind, name, baseUrl, apiKeySealed } (sealed with sealSecret(plain, app.secretKey)).
 */
export interface BotDoc extends Doc {
  name?: string;
  status: 'running' | 'paused';
  draft?: unknown;
  published: { version: number; config: unknown } | null;
  identitySecretSealed?: string | null;
}

export interface ProviderDoc extends Doc {
  kind: ProviderKind;
  name?: string;
  baseUrl?: string | null;
  apiKeySealed: string;
}

/** Earlier published versions, so a conversation keeps the version it started with (optional collection). */
interface BotVersionDoc extends Doc { botId: string; version: number; config: unknown }

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
  version: number;
  /** Null when no text-model connection is set up (kind A, B or C). */
  brain: ChatBrain | null;
}

const TEXT_KINDS: ProviderKind[] = ['openai_compatible', 'openai', 'gemini'];

const guarded = perApp((app: AppContext): GuardedClient => {
  const client = createGuardedClient({ allowPrivateNetwork: app.config.allowPrivateNetwork, timeoutMs: 60_000, maxResponseBytes: 16 * 1024 * 1024 });
  app.onClose(() => client.close());
  return client;
});

/** Recommended models per connection, asked once per process (a connection with brain.model empty). */
const recommended = perApp(() => new Map<string, Promise<string | null>>());

function canSee(kind: ProviderKind, model: string): boolean {
  const id = bareModelId(model);
  if (kind === 'gemini') return /^gemini/.test(id);
  return kind === 'openai' ? openAiCapabilities(id).vision : compatibleCapabilities(id).vision;
}

/** Finds a bot by id alone (the widget knows only the bot id), across workspaces. */
export async function findBot(app: AppContext, botId: string): Promise<BotDoc | null> {
  return app.store.collection<BotDoc>('bots').findOne({ _id: botId }, { crossWorkspace: true });
}

/**
 * The bot as a chat needs it: published config (the draft when preview), its version, and the brain.
 * Returns null when the bot does not exist or has nothing published (and no preview).
 */
export async function loadBotForChat(app: AppContext, botId: string, opts: { preview?: boolean; version?: number } = {}): Promise<ChatBot | null> {
  const doc = await findBot(app, botId);
  if (!doc) return null;
  let raw: unknown = doc.published?.config;
  let version = doc.published?.version ?? 0;
  if (opts.preview) { raw = doc.draft ?? raw ?? {}; version = 0; }
  else if (opts.version !== undefined && opts.version !== version) {
    const old = await app.store.collection<BotVersionDoc>('bot_versions').findOne({ workspaceId: doc.workspaceId, botId, version: opts.version });
    if (old) { raw = old.config; version = old.version; }
  }
  if (raw === undefined) return null;
  const config = BotConfigSchema.parse(raw);
  let identitySecret: string | undefined;
  if (doc.identitySecretSealed) identitySecret = openSecret(doc.identitySecretSealed, app.secretKey);
  return {
    bot: { _id: doc._id, workspaceId: doc.workspaceId, status: doc.status === 'paused' ? 'paused' : 'running', identitySecret },
    config, version, brain: await brainFor(app, doc.workspaceId, config),
  };
}

async function brainFor(app: AppContext, workspaceId: string, config: BotConfig): Promise<ChatBrain | null> {
  const providers = app.store.collection<ProviderDoc>('providers');
  const doc = config.brain.connectionId
    ? await providers.findById(workspaceId, config.brain.connectionId)
    // "a new bot uses the first connected": the oldest text-model connection.
    : (await providers.find({ workspaceId, kind: { $in: TEXT_KINDS } }, { sort: [['_id', 1]], limit: 1 }))[0] ?? null;
  if (!doc || !TEXT_KINDS.includes(doc.kind)) return null;
  const adapter = createProvider(
    { id: doc._id, kind: doc.kind, apiKey: openSecret(doc.apiKeySealed, app.secretKey), baseUrl: doc.baseUrl ?? null },
    { fetch: guarded(app).fetch as typeof fetch },
  );
  if (!adapter.chat) return null;
  let model = config.brain.model;
  if (!model) {
    const cache = recommended(app);
    let p = cache.get(doc._id);
    if (!p) {
      p = adapter.listModels().then((ms) => adapter.recommendedModel(ms)).catch(() => { cache.delete(doc._id); return null; });
      cache.set(doc._id, p);
    }
    model = (await p) ?? '';
  }
  if (!model) return null;
  return { adapter, kind: doc.kind, model, canSee: canSee(doc.kind, model) };
}
