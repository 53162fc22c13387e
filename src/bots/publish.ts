/**
 * Publishing (service-api.md, States: Bot draft -> new published version): check the draft, freeze it as the
 * next integer version in 'bot_versions', point the bot's published config at it, emit bot.published.
 * Conversations already under way keep the version they started with (they read bot_versions).
 */
import type { AppContext } from '../app.js';
import { conflict, invalid } from '../errors.js';
import { adapterFor, listConnections, TEXT_KINDS, type ProviderDoc } from '../providers/connections.js';
import type { ProviderKind } from '../providers/index.js';
import { DuplicateKeyError } from '../store/types.js';
import type { BotConfig } from './config/index.js';
import { botVersions, bots, customFaceOf, getBot, type BotRecord } from './records.js';
import { staleRevision } from './service.js';

export interface PublishProblem { path: string; message: string }

const KIND_NAMES: Record<ProviderKind, string> = { openai_compatible: 'A', openai: 'B', gemini: 'C', speech: 'D' };
const kindsText = (kinds: ProviderKind[]) => kinds.map((k) => KIND_NAMES[k]).join(' or ');

/** Every problem that would stop the draft from working, each naming its setting. Empty when it can be published. */
export async function checkDraft(app: AppContext, workspaceId: string, config: BotConfig): Promise<PublishProblem[]> {
  const problems: PublishProblem[] = [];
  const connections = await listConnections(app, workspaceId);
  const byId = new Map(connections.map((c) => [c._id, c]));

  /** The connection a setting names (null: the fallback, if it fits), checked against the kinds it allows. */
  const resolve = (path: string, id: string | null, kinds: ProviderKind[], fallback: ProviderDoc | null, what: string): ProviderDoc | null => {
    if (id === null) {
      if (fallback && kinds.includes(fallback.kind)) return fallback;
      problems.push({ path, message: `${what} needs a connection of kind ${kindsText(kinds)}` });
      return null;
    }
    const conn = byId.get(id);
    if (!conn) problems.push({ path, message: `connection ${id} does not exist` });
    else if (!kinds.includes(conn.kind)) problems.push({ path, message: `${what} needs a connection of kind ${kindsText(kinds)}, ${conn.name} is kind ${KIND_NAMES[conn.kind]}` });
    else return conn;
    return null;
  };

  // A null brain means "the first connected" text-model provider, as the chat engine reads it.
  const firstText = connections.find((c) => TEXT_KINDS.includes(c.kind)) ?? null;
  const brain = resolve('brain.connectionId', config.brain.connectionId, [...TEXT_KINDS], firstText, 'replying');
  if (brain && !canChat(app, brain)) problems.push({ path: 'brain.connectionId', message: `${brain.name} cannot write replies (or its key cannot be read: connect it again)` });
  if (!config.brain.model) problems.push({ path: 'brain.model', message: 'choose a model' });

  const v = config.voice;
  if (v.enabled) {
    if (v.mode === 'realtime') {
      resolve('voice.realtime.connectionId', v.realtime.connectionId, ['openai', 'gemini'], brain, 'realtime voice');
    } else if (v.mode === 'cascade') {
      resolve('voice.cascade.stt.connectionId', v.cascade.stt.connectionId, ['openai', 'speech'], brain, 'speech to text');
      resolve('voice.cascade.tts.connectionId', v.cascade.tts.connectionId, ['speech', 'openai', 'gemini'], brain, 'text to speech');
    } else {
      resolve('voice.hostedAgent.connectionId', v.hostedAgent.connectionId, ['speech'], null, 'a hosted voice agent');
      if (!v.hostedAgent.voice) problems.push({ path: 'voice.hostedAgent.voice', message: 'choose a voice' });
    }
  }
  if (config.appearance.face.textReplies === 'speak' && !(v.enabled && v.mode === 'cascade')) {
    resolve('voice.cascade.tts.connectionId', v.cascade.tts.connectionId, ['speech', 'openai', 'gemini'], brain, 'reading replies aloud (appearance.face.textReplies speak)');
  }
  if (config.vision.proxy.connectionId !== null) {
    resolve('vision.proxy.connectionId', config.vision.proxy.connectionId, [...TEXT_KINDS], null, 'describing camera pictures');
  }

  await checkExists(app, workspaceId, 'knowledge_sources', config.knowledge.sourceIds.map((id, i) => [`knowledge.sourceIds.${i}`, id]), 'knowledge source', problems);
  await checkExists(app, workspaceId, 'http_tools', config.tools.http.map((t, i) => [`tools.http.${i}.toolId`, t.toolId]), 'HTTP tool', problems);
  await checkExists(app, workspaceId, 'mcp_servers', config.tools.mcp.map((s, i) => [`tools.mcp.${i}.serverId`, s.serverId]), 'MCP server', problems);
  const face = customFaceOf(config);
  if (face) await checkExists(app, workspaceId, 'faces', [['face.skin.assetId', face]], 'custom face', problems);
  return problems;
}

function canChat(app: AppContext, conn: ProviderDoc): boolean {
  try {
    return !!adapterFor(app, conn).chat;
  } catch {
    return false;
  }
}

async function checkExists(app: AppContext, workspaceId: string, collection: string, refs: Array<[path: string, id: string]>, what: string, problems: PublishProblem[]): Promise<void> {
  if (!refs.length) return;
  const ids = [...new Set(refs.map(([, id]) => id))];
  const found = await app.store.collection(collection).find({ workspaceId, _id: { $in: ids } }, { limit: ids.length });
  const have = new Set(found.map((d) => d._id));
  for (const [path, id] of refs) if (!have.has(id)) problems.push({ path, message: `${what} ${id} does not exist` });
}

/** Publishes the draft as the next version. Throws 422 invalid listing every problem, or 409 on a stale revision. */
export async function publishBot(
  app: AppContext, workspaceId: string, id: string, by: { id: string; name: string } | null, revision?: number,
): Promise<BotRecord> {
  const bot = await getBot(app, workspaceId, id);
  if (revision !== undefined && revision !== bot.revision) throw staleRevision(revision, bot.revision);
  const problems = await checkDraft(app, workspaceId, bot.draft);
  if (problems.length) {
    throw invalid(`the draft cannot be published: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, problems);
  }
  // Numbered from the versions kept, not from bot.published, so numbers never repeat.
  const [latest] = await botVersions(app).find({ workspaceId, botId: id }, { sort: [['version', -1]], limit: 1 });
  const version = (latest?.version ?? 0) + 1;
  const publishedAt = app.clock.now();
  try {
    await botVersions(app).insertOne({ _id: `bver_${id.replace(/^bot_/, '')}_${version}`, workspaceId, botId: id, version, config: bot.draft, publishedAt, publishedBy: by });
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw conflict('the bot was published by someone else at the same moment; try again');
    throw err;
  }
  // A slower publish of an older number must not overwrite a newer one.
  const updated = await bots(app).updateOne(
    { workspaceId, _id: id, $or: [{ published: null }, { 'published.version': { $lt: version } }] },
    { $set: { published: { version, config: bot.draft, publishedAt }, updatedAt: publishedAt } },
  );
  await app.events.publish(workspaceId, 'bot.published', { botId: id, version });
  return updated ?? (await getBot(app, workspaceId, id));
}
