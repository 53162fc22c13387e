import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { startReceiver } from '../tools/helpers.js';
import { startChatWorld, type ChatWorld } from '../chat/helpers.js';
import { ingestionIdle } from '../knowledge/helpers.js';
import { parseMetrics, value, type Sample } from './prom.js';
import { until } from '../helpers/until.js';

// Issue 26: /metrics scraped during a scripted conversation with a tool; the numbers are checked against what
// happened (one reply of two model calls, one HTTP tool call, one widget socket), and the label sets stay
// bounded however many conversations there are.

const TOKEN = 'metrics-token-0123456789';
let w: ChatWorld;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const scrape = async (): Promise<Sample[]> => {
  const res = await w.server.fetch('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
  return parseMetrics(await res.text());
};

test.before(async () => {
  w = await startChatWorld({ env: { METRICS_TOKEN: TOKEN, TRUST_PROXY: 'true' } });
  receiver = await startReceiver((_r, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"shipped"}'));
  const t = await w.server.request('POST', '/api/v1/tools/http', {
    headers: w.owner.headers,
    body: { name: 'order_status', description: 'Status of an order.', method: 'GET', url: `${receiver.url}/orders/{{args.id}}`, parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
  });
  assert.is(t.status, 201, JSON.stringify(t.body));
  const bot: any = await w.server.app.store.collection('bots').findById(w.workspaceId, w.botId);
  const config = { ...bot.published.config, tools: { ...bot.published.config.tools, http: [{ toolId: t.body.id, enabled: true }] } };
  await w.setBot({ 'published.config': config, draft: config, updatedAt: Date.now() + 1 });
});

test.after(async () => {
  await w.close();
  await receiver.close();
});

test('metrics need the token on the main port and say how to send it', async () => {
  const none = await w.server.request('GET', '/metrics');
  assert.is(none.status, 401);
  assert.match(none.body.error.message, /Authorization: Bearer/);
  const wrong = await w.server.fetch('/metrics', { headers: { authorization: 'Bearer not-the-token-at-all' } });
  assert.is(wrong.status, 401);
});

test('a conversation with a tool shows up in the metrics as it happened', async () => {
  const hook = await w.server.request('POST', '/api/v1/webhooks', { headers: w.owner.headers, body: { url: `${receiver.url}/hook`, events: ['conversation.started'] } });
  assert.is(hook.status, 201, JSON.stringify(hook.body));
  const before = await scrape();
  const v = await w.visitor();
  w.fake.script([{ toolCalls: [{ name: 'order_status', arguments: { id: 'A-17' } }], usage: { inputTokens: 100, outputTokens: 10 } }, { text: 'Your order has shipped.', usage: { inputTokens: 150, outputTokens: 6 } }]);
  v.say('Where is my order A-17?');
  const { message } = await v.reply();
  assert.match(message.text, /shipped/);
  // The webhook of the conversation's start is sent in the background.
  const during = await until(scrape, { ok: (now) => value(now, 'servicechat_webhook_attempts_total') !== value(before, 'servicechat_webhook_attempts_total'), timeout: 10_000, interval: 100, message: 'the conversation-start webhook counted in the metrics' });
  const d = (name: string, labels: Record<string, string> = {}) => value(during, name, labels) - value(before, name, labels);
  assert.is(d('servicechat_webhook_attempts_total', { result: 'delivered' }), 1, 'one webhook delivered');
  assert.is(d('servicechat_webhook_attempt_duration_seconds_count'), 1);
  assert.is((await w.server.request('DELETE', `/api/v1/webhooks/${hook.body.id ?? hook.body.endpoint?.id}`, { headers: w.owner.headers })).status, 204);

  assert.is(value(during, 'servicechat_sockets_open', { endpoint: 'widget' }), 1, 'one widget socket open');
  assert.is(d('servicechat_sockets_opened_total', { endpoint: 'widget' }), 1);
  assert.is(d('servicechat_tool_calls_total', { source: 'http', outcome: 'ok' }), 1, 'one HTTP tool call');
  assert.is(d('servicechat_tool_call_duration_seconds_count', { source: 'http' }), 1);
  assert.is(d('servicechat_provider_request_duration_seconds_count', { provider: 'openai', outcome: 'ok' }), 2, 'two model calls: the tool round and the answer');
  assert.is(d('servicechat_provider_first_token_seconds_count', { provider: 'openai' }), 1, 'only the answer streamed text');
  assert.is(d('servicechat_provider_tokens_total', { provider: 'openai', direction: 'input' }), 250);
  assert.is(d('servicechat_provider_tokens_total', { provider: 'openai', direction: 'output' }), 16);
  assert.ok(d('servicechat_provider_cost_usd_total', { provider: 'openai' }) > 0, 'gpt-4o-mini has a list price');
  assert.ok(d('servicechat_store_call_duration_seconds_count', { adapter: 'embedded' }) > 3, 'the conversation read and wrote the store');
  assert.ok(value(during, 'servicechat_actors_alive', { kind: 'conversation' }) >= 1, 'the conversation actor is alive');
  assert.ok(value(during, 'servicechat_actor_mailbox_depth', { kind: 'conversation' }) >= 0);
  assert.ok(during.some((s) => s.name === 'nodejs_eventloop_lag_p99_seconds'), 'event-loop delay');
  assert.ok(during.some((s) => s.name === 'servicechat_event_loop_utilization'), 'event-loop utilisation');
  // GC pauses: the histogram is declared at once and has samples after the first collection.
  const raw = await (await w.server.fetch('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  assert.match(raw, /# TYPE nodejs_gc_duration_seconds histogram/);
  assert.ok(during.some((s) => s.name === 'servicechat_worker_pool_queue' && s.labels.lane === 'interactive'));
  assert.ok(during.some((s) => s.name === 'servicechat_webhook_queue_depth'));
  assert.is(value(during, 'servicechat_ready'), 1, 'ready at scrape time');
  assert.ok(d('servicechat_http_request_duration_seconds_count', { operation: 'GET /metrics', status: '200' }) >= 1, 'the scrapes before this one');

  await v.close();
  await until(async () => value(await scrape(), 'servicechat_sockets_open', { endpoint: 'widget' }) === 0, { message: 'the widget socket counted closed (servicechat_sockets_open 0)' });
});

test('a knowledge source indexed shows as one finished job and its worker tasks', async () => {
  const before = await scrape();
  const r = await w.server.request('POST', '/api/v1/knowledge', { headers: w.owner.headers, body: { kind: 'text', name: 'Returns', text: '# Returns\n\nUnopened items can be returned within thirty days.' } });
  assert.is(r.status, 201, JSON.stringify(r.body));
  await ingestionIdle(w.server.app, r.body.id);
  const after = await scrape();
  const d = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);
  assert.is(d('servicechat_knowledge_jobs_total', { status: 'done' }), 1);
  assert.is(value(after, 'servicechat_knowledge_jobs_running'), 0);
  const tasks = after.filter((s) => s.name === 'servicechat_worker_task_duration_seconds_count' && s.value > 0).map((s) => s.labels.task);
  assert.ok(tasks.length > 0, 'the document went through the worker pool');
  for (const t of tasks) assert.ok(['resize-image', 'parse-document', 'chunk-document', 'embed-batch'].includes(t), t);
});

test('label sets stay bounded over a thousand conversations', async () => {
  const before = await scrape();
  const h = w.owner.headers;
  const ids = Array.from({ length: 1000 }, (_, i) => `conv_${i.toString(36).padStart(12, '0')}`);
  for (let i = 0; i < ids.length; i += 50) {
    await Promise.all(ids.slice(i, i + 50).map((id) => w.server.request('GET', `/api/v1/conversations/${id}`, { headers: h })));
  }
  // A thousand real conversations, each from its own address (TRUST_PROXY), fifty at a time.
  for (let i = 0; i < 1000; i += 50) {
    await Promise.all(Array.from({ length: 50 }, async (_, k) => {
      const n = i + k;
      const v = await w.visitor({}, { 'x-forwarded-for': `198.18.${n >> 8}.${n & 255}` });
      v.say(`hello ${n}`);
      await v.reply(15_000);
      await v.close();
    }));
  }
  const samples = await scrape();
  const series = new Set(samples.filter((s) => s.name.startsWith('servicechat_')).map((s) => `${s.name}${JSON.stringify(s.labels)}`));
  assert.ok(series.size < 1000, `${series.size} series`);
  const values = new Set(samples.flatMap((s) => Object.values(s.labels)));
  for (const v of values) assert.not.match(v, /conv_|bot_|usr_|ws_|[0-9a-f]{16}/, `label value ${v} looks like an id`);
  assert.is(value(samples, 'servicechat_http_request_duration_seconds_count', { operation: 'GET /api/v1/conversations/{id}', status: '404' }), 1000);
  assert.is(value(samples, 'servicechat_sockets_opened_total', { endpoint: 'widget' }) - value(before, 'servicechat_sockets_opened_total', { endpoint: 'widget' }), 1000);
});

test('every metric the ready-made dashboard and alert rules use is exported', async () => {
  const res = await w.server.fetch('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  // Declared metrics (a labelled counter nothing has counted yet has its TYPE line and no sample).
  const names = new Set([...(await res.text()).matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]));
  const texts = ['docs/examples/grafana-dashboard.json', 'docs/examples/prometheus-alerts.yml'].map((f) => readFileSync(f, 'utf8'));
  const used = new Set(texts.flatMap((t) => [...t.matchAll(/\b((?:servicechat|nodejs|process)_[a-z0-9_]+)/g)].map((m) => m[1].replace(/_(bucket|sum|count)$/, ''))));
  assert.ok(used.size > 20);
  for (const n of used) assert.ok(names.has(n), `${n} is used by docs/examples but not exported`);
});

test.run();
