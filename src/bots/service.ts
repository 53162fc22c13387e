/**
 * Bots (service-api.md, Bots): create from a template, the draft with revision checks, delete, duplicate,
 * restore, status, identity secret. Publishing is in publish.ts.
 */
import type { AppContext } from '../app/context.js';
import { getSettings } from '../auth/settings.js';
import type { HostedAgentPort } from './hosted-agent-port.js';
import { ApiError, badRequest, notFound } from '../kernel/errors.js';
import { listConnections, recommendedModelFor, TEXT_KINDS } from '../providers/connections.js';
import { sealSecret } from '../security/secret-box.js';
import { newId, newSecret } from '../store/ids.js';
import { applyConfigPatch, parseBotConfig, type BotConfig } from './config/index.js';
import type { BotConfigInput } from './config/schema.js';
import { BOT_LIST_FIELDS, getBot, type BotRecord, type BotStatus, type BotVersionRecord } from './records.js';
import { botLists, DEFAULT_PAGE, MAX_KEPT_BOTS, pageOf, type BotListItem, type ListLoader } from './list-cache.js';
import { findBotTemplate } from './templates.js';

export function botSummary(b: BotRecord) {
  return {
    id: b._id, name: b.name, status: b.status, revision: b.revision,
    publishedVersion: b.published?.version ?? null, publishedAt: b.published?.publishedAt ?? null,
    createdAt: b.createdAt, updatedAt: b.updatedAt,
  };
}

export const versionSummary = (v: BotVersionRecord) => ({ version: v.version, publishedAt: v.publishedAt, publishedBy: v.publishedBy });

/** Newest version first. */
export async function listVersions(app: AppContext, workspaceId: string, botId: string): Promise<BotVersionRecord[]> {
  return app.records.botVersions.find({ workspaceId, botId }, { sort: [['version', -1]], limit: 1000 });
}

/** A bot with its draft, published config and versions summary. */
export async function botView(app: AppContext, b: BotRecord) {
  const versions = await listVersions(app, b.workspaceId, b._id);
  return {
    ...botSummary(b),
    draft: b.draft,
    published: b.published,
    versions: versions.map(versionSummary),
    hasIdentitySecret: !!b.identitySecretSealed,
  };
}

/** The list's fields of a workspace's bots, newest first, from the store's list index. */
async function readList(app: AppContext, workspaceId: string, page: { limit: number; before?: string }): Promise<BotListItem[]> {
  const rows = await app.records.bots.findFields({ workspaceId }, BOT_LIST_FIELDS, page);
  return rows.map((b) => ({
    id: b._id, name: b.name as string, status: b.status as BotStatus, revision: b.revision as number,
    publishedVersion: b['published.version'] as number | null, publishedAt: b['published.publishedAt'] as number | null,
    createdAt: b.createdAt as number, updatedAt: b.updatedAt as number,
  }));
}

/**
 * A page of the bots list as the JSON bytes of the answer: from memory when the workspace's list is kept
 * (list-cache.ts), so a warm list costs no I/O; from the store for a workspace with too many bots to keep.
 */
export function listBots(app: AppContext, workspaceId: string, page: { limit?: number; before?: string }): Buffer | Promise<Buffer> {
  const limit = page.limit ?? DEFAULT_PAGE;
  const kept = botLists(app).page(workspaceId, (id) => loadKeptList(app, id), limit, page.before);
  if (Buffer.isBuffer(kept)) return kept;
  if (kept === null) return fromStore(app, workspaceId, limit, page.before);
  return kept.then((b) => b ?? fromStore(app, workspaceId, limit, page.before));
}

/** The workspace's whole list for the bot lists to keep, or null when it has too many bots to keep. */
async function loadKeptList(app: AppContext, workspaceId: string): ReturnType<ListLoader> {
  const all = await readList(app, workspaceId, { limit: MAX_KEPT_BOTS + 1 });
  return all.length > MAX_KEPT_BOTS ? null : all;
}

async function fromStore(app: AppContext, workspaceId: string, limit: number, before?: string): Promise<Buffer> {
  const list = await readList(app, workspaceId, { limit: limit + 1, before });
  return Buffer.from(JSON.stringify(pageOf(list, limit)));
}

/** "A new bot uses the first connected brain and the provider's recommended model" (bot-config.md, brain). */
async function withFirstBrain(app: AppContext, workspaceId: string, draft: BotConfig): Promise<BotConfig> {
  if (draft.brain.connectionId) return draft;
  const first = (await listConnections(app, workspaceId)).find((c) => TEXT_KINDS.includes(c.kind));
  if (!first) return draft;
  const model = draft.brain.model || (await recommendedModelFor(app, first)) || '';
  return { ...draft, brain: { ...draft.brain, connectionId: first._id, model } };
}

/**
 * A new bot speaks the workspace's language and lives in its time zone (settings defaultLanguage and timezone):
 * identity.language, identity.timezone and behavior.hours.timezone, unless the template sets them itself.
 */
async function workspaceDefaults(app: AppContext, workspaceId: string, template: BotConfigInput): Promise<BotConfigInput> {
  const { defaultLanguage, timezone } = await getSettings(app, workspaceId);
  const identity = template.identity ?? {};
  const behavior = template.behavior ?? {};
  return {
    ...template,
    identity: { language: defaultLanguage, timezone, ...identity },
    behavior: { ...behavior, hours: { timezone, ...behavior.hours } },
  };
}

