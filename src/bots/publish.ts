/**
 * Publishing (service-api.md, States: Bot draft -> new published version): check the draft, freeze it as the
 * next integer version in 'bot_versions', point the bot's published config at it, emit bot.published.
 * Conversations already under way keep the version they started with (they read bot_versions).
 */
import { isDeepStrictEqual } from 'node:util';
import type { AppContext } from '../app/context.js';
import type { HostedAgentPort } from './hosted-agent-port.js';
import { conflict, invalid } from '../kernel/errors.js';
import { adapterFor, connectionModels, listConnections, TEXT_KINDS, type ProviderDoc } from '../providers/connections.js';
import type { ProviderKind } from '../providers/index.js';
import type { ModelCapabilities, ModelInfo } from '../providers/types.js';
import { DuplicateKeyError } from '../store/types.js';
import type { BotConfig } from './config/index.js';
import { customFaceOf, getBot, type BotRecord } from './records.js';
import { voiceChecks, withinListWait } from './publish-voices.js';
import { staleRevision } from './service.js';

export interface PublishProblem { path: string; message: string }

/** Provider names as people know them, in the order they are listed ("an OpenAI or Google Gemini connection"). */
const PROVIDER_NAMES: Record<ProviderKind, string> = {
  openai: 'OpenAI', gemini: 'Google Gemini', openai_compatible: 'OpenAI-compatible', speech: 'ElevenLabs-compatible speech',
};
const ORDER: ProviderKind[] = ['openai', 'gemini', 'openai_compatible', 'speech'];
const withArticle = (words: string) => `${/^[aeiou]/i.test(words) ? 'an' : 'a'} ${words}`;
/** "an OpenAI, Google Gemini or OpenAI-compatible connection" */
function connectionOf(kinds: ProviderKind[]): string {
  const names = ORDER.filter((k) => kinds.includes(k)).map((k) => PROVIDER_NAMES[k]);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` : names[0];
  return `${withArticle(list)} connection`;
}

/** Every problem that would stop the draft from working, each naming its setting. Empty when it can be published. */
export async function checkDraft(app: AppContext, workspaceId: string, config: BotConfig): Promise<PublishProblem[]> {
  const problems: PublishProblem[] = [];
  // A floating window with neither a message box nor voice would leave the visitor no way to say anything.
  if (config.appearance.layout === 'floating' && !config.appearance.floating.composer && !config.voice.enabled) {
    problems.push({ path: 'appearance.floating.composer', message: 'a floating layout without a message box leaves visitors no way to write; turn appearance.floating.composer on, or turn voice on (voice.enabled), or choose another layout' });
  }
  const connections = await listConnections(app, workspaceId);
  const byId = new Map(connections.map((c) => [c._id, c]));

  /** The connection a setting names (null: the fallback, if it fits), checked against the kinds it allows. */
  const resolve = (path: string, id: string | null, kinds: ProviderKind[], fallback: ProviderDoc | null, what: string): ProviderDoc | null => {
    const needs = `${what} needs ${connectionOf(kinds)}`;
    if (id === null) {
      if (fallback && kinds.includes(fallback.kind)) return fallback;
      const why = fallback ? `, and the one it would use by default (${fallback.name}) is ${connectionOf([fallback.kind])}; choose one here` : '; connect one (Providers), then choose it here';
      problems.push({ path, message: needs + why });
      return null;
    }
    const conn = byId.get(id);
    if (!conn) problems.push({ path, message: `connection ${id} does not exist (it may have been removed); choose one of the connections GET /api/v1/providers lists` });
    else if (!kinds.includes(conn.kind)) problems.push({ path, message: `${needs}, and ${conn.name} is ${connectionOf([conn.kind])}; choose another` });
    else return conn;
    return null;
  };
  const models = offeredModels(app, workspaceId);
  /** A model the setting names must be one the connection offers (checked only when its list can be had). */
  const checkModel = async (path: string, conn: ProviderDoc | null, model: string, fits: keyof ModelCapabilities) => {
    if (!conn || !model) return;
    const list = await models.find(conn, model);
    if (!list) return;
    const offered = offers(list, conn, model);
    // A speech-to-text or realtime setting naming a model that cannot do that (a text model, say) would fail every turn.
    const unfit = offered && (fits === 'stt' || fits === 'realtime') && !find(list, conn, model)?.capabilities[fits];
    if (offered && !unfit) return;
    const fitting = list.filter((m) => m.capabilities[fits]).map((m) => m.id);
    if (unfit) {
      const what = fits === 'stt' ? 'speech-to-text' : 'realtime';
      problems.push({
        path,
        message: `${model} is not a ${what} model; choose one of the ${what} models of ${conn.name} (GET /api/v1/providers/${conn._id}/models lists them)${fitting.length ? `: ${fitting.slice(0, 12).join(', ')}` : ''}`,
      });
      return;
    }
    const examples = fitting.slice(0, 3);
    problems.push({
      path,
      message: `${conn.name} does not offer the model ${model}; choose one of the models GET /api/v1/providers/${conn._id}/models lists${examples.length ? ` (such as ${examples.join(', ')})` : ''}`,
    });
  };
  const voices = voiceChecks(app, problems);

  // A null brain means "the first connected" text-model provider, as the chat engine reads it.
  const firstText = connections.find((c) => TEXT_KINDS.includes(c.kind)) ?? null;
  const brain = resolve('brain.connectionId', config.brain.connectionId, [...TEXT_KINDS], firstText, 'replying');
  if (brain && !canChat(app, brain)) problems.push({ path: 'brain.connectionId', message: `${brain.name} cannot write replies (or its key cannot be read: connect it again)` });
  if (!config.brain.model) {
    problems.push({ path: 'brain.model', message: `choose a model${brain ? `: one of the models GET /api/v1/providers/${brain._id}/models lists` : ''}` });
  } else await checkModel('brain.model', brain, config.brain.model, 'text');

  const v = config.voice;
  if (v.enabled) {
    if (v.mode === 'realtime') {
      const rt = resolve('voice.realtime.connectionId', v.realtime.connectionId, ['openai', 'gemini'], brain, 'realtime voice');
      await checkModel('voice.realtime.model', rt, v.realtime.model, 'realtime');
      voices.realtime('voice.realtime.voice', rt, v.realtime.voice);
    } else if (v.mode === 'cascade') {
      const stt = resolve('voice.cascade.stt.connectionId', v.cascade.stt.connectionId, ['openai', 'speech'], brain, 'speech to text');
      await checkModel('voice.cascade.stt.model', stt, v.cascade.stt.model, 'stt');
      const tts = resolve('voice.cascade.tts.connectionId', v.cascade.tts.connectionId, ['speech', 'openai', 'gemini'], brain, 'text to speech');
      await checkModel('voice.cascade.tts.model', tts, v.cascade.tts.model, 'tts');
      await voices.speech('voice.cascade.tts.voice', tts, v.cascade.tts.voice);
    } else {
      const agent = resolve('voice.hostedAgent.connectionId', v.hostedAgent.connectionId, ['speech'], null, 'a hosted voice agent');
      if (!v.hostedAgent.voice) problems.push({ path: 'voice.hostedAgent.voice', message: 'choose a voice' });
      else await voices.speech('voice.hostedAgent.voice', agent, v.hostedAgent.voice);
    }
  }
  if (config.appearance.face.textReplies === 'speak' && !(v.enabled && v.mode === 'cascade')) {
    const tts = resolve('voice.cascade.tts.connectionId', v.cascade.tts.connectionId, ['speech', 'openai', 'gemini'], brain, 'reading replies aloud (appearance.face.textReplies speak)');
    await checkModel('voice.cascade.tts.model', tts, v.cascade.tts.model, 'tts');
    await voices.speech('voice.cascade.tts.voice', tts, v.cascade.tts.voice);
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

/**
 * The model lists of the workspace's connections for one check: the cached list first; a model missing from it is
 * looked up once more in a list asked afresh, since the cache may predate the model. null when
 * the provider cannot be asked in time (unreachable, key refused, slow): publishing is not blocked on what cannot be known.
 */
function offeredModels(app: AppContext, workspaceId: string) {
  const lists = new Map<string, Promise<{ items: ModelInfo[]; fresh: boolean } | null>>();
  const fetch = (conn: ProviderDoc, refresh: boolean) =>
    withinListWait(app, async () => ({ items: (await connectionModels(app, workspaceId, conn._id, refresh)).items, fresh: refresh }));
  return {
    async find(conn: ProviderDoc, model: string): Promise<ModelInfo[] | null> {
      if (!lists.has(conn._id)) lists.set(conn._id, fetch(conn, false));
      const list = await lists.get(conn._id)!;
      if (!list || list.fresh || offers(list.items, conn, model)) return list?.items ?? null;
      const fresh = fetch(conn, true);
      lists.set(conn._id, fresh);
      return (await fresh)?.items ?? null;
    },
  };
}

/** Gemini names models "models/gemini-2.5-flash" as well as "gemini-2.5-flash"; the list holds the short form. */
function find(list: ModelInfo[], conn: ProviderDoc, model: string): ModelInfo | undefined {
  const id = conn.kind === 'gemini' ? model.replace(/^models\//, '') : model;
  return list.find((m) => m.id === id);
}
const offers = (list: ModelInfo[], conn: ProviderDoc, model: string) => !!find(list, conn, model);

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

/** The 409 for a publish that would make a version identical to the live one (docs/decisions.md). */
export const nothingToPublish = (version: number) =>
  conflict(`nothing to publish: the draft is the same as the published version ${version}; change the draft (PATCH /api/v1/bots/{id}) first`);

/**
 * Publishes the draft as the next version. Throws 422 invalid listing every problem, 409 on a stale revision, or
 * 409 when the draft equals the published config (an identical version would be noise in the history).
 */
export async function publishBot(
  app: AppContext, hostedAgents: HostedAgentPort, workspaceId: string, id: string, by: { id: string; name: string } | null, revision?: number,
): Promise<BotRecord> {
  const bot = await getBot(app, workspaceId, id);
  if (revision !== undefined && revision !== bot.revision) throw staleRevision(revision, bot.revision);
  if (bot.published && isDeepStrictEqual(bot.published.config, bot.draft)) throw nothingToPublish(bot.published.version);
  const problems = await checkDraft(app, workspaceId, bot.draft);
  if (problems.length) {
    throw invalid(`the draft cannot be published: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, problems);
  }
  // The hosted voice agent is made or updated first: a refusal by its provider stops the publish (422 naming the
  // setting), and an update whose version then cannot be stored is put back.
  const agent = await hostedAgents.sync(app, workspaceId, bot, bot.draft);
  // Numbered from the versions kept, not from bot.published, so numbers never repeat.
  const [latest] = await app.records.botVersions.find({ workspaceId, botId: id }, { sort: [['version', -1]], limit: 1 });
  const version = (latest?.version ?? 0) + 1;
  const publishedAt = app.clock.now();
  try {
    await app.records.botVersions.insertOne({ _id: `bver_${id.replace(/^bot_/, '')}_${version}`, workspaceId, botId: id, version, config: bot.draft, publishedAt, publishedBy: by });
  } catch (err) {
    await agent.undo().catch((e) => app.log.error({ err: e, botId: id }, 'putting the hosted agent back failed'));
    if (err instanceof DuplicateKeyError) throw conflict('the bot was published by someone else at the same moment; try again');
    throw err;
  }
  await agent.commit().catch((e) => app.log.warn({ err: e, botId: id }, 'removing the replaced hosted agent failed'));
  // A slower publish of an older number must not overwrite a newer one.
  const updated = await app.records.bots.updateOne(
    { workspaceId, _id: id, $or: [{ published: null }, { 'published.version': { $lt: version } }] },
    { $set: { published: { version, config: bot.draft, publishedAt }, updatedAt: publishedAt } },
  );
  await app.events.publish(workspaceId, 'bot.published', { botId: id, version });
  return updated ?? (await getBot(app, workspaceId, id));
}
