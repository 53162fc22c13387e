/**
 * What every bench server process sets up after starting the real server: the first owner through the REST API,
 * a provider connection to the bench's fake (kind B, OpenAI) and a running, published bot `bot_bench`.
 */
import { BotConfigSchema, type BotConfigInput } from '../src/bots/config/index.js';
import { sealSecret } from '../src/security/secret-box.js';
import type { RunningServer } from '../src/server.js';
import { setupOwner } from '../test/helpers/auth.js';

export const BENCH_BOT_ID = 'bot_bench';
const PROVIDER_ID = 'prov_bench';

export async function seedBenchBot(server: RunningServer, dataDir: string, o: { fakeBaseUrl: string; apiKey: string; config: (providerId: string) => BotConfigInput }) {
  const shim = {
    ...server, dataDir, fetch: (p: string, i?: RequestInit) => fetch(server.url + p, i), stop: async () => {},
    async request(method: string, path: string, r: { body?: unknown; headers?: Record<string, string> } = {}) {
      const res = await fetch(server.url + path, { method, headers: { 'content-type': 'application/json', ...r.headers }, body: r.body === undefined ? undefined : JSON.stringify(r.body) });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
    },
  };
  const owner = await setupOwner(shim as never);
  const { app } = server;
  await app.store.collection('providers').insertOne({ _id: PROVIDER_ID, workspaceId: owner.workspaceId, kind: 'openai', name: 'fake', baseUrl: o.fakeBaseUrl, apiKeySealed: sealSecret(o.apiKey, app.secretKey, PROVIDER_ID), createdAt: 0 } as never);
  const cfg = BotConfigSchema.parse(o.config(PROVIDER_ID));
  await app.store.collection('bots').insertOne({ _id: BENCH_BOT_ID, workspaceId: owner.workspaceId, name: 'bench', status: 'running', draft: cfg, revision: 1, published: { version: 1, config: cfg, publishedAt: 0 }, createdAt: 0, updatedAt: 0 } as never);
  return owner;
}