export async function createBot(app: AppContext, workspaceId: string, input: { name: string; templateId?: string }): Promise<BotRecord> {
  const template = input.templateId === undefined ? undefined : findBotTemplate(input.templateId);
  if (input.templateId !== undefined && !template) throw badRequest(`templateId: unknown template ${JSON.stringify(input.templateId)}`);
  const draft = await withFirstBrain(app, workspaceId, parseBotConfig(await workspaceDefaults(app, workspaceId, template?.config ?? {})));
  const now = app.clock.now();
  const bot: BotRecord = {
    _id: newId('bot', now), workspaceId, name: input.name, status: 'running', draft, revision: 1, published: null,
    createdAt: now, updatedAt: now,
  };
  await app.records.bots.insertOne(bot);
  return bot;
}

/**
 * Changes the draft (and/or the name) only if the bot is still at `revision`: the check and the write are one
 * atomic update that bumps the revision, so of two edits made from the same read exactly one wins and the
 * other gets 409 conflict.
 */
async function writeDraft(app: AppContext, workspaceId: string, id: string, revision: number, change: { draft?: BotConfig; name?: string }): Promise<BotRecord> {
  const updated = await app.records.bots.updateOne(
    { workspaceId, _id: id, revision },
    { $set: { ...change, updatedAt: app.clock.now() }, $inc: { revision: 1 } },
  );
  if (updated) return updated;
  const current = await app.records.bots.findById(workspaceId, id);
  if (!current) throw notFound('bot');
  throw staleRevision(revision, current.revision);
}

export const staleRevision = (sent: number, current: number) =>
  new ApiError('conflict', 409, `revision: the bot was changed since revision ${sent} was read (now ${current}); read it again and resend`, {}, { revision: current });

/** A PATCH of the bot: a deep patch or a whole config of the draft, a new name, or a name with either. */
export interface DraftEdit { revision: number; patch?: unknown; config?: unknown; name?: string }

export async function editDraft(app: AppContext, workspaceId: string, id: string, edit: DraftEdit): Promise<BotRecord> {
  const bot = await getBot(app, workspaceId, id);
  if (bot.revision !== edit.revision) throw staleRevision(edit.revision, bot.revision);
  const draft = edit.patch !== undefined ? applyConfigPatch(bot.draft, edit.patch)
    : edit.config !== undefined ? parseBotConfig(edit.config) : undefined;
  return writeDraft(app, workspaceId, id, edit.revision, { ...(draft ? { draft } : {}), ...(edit.name !== undefined ? { name: edit.name } : {}) });
}

/** Copies a published version into the draft; the published config stays until the next publish. */
export async function restoreVersion(app: AppContext, workspaceId: string, id: string, version: number, revision?: number): Promise<BotRecord> {
  const bot = await getBot(app, workspaceId, id);
  const v = await app.records.botVersions.findOne({ workspaceId, botId: id, version });
  if (!v) throw notFound(`version ${version}`);
  if (revision !== undefined && revision !== bot.revision) throw staleRevision(revision, bot.revision);
  // Parsed again so a version frozen under older defaults comes back complete.
  return writeDraft(app, workspaceId, id, bot.revision, { draft: parseBotConfig(v.config) });
}

export async function deleteBot(app: AppContext, hostedAgents: HostedAgentPort, workspaceId: string, id: string): Promise<void> {
  if (!(await app.records.bots.deleteOne({ workspaceId, _id: id }))) throw notFound('bot');
  await app.records.botVersions.deleteMany({ workspaceId, botId: id });
  await hostedAgents.remove(app, workspaceId, id);
}

/** A new bot, running, with a copy of the draft; status, versions, published config and the identity secret are not copied. */
export async function duplicateBot(app: AppContext, workspaceId: string, id: string, name?: string): Promise<BotRecord> {
  const source = await getBot(app, workspaceId, id);
  const now = app.clock.now();
  const copy: BotRecord = {
    _id: newId('bot', now), workspaceId, name: name ?? `${source.name} (copy)`.slice(0, 80), status: 'running',
    draft: structuredClone(source.draft), revision: 1, published: null, createdAt: now, updatedAt: now,
  };
  await app.records.bots.insertOne(copy);
  return copy;
}

export async function setStatus(app: AppContext, workspaceId: string, id: string, status: BotStatus): Promise<BotRecord> {
  const updated = await app.records.bots.updateOne({ workspaceId, _id: id }, { $set: { status, updatedAt: app.clock.now() } });
  if (!updated) throw notFound('bot');
  return updated;
}

/** A new identity-verification secret: returned here once, stored sealed; the old one stops working. */
export async function newIdentitySecret(app: AppContext, workspaceId: string, id: string): Promise<string> {
  const secret = `bis_${newSecret(32)}`;
  const updated = await app.records.bots.updateOne(
    { workspaceId, _id: id },
    { $set: { identitySecretSealed: sealSecret(secret, app.secretKey, id), updatedAt: app.clock.now() } },
  );
  if (!updated) throw notFound('bot');
  return secret;
}
