import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { knowledge } from '../../src/knowledge/service.js';
import { builtInModelEmbedder, type EmbedFn } from '../fakes/embedders.js';
import { startFakeOpenAI } from '../fakes/openai.js';
import { setupOwner } from '../helpers/auth.js';
import { startTestServer } from '../helpers/server.js';
import { addProviderConnection } from './helpers.js';

/**
 * Issue 39: connecting an embedding provider never makes search worse than words alone. Each evaluation set is
 * searched through the route lexical only, then hybrid with embedders served by an OpenAI-compatible fake: the
 * built-in model's vectors (cached beside the set: vectors-builtin-model.bin, so no model runs here), a weak model
 * (random projections of word counts) and a model with no signal at all (a random vector per text). The full
 * measurement, all sets and the built-in model itself, is bench/knowledge-eval.ts (docs/knowledge.md).
 */
export interface Figures { recall: number; mrr: number; orders: string[][] }

export async function measure(set: string, embedders: Record<string, EmbedFn>): Promise<Record<string, Figures>> {
  const dir = new URL(`../fixtures/${set}/`, import.meta.url).pathname;
  const server = await startTestServer();
  const fakes = Object.fromEntries(await Promise.all(Object.entries(embedders).map(async ([name, embed]) => [name, await startFakeOpenAI({ embed })] as const)));
  try {
    const owner = await setupOwner(server);
    const svc = knowledge(server.app);
    await server.request('PUT', '/api/v1/knowledge/settings', { headers: owner.headers, body: { embedding: null } });
    const docOf = new Map<string, string>();
    for (const file of readdirSync(join(dir, 'corpus')).sort()) docOf.set((await svc.upload(owner.workspaceId, readFileSync(join(dir, 'corpus', file)), 'text/markdown', file))._id, file);
    await svc.runner.idle();
    const questions = (JSON.parse(readFileSync(join(dir, 'questions.json'), 'utf8')) as Array<{ q: string; docs: string[] }>).filter((x) => x.docs.length);
    const ask = async (mode: string): Promise<Figures> => {
      let found5 = 0, rr = 0;
      const orders: string[][] = [];
      for (const { q, docs } of questions) {
        const r = await server.request('POST', '/api/v1/knowledge/search', { headers: owner.headers, body: { query: q, topK: 10 } });
        assert.is(r.status, 200);
        assert.is(r.body.mode, mode);
        const order = (r.body.results as Array<{ sourceId: string }>).map((x) => docOf.get(x.sourceId) ?? '?');
        orders.push(order);
        const rank = order.findIndex((d) => docs.includes(d));
        if (rank >= 0 && rank < 5) found5++;
        if (rank >= 0) rr += 1 / (rank + 1);
      }
      return { recall: found5 / questions.length, mrr: rr / questions.length, orders };
    };
    const out: Record<string, Figures> = { lexical: await ask('lexical') };
    for (const [name, fake] of Object.entries(fakes)) {
      const connectionId = await addProviderConnection(server.app, owner.workspaceId, fake.baseUrl, fake.apiKey);
      const put = await server.request('PUT', '/api/v1/knowledge/settings', { headers: owner.headers, body: { embedding: { connectionId }, reindex: true } });
      assert.is(put.status, 200);
      await svc.runner.idle();
      out[name] = await ask('hybrid');
    }
    console.log(`\n  ${set}: ${Object.entries(out).map(([k, f]) => `${k} recall@5 ${f.recall.toFixed(3)} MRR@10 ${f.mrr.toFixed(3)}`).join(' | ')}\n`);
    return out;
  } finally {
    await server.stop();
    for (const f of Object.values(fakes)) await f.close();
  }
}

/** The set's cached built-in model vectors, served as a provider's. */
export const cachedModel = (set: string) => builtInModelEmbedder(join(new URL(`../fixtures/${set}/`, import.meta.url).pathname, 'vectors-builtin-model.bin'));

/** Floors under each embedder's figures, and hybrid never under lexical. */
export function assertFloors(f: Record<string, Figures>, floors: Record<string, { recall: number; mrr: number }>) {
  for (const [name, floor] of Object.entries(floors)) {
    assert.ok(f[name].recall >= floor.recall, `${name} recall@5 ${f[name].recall}`);
    assert.ok(f[name].mrr >= floor.mrr, `${name} MRR@10 ${f[name].mrr}`);
    assert.ok(f[name].recall >= f.lexical.recall, `${name} recall@5 ${f[name].recall} under lexical ${f.lexical.recall}`);
    assert.ok(f[name].mrr >= f.lexical.mrr, `${name} MRR@10 ${f[name].mrr} under lexical ${f.lexical.mrr}`);
  }
}
