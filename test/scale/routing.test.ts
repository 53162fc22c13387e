/**
 * What a chat turn costs the group in Redis round trips, and that events still reach every panel that needs them
 * when they cross only to the processes watching their workspace (issue 38).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../helpers/until.js';
import { monitorRedis, must, startGroupWorld, type GroupWorld } from './world.js';

const METRICS_TOKEN = 'routing-test-metrics-token-0123';
let world: GroupWorld;

test.before(async () => { world = await startGroupWorld({ env: { METRICS_TOKEN } }); });
test.after(async () => { await world?.close(); });

/** Commands process `i` has sent to Redis so far (its metrics). */
async function trips(i: number): Promise<number> {
  const text = await (await fetch(`${world.group.workers[i].url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  return Number(/^servicechat_redis_round_trips_total (\d+)/m.exec(text)?.[1] ?? NaN);
}

/** A visitor's widget socket on process `i`; `ask` sends a message and waits for its answer. */
async function visitor(i: number) {
  const v = await world.widget(i);
  await v.frame('ready');
  let conversationId = '';
  return {
    get conversationId() { return conversationId; },
    async ask(text: string) {
      v.send({ t: 'message', text });
      conversationId = (await v.frame('message', (x) => x.message.role === 'assistant' && x.message.text === `You said: ${text}`)).conversationId;
    },
  };
}

/** `n` turns of one new visitor on process `i`; the conversation's id. */
async function chat(i: number, n: number, tag: string): Promise<string> {
  const v = await visitor(i);
  for (let k = 0; k < n; k++) await v.ask(`${tag} ${k}`);
  return v.conversationId;
}

test('chat turns with nobody watching elsewhere cost their process less than one Redis round trip each', async () => {
  // Three visitors (a visitor may send 12 messages a minute) whose conversations are open: a conversation's lease and
  // a visitor's limit are taken once, not per turn.
  const visitors = await Promise.all([0, 1, 2].map(() => visitor(0)));
  await Promise.all(visitors.map((v, k) => v.ask(`open ${k}`)));
  const before = await trips(0);
  await Promise.all(visitors.map(async (v, k) => { for (let n = 0; n < 10; n++) await v.ask(`turn ${k}-${n}`); }));
  const used = (await trips(0)) - before;
  // Before: about 4.6 a turn (every event to every process, the message limit's Lua, a lease check). What is left
  // is the process's own timers (membership each second, lease renewals each third of LEASE_MS).
  assert.ok(used < 30, `${used} round trips for 30 turns`);
});

test('a panel on another process gets every event of a conversation, once and in order', async () => {
  const panel = await world.live(2, world.owner);
  const conversationId = await chat(0, 3, 'seen');
  const t = must('transcript', await world.w(1).request('GET', `/api/v1/conversations/${conversationId}`, { headers: world.owner.headers }), 200);
  await panel.event('message.created', (d) => d.message.id === t.messages[t.messages.length - 1].id);
  const ids = panel.all('message.created').filter((f) => f.data.conversationId === conversationId).map((f) => f.data.message.id);
  assert.equal(ids, t.messages.map((m: any) => m.id), 'every message once, in order');
});

test('a process started after a panel opened elsewhere sends that panel its events', async () => {
  const panel = await world.live(1, world.owner);
  const old = world.group.workers[0].pid;
  process.kill(old, 'SIGKILL');
  await world.group.waitWorker(0, old);
  const conversationId = await chat(0, 2, 'after restart');
  const t = must('transcript', await world.w(1).request('GET', `/api/v1/conversations/${conversationId}`, { headers: world.owner.headers }), 200);
  await panel.event('message.created', (d) => d.message.id === t.messages[t.messages.length - 1].id);
  const ids = panel.all('message.created').filter((f) => f.data.conversationId === conversationId).map((f) => f.data.message.id);
  assert.equal(ids, t.messages.map((m: any) => m.id), 'every message once, in order');
});

/** The group id (ScaleNode.id) of process `i`, from its start-up log line. */
const nodeId = (i: number) => world.group.logs.filter((l) => l.msg === 'worker listening' && l.pid === world.group.workers[i].pid).at(-1)?.node as string;

test("a widget reopened on another process: its owner alone is told, and the reply's frames cross to that process only", async () => {
  const first = await world.widget(0);
  const ready = await first.frame('ready');
  first.send({ t: 'message', text: 'Hello' });
  await first.frame('message', (f) => f.message.role === 'assistant');
  await first.close();
  // Everything the processes publish from now on (Redis MONITOR sees each PUBLISH, a script's included).
  const published: string[] = [];
  const mon = await monitorRedis(world.redis.url, (args) => { if (args[0] === 'publish') published.push(args[1]); });
  const [owner, widgetSide, bystander] = [0, 1, 2].map(nodeId);
  assert.ok(owner && widgetSide && bystander);
  const to = (suffix: string) => published.filter((c) => c.endsWith(suffix)).length;
  try {
    const back = await world.widget(1, { visitorToken: ready.visitorToken });
    await back.frame('ready');
    back.send({ t: 'message', text: 'Again' });
    await back.frame('delta');
    await back.frame('message', (f) => f.message.role === 'assistant' && f.message.text === 'You said: Again');
    await back.close();
    await until(() => to(`w:${owner}`) >= 2, { message: "the owner told of the widget's open and close" });
  } finally {
    mon.close();
  }
  assert.is(published.filter((c) => /:(hub|ev)$/.test(c)).length, 0, `nothing broadcast to every process: ${published.join(' ')}`);
  assert.is(to(bystander), 0, 'the third process hears nothing of it');
  assert.ok(to(`w:${owner}`) >= 2, "the owner is told the widget opened and closed there");
  assert.ok(to(`w:${widgetSide}`) >= 1, "the reply's frames cross to the widget's process");
});

test.run();
