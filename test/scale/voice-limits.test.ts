/**
 * Voice and limits in a scale-out group (three processes, a real redis-server, the shared embedded store): a
 * voice session started on the process holding the visitor's socket while another process owned the
 * conversation; message rate limits, uploads per hour, daily caps and simultaneous voice sessions counted across
 * the processes.
 */
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Visitor } from '../chat/helpers.js';
import { RATES, seen, speak, startVoice, until } from '../voice/world.js';
import { must, startGroupWorld, type GroupWorld } from './world.js';

let world: GroupWorld;
let openai = '';
const w = (i: number) => world.w(i);
const visitors: Visitor[] = [];

/** A widget (audio-aware) on process `i`; `botId` defaults to the world's bot. */
async function visitorOn(i: number, q: Record<string, string> = {}): Promise<Visitor> {
  const url = `${world.group.workers[i].url.replace('http', 'ws')}/widget/v1/chat?${new URLSearchParams({ botId: world.botId, ...q })}`;
  const v = await Visitor.open(url);
  visitors.push(v);
  return v;
}

/** Saves a deep patch of a bot's settings and publishes it (through process `i`). */
async function publishPatch(i: number, botId: string, patch: Record<string, unknown>): Promise<void> {
  const bot = must('GET bot', await w(i).request('GET', `/api/v1/bots/${botId}`, { headers: world.owner.headers }), 200);
  must('PATCH bot', await w(i).request('PATCH', `/api/v1/bots/${botId}`, { body: { revision: bot.revision ?? bot.bot?.revision, patch }, headers: world.owner.headers }), 200);
  must('publish', await w(i).request('POST', `/api/v1/bots/${botId}/publish`, { body: {}, headers: world.owner.headers }), 200, 201);
}

