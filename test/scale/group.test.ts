import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { startServer } from '../../src/server.js';
import { addMember, createToken, setupOwner, type TestSession } from '../helpers/auth.js';
import { connect, type FrameClient } from '../team/helpers.js';
import { at, freePort, startFakeOpenAI, startGroup, startRedis, type FakeOpenAI, type Group, type Redis } from './world.js';

let redis: Redis;
let fake: FakeOpenAI;
let group: Group;
let owner: TestSession;
let agent: TestSession;
let botId: string;
const opened: FrameClient[] = [];
const w = (i: number) => at(group.workers[i].url);
const ws = (i: number) => group.workers[i].url.replace('http', 'ws');
const track = async (p: Promise<FrameClient>) => { const c = await p; opened.push(c); return c; };
const widget = (i: number, q: Record<string, string> = {}) => track(connect(`${ws(i)}/widget/v1/chat?${new URLSearchParams({ botId, ...q })}`));
const live = (i: number, who: TestSession) => track(connect(`${ws(i)}/api/v1/live`, { cookie: who.cookie }));
const must = (what: string, r: { status: number; body: any }, ...ok: number[]) => {
  if (!ok.includes(r.status)) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};

test.before(async () => {
  [redis, fake] = await Promise.all([startRedis(), startFakeOpenAI()]);
  group = await startGroup({ REDIS_URL: redis.url, LEASE_MS: '1500' });
  const a = w(0) as never;
  owner = await setupOwner(a);
  agent = await addMember(w(1) as never, owner, 'agent', { name: 'Alex Agent' });
  const provider = must('POST /providers', await w(2).request('POST', '/api/v1/providers', {
    body: { kind: 'openai_compatible', name: 'Fake', apiKey: fake.apiKey, baseUrl: fake.baseUrl }, headers: owner.headers,
  }), 201);
  const bot = must('POST /bots', await w(0).request('POST', '/api/v1/bots', { body: { name: 'Helper' }, headers: owner.headers }), 201);
  botId = bot.id ?? bot.bot?.id;
  must('PATCH /bots', await w(1).request('PATCH', `/api/v1/bots/${botId}`, {
    body: { revision: bot.revision ?? bot.bot?.revision, patch: { brain: { connectionId: provider.id ?? provider.connection?.id, model: 'gpt-4o-mini' } } }, headers: owner.headers,
  }), 200);
  must('publish', await w(2).request('POST', `/api/v1/bots/${botId}/publish`, { body: {}, headers: owner.headers }), 200, 201);
});

test.after(async () => {
  await Promise.all(opened.map((c) => c.close().catch(() => {})));
  await group?.stop();
  await Promise.all([redis?.stop(), fake?.close()]);
});

test('without Redis a server with REDIS_URL refuses to start and names the setting', async () => {
  const port = await freePort();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: `${group.dataDir}-alone`, NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_URL: `redis://127.0.0.1:${port}` });
  const err = await startServer(config).then(() => null, (e) => e);
  assert.instance(err, ConfigError);
  assert.match(err.message, /REDIS_URL redis:\/\/127\.0\.0\.1:\d+ cannot be reached/);
  assert.throws(() => loadConfig({ WORKERS: '2' }), /WORKERS: 2 processes need REDIS_URL/);
});

test('a second server started by mistake on the group\'s port or data folder is refused', async () => {
  const run = (env: Record<string, string>) => new Promise<{ code: number | null; err: string }>((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, HOST: '127.0.0.1', NODE_ENV: 'test', SECRET_KEY: 'x'.repeat(40), ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr!.on('data', (c) => { err += c; });
    p.once('exit', (code) => resolve({ code, err }));
  });
  const [samePort, sameDir] = await Promise.all([
    run({ PORT: String(group.port), DATA_DIR: `${group.dataDir}-other` }),
    run({ PORT: '0', DATA_DIR: group.dataDir }),
  ]);
  assert.is(samePort.code, 1);
  assert.match(samePort.err, /already in use/);
  assert.is(sameDir.code, 1);
  assert.match(sameDir.err, /is in use by another server/);
});

