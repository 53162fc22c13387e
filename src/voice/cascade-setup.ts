/**
 * What a cascade voice session (voice.mode cascade) is made of, resolved from the bot's config and the workspace's
 * connections as publishing resolves them (src/bots/publish.ts): speech to text (voice.cascade.stt, kind B or D),
 * the brain (brain.*, kind A, B or C) and text to speech (voice.cascade.tts, kind D, B or C); an empty connection
 * uses the brain's when its kind fits. Adapters send through a guarded client, as every provider call does.
 */
import type { AppContext } from '../app/context.js';
import { perApp } from '../app/context.js';
import type { BotConfig } from '../bots/config/index.js';
import { guardedAdapter, openProviderKey, providers, TEXT_KINDS, type ProviderDoc } from '../providers/connections.js';
import type { CascadeConnection } from '../providers/cascade/engine.js';
import { defaultSpeechModels } from '../providers/cascade/parts.js';
import type { ProviderAdapter, ProviderKind } from '../providers/types.js';
import { providerClient } from '../providers/http-client.js';

export interface CascadeSetup {
  mode: 'cascade';
  connection: CascadeConnection;
  /** Usage is counted under the brain's model (the engine prices speech to text and speech on top). */
  model: string;
  voice: string;
}

const STT_KINDS: ProviderKind[] = ['openai', 'speech'];
const TTS_KINDS: ProviderKind[] = ['speech', 'openai', 'gemini'];

/**
 * Adapters by connection, key and limits: the widget's config asks for the setup on every page view, and sessions
 * share one client and its connections.
 */
const adapters = perApp(() => new Map<string, ProviderAdapter>());

export async function cascadeSetup(app: AppContext, workspaceId: string, config: BotConfig): Promise<CascadeSetup | { error: string }> {
  const c = config.voice.cascade;
  const find = (id: string) => providers(app).findById(workspaceId, id);
  const brain = config.brain.connectionId
    ? await find(config.brain.connectionId)
    : (await providers(app).find({ workspaceId, kind: { $in: [...TEXT_KINDS] } }, { sort: [['_id', 1]], limit: 1 }))[0] ?? null;
  if (!brain || !TEXT_KINDS.includes(brain.kind)) return { error: 'cascade voice needs a text model connection for the brain (brain.connectionId)' };
  if (!config.brain.model) return { error: 'cascade voice needs the brain\'s model (brain.model)' };
  /** The connection a setting names, or the brain's when it fits. */
  const pick = async (id: string | null, kinds: ProviderKind[]) => {
    const doc = id ? await find(id) : brain;
    return doc && kinds.includes(doc.kind) ? doc : null;
  };
  const stt = await pick(c.stt.connectionId, STT_KINDS);
  if (!stt) return { error: 'cascade voice needs an OpenAI or ElevenLabs-compatible speech connection for speech to text (voice.cascade.stt.connectionId)' };
  const tts = await pick(c.tts.connectionId, TTS_KINDS);
  if (!tts) return { error: 'cascade voice needs an ElevenLabs-compatible speech, OpenAI or Google Gemini connection for text to speech (voice.cascade.tts.connectionId)' };

  const cache = adapters(app);
  const adapterOf = (doc: ProviderDoc, limits: { timeoutMs: number; maxRetries: number }) => {
    const key = `${doc._id}|${doc.apiKeySealed}|${doc.baseUrl ?? ''}|${limits.timeoutMs}|${limits.maxRetries}`;
    let a = cache.get(key);
    if (!a) {
      a = guardedAdapter(providerClient(app), { id: doc._id, kind: doc.kind, apiKey: openProviderKey(app, doc), baseUrl: doc.baseUrl ?? null }, limits);
      if (cache.size >= 500) cache.delete(cache.keys().next().value!);
      cache.set(key, a);
    }
    return a;
  };
  let parts: CascadeConnection['cascade'];
  try {
    parts = {
      // The brain may think before it writes (reasoning models); its stream is watched by the engine.
      brain: { adapter: adapterOf(brain, { timeoutMs: 60_000, maxRetries: 1 }), label: brain.name, model: config.brain.model, effort: config.brain.effort, temperature: config.brain.temperature, maxToolRounds: config.brain.maxToolRounds },
      stt: {
        adapter: adapterOf(stt, { timeoutMs: 15_000, maxRetries: 0 }), label: stt.name, model: c.stt.model || defaultSpeechModels(stt.kind).stt,
        language: c.stt.language || (config.identity.languagePolicy === 'fixed' ? config.identity.language : null),
      },
      tts: {
        adapter: adapterOf(tts, { timeoutMs: 15_000, maxRetries: 0 }), label: tts.name, model: c.tts.model || defaultSpeechModels(tts.kind).tts,
        voice: c.tts.voice, speed: c.tts.speed, style: tts.kind === 'speech' ? '' : c.tts.style,
      },
    };
  } catch {
    return { error: 'a key of the voice connections cannot be read; connect it again' };
  }
  return {
    mode: 'cascade',
    connection: { id: brain._id, kind: brain.kind, apiKey: '', cascade: parts },
    model: config.brain.model,
    voice: c.tts.voice,
  };
}
