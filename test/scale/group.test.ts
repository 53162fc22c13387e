import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { quietFor, until } from '../helpers/until.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { startServer } from '../../src/server.js';
import { createToken } from '../helpers/auth.js';
import { freePort } from '../helpers/ports.js';
import { must, startGroupWorld, type GroupWorld } from './world.js';

let world: GroupWorld;
const w = (i: number) => world.w(i);
const widget = (i: number, q: Record<string, string> = {}) => world.widget(i, q);
const live: GroupWorld['live'] = (i, who) => world.live(i, who);

test.before(async () => { world = await startGroupWorld(); });
test.after(async () => { await world?.close(); });

test('without Redis a server with REDIS_URL refuses to start and names the setting', async () => {
  const port = await freePort();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: `${world.group.dataDir}-alone`, NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_URL: `redis://127.0.0.1:${port}` });
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
    run({ PORT: String(world.group.port), DATA_DIR: `${world.group.dataDir}-other` }),
    run({ PORT: '0', DATA_DIR: world.group.dataDir }),
  ]);
  assert.is(samePort.code, 1);
  assert.match(samePort.err, /already in use/);
  assert.is(sameDir.code, 1);
  assert.match(sameDir.err, /is in use by another server/);
});

test('a visitor on one process and an agent on another take over, reply and release; live events arrive once', async () => {
  const ownerLive = await live(1, world.owner);
  const agentLive = await live(2, world.agent);
  const visitor = await widget(0);
  await visitor.frame('ready');
  visitor.send({ t: 'message', text: 'Can a person help me?' });
  const { conversationId } = await visitor.frame('conversation');
  await visitor.frame('message', (f) => f.message.role === 'assistant');
  await ownerLive.event('message.created', (d) => d.conversationId === conversationId && d.message.role === 'assistant');

  const took = must('takeover', await w(2).request('POST', `/api/v1/conversations/${conversationId}/takeover`, { headers: world.agent.headers }), 200);
  assert.equal(took.takenOverBy, { userId: world.agent.userId, userName: 'Alex Agent' });
  await visitor.frame('message', (f) => f.message.role === 'system_event' && f.message.text === 'Alex Agent joined the conversation.');
  const sent = must('team message', await w(1).request('POST', `/api/v1/conversations/${conversationId}/messages`, { body: { text: 'Hi, Alex here.' }, headers: world.agent.headers }), 201);
  assert.is(sent.role, 'human_agent');
  await visitor.frame('message', (f) => f.message.role === 'human_agent' && f.message.text === 'Hi, Alex here.');
  visitor.send({ t: 'message', text: 'Hello Alex' });
  await agentLive.event('message.created', (d) => d.message.text === 'Hello Alex');
  must('release', await w(2).request('POST', `/api/v1/conversations/${conversationId}/release`, { headers: world.agent.headers }), 200);
  await visitor.frame('message', (f) => f.message.role === 'system_event' && f.message.text === 'Alex Agent left the conversation.');
  visitor.send({ t: 'message', text: 'Thanks' });
  const back = await visitor.frame('message', (f) => f.message.role === 'assistant' && f.message.text === 'You said: Thanks');
  await ownerLive.event('message.created', (d) => d.message.id === back.message.id);
  await agentLive.event('message.created', (d) => d.message.id === back.message.id);

  // Each stored event reached each live socket exactly once, in the order it was stored.
  const transcript = must('transcript', await w(2).request('GET', `/api/v1/conversations/${conversationId}`, { headers: world.owner.headers }), 200);
  for (const socket of [ownerLive, agentLive]) {
    const ids = socket.all('message.created').filter((f) => f.data.conversationId === conversationId).map((f) => f.data.message.id);
    assert.equal(ids, transcript.messages.map((m: any) => m.id), 'every message once, in order');
  }
});

test('a revoked API token is refused by every process at once', async () => {
  const token = await createToken(w(0) as never, world.owner, ['bots:read']);
  for (let i = 0; i < 3; i++) assert.is((await w(i).request('GET', '/api/v1/bots', { headers: token.headers })).status, 200, `process ${i} knows it`);
  must('revoke', await w(1).request('DELETE', `/api/v1/tokens/${token.id}`, { headers: world.owner.headers }), 200, 204);
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
  try {
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    must('add webhook', await w(0).request('POST', '/api/v1/webhooks', { body: { url, events: ['message.created'] }, headers: world.owner.headers }), 201);
    const visitors = await Promise.all([0, 1, 2].map((i) => widget(i)));
    await Promise.all(visitors.map(async (v, i) => {
      await v.frame('ready');
      v.send({ t: 'message', text: `hello from process ${i}` });
      await v.frame('message', (f) => f.message.role === 'assistant');
    }));
    await until(() => seen.length >= 6, { timeout: 10_000, interval: 100, message: () => `six webhook deliveries (${seen.length} so far)` });
    await quietFor(500, 'a second delivery of any of the six events');
  } finally {
    receiver.close();
  }
  assert.is(seen.length, 6, 'a visitor message and a reply on each of three processes');
  assert.is(new Set(seen).size, 6, 'no event delivered twice');
});

test('failed sign-ins are counted across the processes', async () => {
  // 10 failures of one address on one account in 15 minutes: each process alone would allow 10 more.
  const statuses: number[] = [];
  for (let n = 0; n < 11; n++) statuses.push((await w(n % 3).request('POST', '/api/v1/auth/login', { body: { email: world.owner.email, password: 'wrong password 123' } })).status);
  assert.equal(statuses, [...Array(10).fill(401), 429]);
  const right = await w(1).request('POST', '/api/v1/auth/login', { body: { email: world.owner.email, password: world.owner.password } });
  assert.is(right.status, 429, 'even the right password waits: the address is over the limit on this account');
});

test('a pause and a resume made on one process apply at the next widget connect on every process (the kept bots are dropped)', async () => {
  const paused = async (i: number) => { const c = await widget(i); const ready = await c.frame('ready'); await c.close(); return ready.paused === true; };
  assert.equal(await Promise.all([0, 1, 2].map(paused)), [false, false, false], 'each process keeps the running bot');
  must('pause', await w(1).request('POST', `/api/v1/bots/${world.botId}/status`, { body: { status: 'paused' }, headers: world.owner.headers }), 200);
  assert.equal(await Promise.all([0, 1, 2].map(paused)), [true, true, true]);
  must('resume', await w(2).request('POST', `/api/v1/bots/${world.botId}/status`, { body: { status: 'running' }, headers: world.owner.headers }), 200);
  assert.equal(await Promise.all([0, 1, 2].map(paused)), [false, false, false]);
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