test('a visitor on one process and an agent on another take over, reply and release; live events arrive once', async () => {
  const ownerLive = await live(1, owner);
  const agentLive = await live(2, agent);
  const visitor = await widget(0);
  await visitor.frame('ready');
  visitor.send({ t: 'message', text: 'Can a person help me?' });
  const { conversationId } = await visitor.frame('conversation');
  await visitor.frame('message', (f) => f.message.role === 'assistant');
  await ownerLive.event('message.created', (d) => d.conversationId === conversationId && d.message.role === 'assistant');

  const took = must('takeover', await w(2).request('POST', `/api/v1/conversations/${conversationId}/takeover`, { headers: agent.headers }), 200);
  assert.equal(took.takenOverBy, { userId: agent.userId, userName: 'Alex Agent' });
  await visitor.frame('message', (f) => f.message.role === 'system_event' && f.message.text === 'Alex Agent joined the conversation.');
  const sent = must('team message', await w(1).request('POST', `/api/v1/conversations/${conversationId}/messages`, { body: { text: 'Hi, Alex here.' }, headers: agent.headers }), 201);
  assert.is(sent.role, 'human_agent');
  await visitor.frame('message', (f) => f.message.role === 'human_agent' && f.message.text === 'Hi, Alex here.');
  visitor.send({ t: 'message', text: 'Hello Alex' });
  await agentLive.event('message.created', (d) => d.message.text === 'Hello Alex');
  must('release', await w(2).request('POST', `/api/v1/conversations/${conversationId}/release`, { headers: agent.headers }), 200);
  await visitor.frame('message', (f) => f.message.role === 'system_event' && f.message.text === 'Alex Agent left the conversation.');
  visitor.send({ t: 'message', text: 'Thanks' });
  const back = await visitor.frame('message', (f) => f.message.role === 'assistant' && f.message.text === 'You said: Thanks');
  await ownerLive.event('message.created', (d) => d.message.id === back.message.id);
  await agentLive.event('message.created', (d) => d.message.id === back.message.id);

  // Each stored event reached each live socket exactly once, in the order it was stored.
  const transcript = must('transcript', await w(2).request('GET', `/api/v1/conversations/${conversationId}`, { headers: owner.headers }), 200);
  for (const socket of [ownerLive, agentLive]) {
    const ids = socket.all('message.created').filter((f) => f.data.conversationId === conversationId).map((f) => f.data.message.id);
    assert.equal(ids, transcript.messages.map((m: any) => m.id), 'every message once, in order');
  }
});

test('a revoked API token is refused by every process at once', async () => {
  const token = await createToken(w(0) as never, owner, ['bots:read']);
  for (let i = 0; i < 3; i++) assert.is((await w(i).request('GET', '/api/v1/bots', { headers: token.headers })).status, 200, `process ${i} knows it`);
  must('revoke', await w(1).request('DELETE', `/api/v1/tokens/${token.id}`, { headers: owner.headers }), 200, 204);
  const after = await Promise.all([0, 1, 2].map((i) => w(i).request('GET', '/api/v1/bots', { headers: token.headers })));
  assert.equal(after.map((r) => r.status), [401, 401, 401]);
});

test('webhooks of events stored by every process are delivered once each', async () => {
  const seen: string[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => { seen.push(JSON.parse(body).id); res.end('ok'); });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  must('add webhook', await w(0).request('POST', '/api/v1/webhooks', { body: { url, events: ['message.created'] }, headers: owner.headers }), 201);
  const visitors = await Promise.all([0, 1, 2].map((i) => widget(i)));
  await Promise.all(visitors.map(async (v, i) => {
    await v.frame('ready');
    v.send({ t: 'message', text: `hello from process ${i}` });
    await v.frame('message', (f) => f.message.role === 'assistant');
  }));
  const deadline = Date.now() + 10_000;
  while (seen.length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500)); // any second delivery would come now
  receiver.close();
  assert.is(seen.length, 6, 'a visitor message and a reply on each of three processes');
  assert.is(new Set(seen).size, 6, 'no event delivered twice');
});

test('failed sign-ins are counted across the processes', async () => {
  // 10 failures of one address on one account in 15 minutes: each process alone would allow 10 more.
  const statuses: number[] = [];
  for (let n = 0; n < 11; n++) statuses.push((await w(n % 3).request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: 'wrong password 123' } })).status);
  assert.equal(statuses, [...Array(10).fill(401), 429]);
  const right = await w(1).request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: owner.password } });
  assert.is(right.status, 429, 'even the right password waits: the address is over the limit on this account');
});

test('the widget connection limit per address is counted across the processes', async () => {
  // 30 a minute per address: one process alone would take 30 on each of the three.
  let accepted = 0;
  let refusedAt = -1;
  for (let n = 0; n < 40 && refusedAt < 0; n++) {
    try { await widget(n % 3); accepted++; } catch (err) { refusedAt = n; assert.is((err as { status: number }).status, 429); }
  }
  assert.ok(refusedAt >= 0 && accepted < 30, `refused after ${accepted} (the earlier tests opened the rest of the 30)`);
  for (const i of [0, 1, 2]) assert.is(await widget(i).then(() => 101, (e) => e.status), 429, `process ${i} refuses too`);
});

test.run();
