/**
 * Provider connections (service-api.md, Providers): records in collection 'providers', keys sealed at rest
 * with the record id as context, checked with the provider before anything is saved, never returned.
 */
import type { AppContext } from '../app/context.js';
import { ApiError, invalid, notFound } from '../kernel/errors.js';
import type { GuardedClient } from '../security/guarded-client.js';
import { providerClient } from './http-client.js';
import { openSecret, sealSecret } from '../security/secret-box.js';
import { newId } from '../store/ids.js';
import type { Doc } from '../store/types.js';
import { catalogEntry } from './catalog.js';
import { createProvider } from './index.js';
import type { AudioResult, ModelInfo, ProviderAdapter, ProviderConnection, ProviderKind, VoiceInfo } from './types.js';

export interface ProviderDoc extends Doc {
  kind: ProviderKind;
  name: string;
  baseUrl: string | null;
  /** sealSecret(apiKey, app.secretKey, _id) */
  apiKeySealed: string;
  createdAt: number;
  updatedAt?: number;
  modelsCache?: { at: number; models: ModelInfo[] };
}

export interface ConnectionView {
  id: string;
  kind: ProviderKind;
  letter: 'A' | 'B' | 'C' | 'D';
  name: string;
  baseUrl: string | null;
  /** The last four characters of the key, e.g. "…a1b2": enough to tell keys apart, never the key. */
  keyHint: string;
  createdAt: number;
  updatedAt: number;
}

/** Kinds that can run a bot's replies (brain.connectionId). */
export const TEXT_KINDS: readonly ProviderKind[] = ['openai_compatible', 'openai', 'gemini'];
export const MODELS_CACHE_MS = 24 * 60 * 60 * 1000;

export const providers = (app: AppContext) => app.store.collection<ProviderDoc>('providers');

/** The guarded fetch of this app, for provider HTTP calls made outside an adapter (hosted agents). */
export function providerFetch(app: AppContext): typeof fetch {
  return providerClient(app).fetch as typeof fetch;
}

/** The plain API key of a stored connection (for the chat engine and voice sessions). */
export function openProviderKey(app: AppContext, doc: Pick<ProviderDoc, '_id' | 'apiKeySealed'>): string {
  return openSecret(doc.apiKeySealed, app.secretKey, doc._id);
}

/** An adapter whose every request goes through the given guarded client (nodeFetch for the OpenAI SDK's kinds). */
export function guardedAdapter(client: GuardedClient, conn: ProviderConnection, limits: { timeoutMs: number; maxRetries: number }): ProviderAdapter {
  return createProvider(conn, { fetch: client.fetch as typeof fetch, nodeFetch: client.nodeFetch, ...limits });
}

function adapterWith(app: AppContext, id: string, kind: ProviderKind, apiKey: string, baseUrl: string | null): ProviderAdapter {
  return guardedAdapter(providerClient(app), { id, kind, apiKey, baseUrl }, { timeoutMs: 30_000, maxRetries: 1 });
}

/** The adapter for a stored connection, sending through the guarded client. */
export function adapterFor(app: AppContext, doc: ProviderDoc): ProviderAdapter {
  return adapterWith(app, doc._id, doc.kind, openProviderKey(app, doc), doc.baseUrl);
}

export function connectionView(app: AppContext, doc: ProviderDoc): ConnectionView {
  let keyHint = '';
  try {
    const key = openProviderKey(app, doc);
    keyHint = key.length > 8 ? `…${key.slice(-4)}` : '…';
  } catch {
    keyHint = '(unreadable: the server key changed)';
  }
  return {
    id: doc._id, kind: doc.kind, letter: catalogEntry(doc.kind).letter, name: doc.name, baseUrl: doc.baseUrl,
    keyHint, createdAt: doc.createdAt, updatedAt: doc.updatedAt ?? doc.createdAt,
  };
}

export async function getConnection(app: AppContext, workspaceId: string, id: string): Promise<ProviderDoc> {
  const doc = await providers(app).findById(workspaceId, id);
  if (!doc) throw notFound('provider connection');
  return doc;
}

/** Oldest first, so "the first connected" brain is the first text-capable entry. */
export async function listConnections(app: AppContext, workspaceId: string): Promise<ProviderDoc[]> {
  return providers(app).find({ workspaceId }, { sort: [['_id', 1]], limit: 500 });
}

function normaliseBaseUrl(kind: ProviderKind, baseUrl: string | null | undefined): string | null {
  const trimmed = baseUrl?.trim().replace(/\/+$/, '') || null;
  if (!trimmed && catalogEntry(kind).needsBaseUrl) throw invalid('baseUrl: required for this kind of provider, e.g. http://localhost:11434/v1');
  return trimmed;
}

export interface ConnectInput { kind: ProviderKind; name?: string; apiKey: string; baseUrl?: string | null }