async function upload(i: number, visitorToken: string, png: Buffer) {
  const res = await fetch(`${world.group.workers[i].url}/widget/v1/uploads?botId=${world.botId}&visitorToken=${encodeURIComponent(visitorToken)}`, {
    method: 'POST', body: new Uint8Array(png), headers: { 'content-type': 'image/png' },
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

test.before(async () => {
  world = await startGroupWorld();
  // The brain on a connection of kind OpenAI (the fake serves chat and the Realtime socket), so voice and images work.
  const conn = must('POST /providers', await w(2).request('POST', '/api/v1/providers', {
    body: { kind: 'openai', name: 'Fake OpenAI', apiKey: world.fake.apiKey, baseUrl: world.fake.baseUrl }, headers: world.owner.headers,
  }), 201);
  openai = conn.id ?? conn.connection?.id;
  await publishPatch(0, world.botId, {
    brain: { connectionId: openai, model: 'gpt-4o-mini' },
    voice: { enabled: true, mode: 'realtime' },
    vision: { uploads: { enabled: true } },
    security: { rateLimits: { messagesPerMinute: 5, uploadsPerHour: 2 } },
  });
});

test.after(async () => {
  await Promise.all(visitors.map((v) => v.close()));
  await world?.close();
});

test('a visitor who moves to another process starts voice there: turns are stored once and in order, the team elsewhere sees each once', async () => {
  const realtime = world.fake.realtime;
  const team = await world.live(2, world.owner);
  // The conversation starts in text on process 0, which owns it.
  const first = await visitorOn(0);
  first.say('Hello in text');
  const { conversationId } = await first.next('conversation');
  await first.reply();
  await first.close();

  // The visitor comes back on process 1 and starts voice there.
  const v = await visitorOn(1, { visitorToken: first.ready.visitorToken });
  assert.is(v.ready.conversationId, conversationId, 'the same conversation goes on');
  realtime.hear('What are your opening hours?');
  world.fake.script({ text: 'We are open from nine to five.' });
  const connections = realtime.connections.length;
  const started = await startVoice(v);
  assert.is(started.state, 'listening', JSON.stringify(started));
  // (its log line comes through the supervisor's output, maybe after the socket's frame)
  await until(() => world.group.logs.some((l) => l.msg?.startsWith('conversation handed over') && l.conversationId === conversationId), { timeout: 5000, message: 'process 0 handing it over' });

  speak(v, RATES.openai.input);
  const item = await v.next('voice_item', () => true, 10_000);
  await seen(v, 'message', (f) => f.message.role === 'user' && f.message.modality === 'voice', 10_000);
  await until(() => realtime.connections[connections]?.items.some((i) => i.role === 'assistant'), { timeout: 10_000, message: 'the spoken reply' });
  const audioMs = realtime.connections[connections].items.find((i) => i.role === 'assistant')!.audioMs;
  await seen(v, 'voice_item_done', (f) => f.itemId === item.itemId, 10_000);
  v.send({ t: 'voice_played', itemId: item.itemId, ms: audioMs });
  const spoken = await v.next('message', (f) => f.message.role === 'assistant', 10_000);
  assert.is(spoken.message.text, 'We are open from nine to five.');
  assert.is(spoken.message.id, item.messageId);
  v.send({ t: 'voice_stop' });
  assert.is((await v.next('voice', (f) => f.state === 'ended')).reason, 'visitor');

  // Text goes on with the process that holds the conversation now, and its answer sees the spoken turns.
  v.say('Thanks');
  const text = await v.next('message', (f) => f.message.role === 'assistant' && f.message.modality === 'text', 10_000);
  assert.ok(JSON.stringify(world.fake.lastBody('/chat/completions').messages).includes('What are your opening hours?'));

  const t = await world.transcript(conversationId);
  assert.equal(t.messages.map((m: any) => `${m.role}/${m.modality}: ${m.text}`), [
    'user/text: Hello in text', 'assistant/text: You said: Hello in text',
    'user/voice: What are your opening hours?', 'assistant/voice: We are open from nine to five.',
    'user/text: Thanks', `assistant/text: ${text.message.text}`,
  ]);
  assert.equal(t.messages.map((m: any) => m.seq), [1, 2, 3, 4, 5, 6], 'one writer: no gap or double in the sequence');
  await team.event('message.created', (d) => d.message.id === text.message.id);
  const ids = team.all('message.created').filter((f) => f.data.conversationId === conversationId).map((f) => f.data.message.id);
  assert.equal(ids, t.messages.map((m: any) => m.id), 'the team on process 2 saw every message once, in order');
});

test('voice started elsewhere while the owner is writing a reply: the reply is finished and stored first, then the session starts', async () => {
  const realtime = world.fake.realtime;
  const onA = await visitorOn(0);
  onA.say('Start');
  const { conversationId } = await onA.next('conversation');
  await onA.reply(10_000);
  world.fake.script({ text: 'A slow written answer.', delayMs: 1500 });
  onA.say('Tell me slowly');
  await onA.next('message', (f) => f.message.role === 'user' && f.message.text === 'Tell me slowly');
  // A second tab on process 1 continues the same conversation and starts voice while process 0 is still answering.
  const onB = await visitorOn(1, { visitorToken: onA.ready.visitorToken });
  assert.is(onB.ready.conversationId, conversationId);
  const connections = realtime.connections.length;
  const started = await startVoice(onB);
  assert.is(started.state, 'listening', JSON.stringify(started));
  const written = await seen(onB, 'message', (f) => f.message.role === 'assistant' && f.message.text === 'A slow written answer.');
  const listening = onB.frames.indexOf(started);
  assert.ok(onB.frames.indexOf(written) < listening, 'the written reply came before the session listened');
  // The engine was given the finished reply as history.
  assert.match(JSON.stringify(realtime.connections[connections].items), /A slow written answer\./);
  onB.send({ t: 'voice_stop' });
  await onB.next('voice', (f) => f.state === 'ended');
  const t = await world.transcript(conversationId);
  assert.equal(t.messages.map((m: any) => m.text), ['Start', 'You said: Start', 'Tell me slowly', 'A slow written answer.']);
});

test('a visitor\'s messages per minute are counted across the processes', async () => {
  // messagesPerMinute 5: one process alone would take 5 on each of the three.
  const a = await visitorOn(0);
  const sockets = [a, await visitorOn(1, { visitorToken: a.ready.visitorToken }), await visitorOn(2, { visitorToken: a.ready.visitorToken })];
  const answers: string[] = [];
  for (let n = 0; n < 6; n++) {
    const s = sockets[n % 3];
    s.say(`message ${n}`, { clientId: `m${n}` });
    const mine = (f: any) => f.clientId === `m${n}` && (f.t === 'message' || f.t === 'error');
    await until(() => s.frames.some(mine), { timeout: 10_000, message: `the answer to message ${n}` });
    const f = s.frames.find(mine);
    answers.push(f.t === 'error' ? f.code : 'stored');
  }
  assert.equal(answers, ['stored', 'stored', 'stored', 'stored', 'stored', 'rate_limited']);
});

test('images per hour are counted across the processes', async () => {
  const v = await visitorOn(0);
  const png = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#00ff00' } }).png().toBuffer();
  assert.is((await upload(0, v.ready.visitorToken, png)).status, 201);
  assert.is((await upload(1, v.ready.visitorToken, png)).status, 201);
  const third = await upload(2, v.ready.visitorToken, png);
  assert.is(third.status, 429, 'uploadsPerHour 2 across the group');
  assert.match(third.body.error.message, /uploadsPerHour/);
  assert.ok(Number(third.retryAfter) > 3000, 'the wait is most of the hour');
});

test('a daily cap reached through one process holds on the others, for text and voice', async () => {
  const bot = must('POST /bots', await w(1).request('POST', '/api/v1/bots', { body: { name: 'Capped' }, headers: world.owner.headers }), 201);
  const botId: string = bot.id ?? bot.bot?.id;
  await publishPatch(1, botId, { brain: { connectionId: openai, model: 'gpt-4o-mini' }, voice: { enabled: true, mode: 'realtime' }, security: { caps: { dailyMessages: 1 } } });
  const one = await visitorOn(0, { botId });
  one.say('First');
  assert.is((await one.reply(10_000)).message.text, 'You said: First');

  const two = await visitorOn(1, { botId });
  two.say('Second');
  const refused = await two.next('message', (f) => f.message.role === 'system_event', 10_000);
  assert.match(refused.message.text, /can't answer any more messages today/);
  const three = await visitorOn(2, { botId });
  three.send({ t: 'voice_start' });
  const err = await three.next('error');
  assert.is(err.code, 'rate_limited');
  assert.match(err.message, /security\.caps\.dailyMessages/);
});

test('simultaneous voice sessions of a bot are counted across the processes, and a seat is free again when a session ends', async () => {
  const bot = must('POST /bots', await w(2).request('POST', '/api/v1/bots', { body: { name: 'One voice' }, headers: world.owner.headers }), 201);
  const botId: string = bot.id ?? bot.bot?.id;
  await publishPatch(2, botId, { brain: { connectionId: openai, model: 'gpt-4o-mini' }, voice: { enabled: true, mode: 'realtime' }, security: { caps: { concurrentVoiceSessions: 1 } } });
  const talking = await visitorOn(0, { botId });
  assert.is((await startVoice(talking)).state, 'listening');
  const waiting = await visitorOn(1, { botId });
  waiting.send({ t: 'voice_start' });
  const busy = await waiting.next('error');
  assert.is(busy.code, 'rate_limited');
  assert.match(busy.message, /already in 1 voice conversation\(s\) \(security\.caps\.concurrentVoiceSessions\)/);
  talking.send({ t: 'voice_stop' });
  await talking.next('voice', (f) => f.state === 'ended');
  assert.is((await startVoice(waiting)).state, 'listening', 'the seat was given back on process 0');
  waiting.send({ t: 'voice_stop' });
  await waiting.next('voice', (f) => f.state === 'ended');
});

test('one visitor\'s and one address\'s voice sessions at once are counted across the processes and the bots', async () => {
  const bot = must('POST /bots', await w(0).request('POST', '/api/v1/bots', { body: { name: 'Second voice bot' }, headers: world.owner.headers }), 201);
  const other: string = bot.id ?? bot.bot?.id;
  await publishPatch(0, other, { brain: { connectionId: openai, model: 'gpt-4o-mini' }, voice: { enabled: true, mode: 'realtime' } });
  const stop = async (v: Visitor) => { v.send({ t: 'voice_stop' }); await v.next('voice', (f) => f.state === 'ended'); };
  // One visitor (the same token) in three tabs on three processes: two talk (VOICE_SESSIONS_PER_VISITOR 2), the third is refused.
  const tab1 = await visitorOn(0);
  const tab2 = await visitorOn(1, { visitorToken: tab1.ready.visitorToken });
  const tab3 = await visitorOn(2, { visitorToken: tab1.ready.visitorToken });
  assert.is((await startVoice(tab1)).state, 'listening');
  assert.is((await startVoice(tab2)).state, 'listening');
  tab3.send({ t: 'voice_start' });
  const mine = await tab3.next('error');
  assert.is(mine.code, 'rate_limited');
  assert.is(mine.limit, 'visitor', JSON.stringify(mine));
  // Everyone here comes from 127.0.0.1: two more visitors, on the other bot and other processes, fill the address (4).
  const third = await visitorOn(2, { botId: other });
  const fourth = await visitorOn(0, { botId: other });
  assert.is((await startVoice(third)).state, 'listening');
  assert.is((await startVoice(fourth)).state, 'listening');
  const fifth = await visitorOn(1, { botId: other });
  fifth.send({ t: 'voice_start' });
  const full = await fifth.next('error');
  assert.is(full.code, 'rate_limited');
  assert.is(full.limit, 'address', JSON.stringify(full));
  assert.match(full.message, /VOICE_SESSIONS_PER_ADDRESS/);
  // A session ended on process 0 frees both seats for the others at once.
  await stop(tab1);
  assert.is((await startVoice(tab3)).state, 'listening', 'the visitor\'s seat was given back');
  await stop(tab2);
  assert.is((await startVoice(fifth)).state, 'listening', 'the address\'s seat was given back');
  for (const v of [tab3, third, fourth, fifth]) await stop(v);
});

test('a killed process\'s voice seats are free within seconds (its membership lapses), not after 30 s', async () => {
  const bot = must('POST /bots', await w(2).request('POST', '/api/v1/bots', { body: { name: 'Voice after a crash' }, headers: world.owner.headers }), 201);
  const botId: string = bot.id ?? bot.bot?.id;
  await publishPatch(2, botId, { brain: { connectionId: openai, model: 'gpt-4o-mini' }, voice: { enabled: true, mode: 'realtime' }, security: { caps: { concurrentVoiceSessions: 1 } } });
  const talking = await visitorOn(0, { botId });
  assert.is((await startVoice(talking)).state, 'listening');
  const victim = world.group.workers[0];
  process.kill(victim.pid, 'SIGKILL');
  const killedAt = Date.now();
  const waiting = await visitorOn(1, { botId });
  // Asks again each time it is refused, as a visitor pressing the button would.
  await until(async () => {
    const from = waiting.frames.length;
    waiting.send({ t: 'voice_start' });
    const answer = await until(() => waiting.frames.slice(from).find((f) => (f.t === 'voice' && f.state === 'listening') || f.t === 'error'), { timeout: 10_000, message: 'an answer to voice_start' });
    if (answer.t !== 'voice') assert.is(answer.code, 'rate_limited', JSON.stringify(answer));
    return answer.t === 'voice';
  }, { timeout: Math.max(0, killedAt + 10_000 - Date.now()), interval: 250, message: 'the killed process\'s seat freed within 10 s (voice_start accepted)' });
  assert.ok(Date.now() - killedAt < 10_000);
  waiting.send({ t: 'voice_stop' });
  await waiting.next('voice', (f) => f.state === 'ended');
  await world.group.waitWorker(0, victim.pid);
});

test.run();
