/**
 * A Redis outage in a scale-out group (two processes, a real redis-server killed and started again on its
 * port): conversations a process owns go on well past their lease, a reply streaming when Redis went away is
 * finished and stored, what needs coordination is refused with a clear answer (REST 503 with Retry-After, a
 * widget `rate_limited` with a retry time), /readyz stays 200 (this process can serve), and everything works
 * across processes again once Redis is back.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { quietFor, until } from '../helpers/until.js';
import { must, startGroupWorld, type GroupWorld } from './world.js';

const LEASE_MS = 1500;
const METRICS_TOKEN = 'metrics-token-0123456789';
/** One sample of process `i`'s metrics (labels as written, e.g. `{how="taken"}`). */
async function metric(i: number, series: string): Promise<number> {
  const text = (await world.w(i).request('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body as string;
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line ? Number(line.slice(series.length + 1)) : NaN;
}
let world: GroupWorld;

test.before(async () => {
  world = await startGroupWorld({ n: 2, env: { LEASE_MS: String(LEASE_MS), METRICS_TOKEN }, botPatch: { security: { rateLimits: { messagesPerMinute: 120 } } } });
});
test.after(async () => { await world?.close(); });

const assistant = (text: string) => (f: any) => f.t === 'message' && f.message.role === 'assistant' && f.message.text === text;

test('Redis killed: owned conversations are served past their lease, REST answers 503 + Retry-After, /readyz stays 200, all reconciles', async () => {
  const { w } = world;
  const visitor = await world.widget(0);
  const ready = await visitor.frame('ready');
  visitor.send({ t: 'message', text: 'hello' });
  const { conversationId } = await visitor.frame('conversation');
  await visitor.next(assistant('You said: hello'), 15_000);

  // A reply streams; Redis dies in the middle of it.
  world.fake.script({ text: ['one ', 'two ', 'three ', 'four'], chunkIntervalMs: 400 });
  visitor.send({ t: 'message', text: 'stream please' });
  await visitor.frame('delta');
  await world.redis.stop();
  const streamed = await visitor.next(assistant('one two three four'), 15_000);

  // Keep chatting for more than twice the lease: every message is answered by the owner.
  const chatUntil = Date.now() + 2.5 * LEASE_MS;
  let n = 0;
  do {
    visitor.send({ t: 'message', text: `during ${n}` });
    await visitor.next(assistant(`You said: during ${n}`), 15_000);
    n++;
    await quietFor(LEASE_MS / 4, 'the visitor reading before writing again');
  } while (Date.now() < chatUntil);
  assert.ok(n >= 2);
  assert.not.ok(visitor.frames.some((f) => f.t === 'error'), `no error frame: ${JSON.stringify(visitor.frames.filter((f) => f.t === 'error'))}`);

  // A team reply on the owner's process is stored; on the other process it needs Redis: 503 with Retry-After.
  const here = await w(0).request('POST', `/api/v1/conversations/${conversationId}/messages`, { body: { text: 'Team here.' }, headers: world.owner.headers });
  assert.is(here.status, 201, JSON.stringify(here.body));
  await visitor.next((f) => f.t === 'message' && f.message.role === 'human_agent' && f.message.text === 'Team here.');
  const there = await w(1).request('POST', `/api/v1/conversations/${conversationId}/messages`, { body: { text: 'From afar.' }, headers: world.owner.headers });
  assert.is(there.status, 503, JSON.stringify(there.body));
  assert.is(there.body.error.code, 'unavailable');
  assert.match(there.body.error.message, /REDIS_URL/);
  assert.ok(Number(there.headers.get('retry-after')) > 0, 'Retry-After says when to try again');
  // Reads need no coordination.
  assert.is((await w(1).request('GET', `/api/v1/conversations/${conversationId}`, { headers: world.owner.headers })).status, 200);

  // Each process can still serve: ready, with the coordination trouble reported (readiness and metrics).
  for (const i of [0, 1]) {
    const r = await w(i).request('GET', '/readyz');
    assert.is(r.status, 200, `process ${i}: ${JSON.stringify(r.body)}`);
    assert.is(r.body.checks.coordination.ok, false);
    assert.match(r.body.checks.coordination.problem, /REDIS_URL/);
    assert.is(await metric(i, 'servicechat_coordination_up'), 0);
    assert.is(await metric(i, 'servicechat_ready'), 1);
  }

  // A new conversation needs Redis: refused with a retry time.
  const newcomer = await world.newcomerRefused(1);

  // Redis back: a new conversation starts, a team reply from the other process reaches the owner, the owner
  // keeps its conversation.
  await world.restartRedis();
  await until(async () => {
    const r = await w(1).request('POST', `/api/v1/conversations/${conversationId}/messages`, { body: { text: 'From afar, again.' }, headers: world.owner.headers });
    if (r.status !== 201) assert.is(r.status, 503, JSON.stringify(r.body));
    return r.status === 201;
  }, { timeout: 15_000, interval: 200, message: 'the other process reaching the owner after Redis came back' });
  await visitor.next((f) => f.t === 'message' && f.message.role === 'human_agent' && f.message.text === 'From afar, again.');
  // (a team reply took the conversation over: released, through the other process too, the AI answers again)
  must('release', await w(1).request('POST', `/api/v1/conversations/${conversationId}/release`, { headers: world.owner.headers }), 200);
  visitor.send({ t: 'message', text: 'after' });
  await visitor.next(assistant('You said: after'), 15_000);
  newcomer.send({ t: 'message', text: 'and now?' });
  await newcomer.next(assistant('You said: and now?'), 15_000);
  for (const i of [0, 1]) {
    assert.is((await w(i).request('GET', '/readyz')).body.checks.coordination.ok, true);
    assert.is(await metric(i, 'servicechat_coordination_up'), 1);
    assert.ok(await metric(i, 'servicechat_redis_round_trips_total') > 0);
  }
  assert.ok(await metric(1, 'servicechat_forwarded_commands_total{outcome="ok"}') >= 2, 'the team reply and the release went to the owner');
  assert.ok(await metric(0, 'servicechat_ownership_moves_total{how="taken"}') >= 1);
  assert.ok(await metric(0, 'servicechat_turn_first_delta_seconds_count') >= 3);

  // Nothing was lost: the streamed reply is stored, every message once, in order.
  const t = await world.transcriptInOrder(conversationId);
  assert.ok(t.messages.some((m: any) => m.id === streamed.message.id && m.text === 'one two three four'), 'the reply streamed across the loss is stored');
  assert.is(ready.conversationId, null);
  assert.ok(world.group.logs.some((l) => /coordination server \(REDIS_URL\) lost/.test(l.msg ?? '')));
  assert.ok(world.group.logs.some((l) => /coordination server \(REDIS_URL\) is back/.test(l.msg ?? '')));
});

test.run();
