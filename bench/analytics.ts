/**
 * Analytics latency on a big workspace: N conversations (default 100k) over 90 days, each with a visitor message
 * and an agent reply, every 5th with a tool call, built through the same counter code the live server runs
 * (applyEvent). Then each analytics endpoint is called over HTTP; p50/p99 are reported against a baseline
 * measured in the same run: a bare count of the workspace's conversations in the store. Target: under 200 ms.
 *
 *   npx tsx bench/analytics.ts [conversations=100000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { applyEvent } from '../src/analytics/rollup.js';
import { type ConversationRecord, type MessageRecord, type ToolCallRecord } from '../src/records/conversations.js';
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/kernel/log.js';
import { newId } from '../src/store/ids.js';
import { startServer } from '../src/server.js';

const N = Math.max(1000, Number(process.argv[2]) || 100_000);
const DAYS = 90;
const ROUNDS = 60;
const dataDir = mkdtempSync(join(tmpdir(), 'sc-bench-analytics-'));
const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'silent', SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789' });
const server = await startServer(config, { logger: createLogger('silent') });
const base = `http://127.0.0.1:${server.port}`;

try {
  const setup = await fetch(`${base}/api/v1/setup`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'correct horse battery staple', name: 'Bench', workspaceName: 'Bench' }),
  });
  const me = await setup.json() as { workspace: { id: string } };
  const cookie = (setup.headers.get('set-cookie') ?? '').split(';')[0];
  const ws = me.workspace.id;
  const app = server.app;
  const db = app.records;
  const bots = ['bot_bench_a', 'bot_bench_b', 'bot_bench_c'];
  const now = Date.now();

  const t0 = performance.now();
  const BATCH = 5000;
  for (let start = 0; start < N; start += BATCH) {
    const convs: ConversationRecord[] = [], msgs: MessageRecord[] = [], calls: ToolCallRecord[] = [];
    const events: Array<{ type: string; data: Record<string, unknown>; createdAt: number }> = [];
    for (let i = start; i < Math.min(N, start + BATCH); i++) {
      const at = now - Math.floor((i / N) * DAYS * 86_400_000);
      const botId = bots[i % bots.length];
      const conv = {
        _id: newId('conv', at), workspaceId: ws, botId, visitorId: `vis_${i}`, verified: false, status: 'ended', endReason: 'idle', tags: [],
        takenOverBy: null, configVersion: 1, prompt: { instructions: '', guardrails: '' }, page: { url: '', title: '' }, summary: null,
        nextSeq: 3, messageCount: 2, costUsd: 0.0002, ip: '127.0.0.1', createdAt: at, updatedAt: at, lastMessageAt: at, idleEndsAt: null, endedAt: at, csat: null,
      } satisfies ConversationRecord;
      const common = { workspaceId: ws, conversationId: conv._id, botId, modality: 'text' as const, authorName: null, visibility: 'visible' as const, attachments: [] };
      const user: MessageRecord = { _id: newId('msg', at), seq: 1, role: 'user', text: 'How do I reset my password?', createdAt: at, ...common };
      const reply: MessageRecord = {
        _id: newId('msg', at + 1), seq: 2, role: 'assistant', text: 'Open Settings, then Security.', createdAt: at + 1, ...common,
        model: 'gpt-4o-mini', usage: { inputTokens: 900, outputTokens: 60 }, costUsd: 0.0002,
      };
      convs.push(conv); msgs.push(user, reply);
      events.push({ type: 'conversation.started', createdAt: at, data: { botId, conversationId: conv._id, visitorId: conv.visitorId } });
      for (const m of [user, reply]) events.push({ type: 'message.created', createdAt: m.createdAt, data: { botId, conversationId: conv._id, message: { id: m._id, role: m.role } } });
      if (i % 5 === 0) {
        const call: ToolCallRecord = {
          _id: newId('tc', at), workspaceId: ws, conversationId: conv._id, botId, messageId: reply._id, round: 0, name: i % 10 === 0 ? 'lookup_order' : 'search_knowledge',
          arguments: '{}', result: 'ok', isError: i % 50 === 0, durationMs: 20 + (i % 200), createdAt: at,
        };
        calls.push(call);
        events.push({ type: 'tool.called', createdAt: at, data: { botId, conversationId: conv._id, name: call.name, isError: call.isError, durationMs: call.durationMs } });
      }
    }
    await db.conversations.insertMany(convs);
    await db.messages.insertMany(msgs);
    await db.toolCalls.insertMany(calls);
    for (const e of events) await applyEvent(app, { ...e, workspaceId: ws });
  }
  const buildSec = (performance.now() - t0) / 1000;

  const time = async (fn: () => Promise<unknown>) => {
    const samples: number[] = [];
    for (let i = 0; i < ROUNDS; i++) { const s = performance.now(); await fn(); samples.push(performance.now() - s); }
    samples.sort((a, b) => a - b);
    return { p50: samples[Math.floor(ROUNDS * 0.5)], p99: samples[Math.min(ROUNDS - 1, Math.ceil(ROUNDS * 0.99) - 1)] };
  };
  const baseline = await time(() => db.conversations.count({ workspaceId: ws }));
  const fmt = (n: number) => n.toFixed(2).padStart(8);
  console.log(`analytics bench: ${N} conversations, ${N * 2} messages, ${Math.ceil(N / 5)} tool calls over ${DAYS} days; built in ${buildSec.toFixed(1)} s`);
  console.log(`baseline  bare count of conversations        p50 ${fmt(baseline.p50)} ms  p99 ${fmt(baseline.p99)} ms`);
  let worst = 0;
  for (const path of ['summary', 'summary?days=90', 'timeseries', 'timeseries?days=90', 'tools', 'usage']) {
    const r = await time(async () => {
      const res = await fetch(`${base}/api/v1/analytics/${path}`, { headers: { cookie } });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    });
    worst = Math.max(worst, r.p99);
    console.log(`GET /analytics/${path.padEnd(22)} p50 ${fmt(r.p50)} ms  p99 ${fmt(r.p99)} ms  (${(r.p50 / baseline.p50).toFixed(1)}x baseline p50)`);
  }
  console.log(worst < 200 ? `OK: every endpoint answered under 200 ms at p99 (worst ${worst.toFixed(1)} ms)` : `SLOW: worst p99 ${worst.toFixed(1)} ms is over 200 ms`);
  if (worst >= 200) process.exitCode = 1;
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