/** Checks the key with the provider first: a bad key throws 422 and nothing is stored. */
export async function connect(app: AppContext, workspaceId: string, input: ConnectInput): Promise<ProviderDoc> {
  const now = app.clock.now();
  const id = newId('prv', now);
  const baseUrl = normaliseBaseUrl(input.kind, input.baseUrl);
  await adapterWith(app, id, input.kind, input.apiKey, baseUrl).verifyKey();
  const doc: ProviderDoc = {
    _id: id, workspaceId, kind: input.kind, name: input.name?.trim() || catalogEntry(input.kind).label, baseUrl,
    apiKeySealed: sealSecret(input.apiKey, app.secretKey, id), createdAt: now, updatedAt: now,
  };
  await providers(app).insertOne(doc);
  return doc;
}

export interface UpdateInput { name?: string; apiKey?: string; baseUrl?: string | null }

/** Rename, or replace the key (or base URL): a new key or URL is checked before it replaces the old one. */
export async function updateConnection(app: AppContext, workspaceId: string, id: string, input: UpdateInput): Promise<ProviderDoc> {
  const doc = await getConnection(app, workspaceId, id);
  const $set: Record<string, unknown> = { updatedAt: app.clock.now() };
  const $unset: string[] = [];
  if (input.name !== undefined) $set.name = input.name.trim();
  if (input.apiKey !== undefined || input.baseUrl !== undefined) {
    const apiKey = input.apiKey ?? openProviderKey(app, doc);
    const baseUrl = input.baseUrl !== undefined ? normaliseBaseUrl(doc.kind, input.baseUrl) : doc.baseUrl;
    await adapterWith(app, id, doc.kind, apiKey, baseUrl).verifyKey();
    $set.apiKeySealed = sealSecret(apiKey, app.secretKey, id);
    $set.baseUrl = baseUrl;
    // Another key or server may see other models.
    $unset.push('modelsCache');
  }
  const updated = await providers(app).updateOne({ workspaceId, _id: id }, { $set, ...($unset.length ? { $unset } : {}) });
  if (!updated) throw notFound('provider connection');
  return updated;
}

/** Deletes unless a bot's draft or published config names it (409 conflict listing those bots). */
export async function removeConnection(app: AppContext, workspaceId: string, id: string, usedBy: (id: string) => Promise<Array<{ id: string; name: string }>>): Promise<void> {
  await getConnection(app, workspaceId, id);
  const bots = await usedBy(id);
  if (bots.length) {
    throw new ApiError('conflict', 409, `this connection is used by ${bots.length} bot(s): ${bots.map((b) => b.name).join(', ')}; choose another connection in them (draft and published) first`, {}, { bots });
  }
  await providers(app).deleteOne({ workspaceId, _id: id });
}

/** Checks the stored key again; a failure is a result here, not an error of the request. */
export async function testConnection(app: AppContext, workspaceId: string, id: string): Promise<{ ok: boolean; message: string; checkedAt: number }> {
  const doc = await getConnection(app, workspaceId, id);
  const checkedAt = app.clock.now();
  try {
    await adapterFor(app, doc).verifyKey();
    return { ok: true, message: 'the key works', checkedAt };
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, message: err.message, checkedAt };
    throw err;
  }
}

/** Models of the connection (as a list answer: items plus the recommended one), cached in the record for a day; refresh asks the provider again. */
export async function connectionModels(app: AppContext, workspaceId: string, id: string, refresh: boolean) {
  const doc = await getConnection(app, workspaceId, id);
  const adapter = adapterFor(app, doc);
  const now = app.clock.now();
  let cache = doc.modelsCache;
  if (refresh || !cache || now - cache.at >= MODELS_CACHE_MS || now < cache.at) {
    cache = { at: now, models: await adapter.listModels() };
    await providers(app).updateOne({ workspaceId, _id: id }, { $set: { modelsCache: cache } });
  }
  return { items: cache.models, recommended: adapter.recommendedModel(cache.models), cachedAt: cache.at };
}

/** The model a new bot gets: from the cached list when fresh, else asked; null when the provider is unreachable. */
export async function recommendedModelFor(app: AppContext, doc: ProviderDoc): Promise<string | null> {
  try {
    return (await connectionModels(app, doc.workspaceId, doc._id, false)).recommended;
  } catch {
    return null;
  }
}

export async function connectionVoices(app: AppContext, workspaceId: string, id: string): Promise<VoiceInfo[]> {
  const doc = await getConnection(app, workspaceId, id);
  const adapter = adapterFor(app, doc);
  if (!adapter.listVoices) throw invalid(`id: a ${catalogEntry(doc.kind).label} connection has no voices`);
  const voices = await adapter.listVoices();
  // The provider's own sample URLs may need its key or leak it; the admin plays ours.
  const base = `${app.config.publicUrl}/api/v1/providers/${encodeURIComponent(id)}/voices`;
  return voices.map((v) => ({ ...v, previewUrl: `${base}/${encodeURIComponent(v.id)}/preview` }));
}

export async function previewVoice(app: AppContext, workspaceId: string, id: string, voiceId: string): Promise<AudioResult> {
  const doc = await getConnection(app, workspaceId, id);
  const adapter = adapterFor(app, doc);
  if (!adapter.previewVoice) throw invalid(`id: a ${catalogEntry(doc.kind).label} connection has no voices`);
  return adapter.previewVoice(voiceId);
}
