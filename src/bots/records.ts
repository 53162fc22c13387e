/**
 * Bot records, shared with the chat engine (src/bots/bot-source.ts reads them directly):
 * 'bots' holds the draft, its revision and the published config; 'bot_versions' one frozen copy per version.
 */
import type { AppContext } from '../app/context.js';
import type { RecordSpecs } from '../app/records.js';
import { notFound } from '../kernel/errors.js';
import { openSecret } from '../security/secret-box.js';
import type { Collection, Doc } from '../store/types.js';
import type { BotConfig } from './config/index.js';

export type BotStatus = 'running' | 'paused';

export interface PublishedConfig {
  version: number;
  config: BotConfig;
  publishedAt: number;
}

export interface BotRecord extends Doc {
  name: string;
  status: BotStatus;
  draft: BotConfig;
  /** Bumped by every draft change; an edit must carry the revision it read. */
  revision: number;
  published: PublishedConfig | null;
  /** sealSecret(secret, app.secretKey, _id) */
  identitySecretSealed?: string;
  createdAt: number;
  updatedAt: number;
}

export interface BotVersionRecord extends Doc {
  botId: string;
  version: number;
  config: BotConfig;
  publishedAt: number;
  /** Who published: a user or token id and display name. */
  publishedBy: { id: string; name: string } | null;
}

/** What the bots list shows of each bot: kept in the store's list index, so listing never loads the configs. */
export const BOT_LIST_FIELDS = ['name', 'status', 'revision', 'published.version', 'published.publishedAt', 'createdAt', 'updatedAt'] as const;

declare module '../app/records.js' {
  interface Records {
    /** Every write through it drops the workspace's kept bots list (list-cache.ts), here and in the scale-out group. */
    bots: Collection<BotRecord>;
    botVersions: Collection<BotVersionRecord>;
  }
}
/** Opened once at start-up (src/records-root.ts, which reports the bots' writes to the bot lists). */
export const botRecords = {
  bots: { name: 'bots', listFields: [...BOT_LIST_FIELDS] },
  // Two publishes racing for one number: the second insert fails instead of overwriting.
  botVersions: { name: 'bot_versions', indexes: [{ fields: [['workspaceId', 1], ['botId', 1], ['version', 1]], unique: true }] },
} satisfies RecordSpecs<'bots' | 'botVersions'>;

export async function getBot(app: AppContext, workspaceId: string, id: string): Promise<BotRecord> {
  const bot = await app.records.bots.findById(workspaceId, id);
  if (!bot) throw notFound('bot');
  return bot;
}

/** The bot's identity-verification secret in plain text, or null when none was made (for the chat engine). */
export function openIdentitySecret(app: AppContext, bot: Pick<BotRecord, '_id' | 'identitySecretSealed'>): string | null {
  return bot.identitySecretSealed ? openSecret(bot.identitySecretSealed, app.secretKey, bot._id) : null;
}

/** Every provider connection id a config names (brain, voice engines, vision proxy). */
export function connectionIdsOf(config: BotConfig): string[] {
  const ids = [
    config.brain.connectionId,
    config.voice.realtime.connectionId,
    config.voice.cascade.stt.connectionId,
    config.voice.cascade.tts.connectionId,
    config.voice.hostedAgent.connectionId,
    config.vision.proxy.connectionId,
  ];
  return [...new Set(ids.filter((v): v is string => !!v))];
}

/** The custom face asset a config uses, if any. */
export function customFaceOf(config: BotConfig): string | null {
  return config.face.skin?.kind === 'custom' ? config.face.skin.assetId : null;
}

/** Bots whose draft or published config satisfies `uses` (workspaces hold few bots, so a scan is fine). */
export async function botsUsing(app: AppContext, workspaceId: string, uses: (config: BotConfig) => boolean): Promise<Array<{ id: string; name: string }>> {
  const all = await app.records.bots.find({ workspaceId }, { limit: 10_000 });
  return all
    .filter((b) => uses(b.draft) || (b.published !== null && uses(b.published.config)))
    .map((b) => ({ id: b._id, name: b.name }));
}
