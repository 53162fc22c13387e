import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import type { FakeRealtime } from '../fakes/openai-realtime.js';
import { RATES, seen, sendAudio, speak, startVoice, startVoiceWorld, tone, until } from './world.js';

const R = RATES.openai;

test('voice.maxSessionMinutes ends voice on time; the chat goes on in text', async () => {
  const clock = new FakeClock();
  const w = await startVoiceWorld({ clock, voice: { maxSessionMinutes: 1, idleSeconds: 1800 } });
  const realtime = (w.fake as unknown as { realtime: FakeRealtime }).realtime;
  try {
    const v = await w.visitor();
    await startVoice(v);
    await clock.advance(59_000);
    assert.not.ok(v.frames.some((f) => f.t === 'voice' && f.state === 'ended'));
    await clock.advance(1_000);
    const ended = await seen(v, 'voice', (f) => f.state === 'ended');
    assert.is(ended.reason, 'max_duration');
    assert.match(ended.message, /1 minutes/);
    await until(() => !realtime.connections[0].open, { timeout: 5000, message: 'engine socket closed' });
    w.fake.script({ text: 'Still here in text.' });
    v.say('hello?');
    assert.is((await v.reply()).message.text, 'Still here in text.');
    await v.close();
  } finally {
    await w.close();
  }
});

test('voice.idleSeconds ends voice after a silence, counted from the last speech', async () => {
  const clock = new FakeClock();
  const w = await startVoiceWorld({ clock, voice: { idleSeconds: 20 } });
  const realtime = (w.fake as unknown as { realtime: FakeRealtime }).realtime;
  try {
    realtime.hear('hello');
    w.fake.script({ text: 'Hi.' });
    const v = await w.visitor();
    await startVoice(v);
    await clock.advance(15_000);
    speak(v, R.input);
    await seen(v, 'message', (f) => f.message.role === 'user');
    const item = await seen(v, 'voice_item');
    v.send({ t: 'voice_played', itemId: item.itemId, ms: 60_000 });
    await seen(v, 'message', (f) => f.message.id === item.messageId);
    await clock.advance(15_000);
    assert.not.ok(v.frames.some((f) => f.t === 'voice' && f.state === 'ended'), 'speech 15 s ago keeps it alive');
    await clock.advance(6_000);
    const ended = await seen(v, 'voice', (f) => f.state === 'ended');
    assert.is(ended.reason, 'idle');
    await v.close();
  } finally {
    await w.close();
  }
});

test('security.caps.concurrentVoiceSessions: one more session than allowed is refused with a clear message', async () => {
  const w = await startVoiceWorld({ config: { security: { caps: { concurrentVoiceSessions: 1 } } } });
  try {
    const a = await w.visitor();
    await startVoice(a);
    const b = await w.visitor();
    b.send({ t: 'voice_start' });
    const err = await b.next('error');
    assert.is(err.code, 'rate_limited');
    assert.match(err.message, /concurrentVoiceSessions/);
    assert.match(err.message, /keep typing/);
    // When the first ends, the second may start.
    a.send({ t: 'voice_stop' });
    await seen(a, 'voice', (f) => f.state === 'ended');
    assert.is((await startVoice(b)).state, 'listening');
    await a.close(); await b.close();
  } finally {
    await w.close();
  }
});

test('security.caps.concurrentVoiceSessions holds when visitors start voice at the same moment', async () => {
  const w = await startVoiceWorld({ config: { security: { caps: { concurrentVoiceSessions: 2 } } } });
  try {
    const visitors = [await w.visitor(), await w.visitor(), await w.visitor(), await w.visitor()];
    for (const v of visitors) v.send({ t: 'voice_start' });
    const outcomes = await Promise.all(visitors.map((v) => Promise.race([
      v.next('voice', (f) => f.state === 'listening', 10_000).then(() => 'listening'),
      v.next('error', () => true, 10_000).then((e) => e.code),
    ])));
    assert.equal(outcomes.slice().sort(), ['listening', 'listening', 'rate_limited', 'rate_limited'], JSON.stringify(outcomes));
    for (const v of visitors) await v.close();
  } finally {
    await w.close();
  }
});

test('security.caps.dailyVoiceMinutes counts audio both ways and stops voice at the cap, during a session and at the next start', async () => {
  const clock = new FakeClock();
  // 0.05 minutes: 3 seconds of audio a day.
  const w = await startVoiceWorld({ clock, config: { security: { caps: { dailyVoiceMinutes: 0.05 } } } });
  try {
    const v = await w.visitor();
    await startVoice(v);
    sendAudio(v, tone(3200, R.input, 100), R.input);
    // All of it reaches the engine (PCM16 at 24 kHz: 48 bytes a millisecond) before the day's minutes are counted.
    const realtime = (w.fake as unknown as { realtime: FakeRealtime }).realtime;
    await until(() => realtime.sent('input_audio_buffer.append').reduce((n, e) => n + (e.bytes ?? 0), 0) >= 48 * 3100, { message: () => `the 3.2 s of audio reaching the engine (${realtime.sent('input_audio_buffer.append').reduce((n, e) => n + (e.bytes ?? 0), 0) / 48} ms)` });
    await clock.advance(10_000);
    const ended = await seen(v, 'voice', (f) => f.state === 'ended');
    assert.is(ended.reason, 'cap_reached');
    assert.match(ended.message, /not available any more today/);
    v.send({ t: 'voice_start' });
    const err = await v.next('error');
    assert.is(err.code, 'rate_limited');
    assert.match(err.message, /dailyVoiceMinutes/);
    await v.close();
  } finally {
    await w.close();
  }
});

test('security.caps.dailyUsd at 0 refuses voice before any engine is called', async () => {
  const w = await startVoiceWorld({ config: { security: { caps: { dailyUsd: 0 } } } });
  const realtime = (w.fake as unknown as { realtime: FakeRealtime }).realtime;
  try {
    const v = await w.visitor();
    v.send({ t: 'voice_start' });
    const err = await v.next('error');
    assert.is(err.code, 'rate_limited');
    assert.match(err.message, /dailyUsd/);
    assert.is(realtime.connections.length, 0);
    await v.close();
  } finally {
    await w.close();
  }
});

test('spoken replies are priced with audio tokens and appear in /analytics/usage under the realtime model', async () => {
  const w = await startVoiceWorld();
  const realtime = (w.fake as unknown as { realtime: FakeRealtime }).realtime;
  try {
    realtime.hear('hi');
    w.fake.script({ text: 'Hello there, nice to meet you.' });
    const v = await w.visitor();
    await startVoice(v);
    speak(v, R.input);
    const item = await seen(v, 'voice_item');
    v.send({ t: 'voice_played', itemId: item.itemId, ms: 60_000 });
    await seen(v, 'message', (f) => f.message.id === item.messageId);
    const usage = await w.server.request('GET', '/api/v1/analytics/usage', { headers: w.owner.headers });
    assert.is(usage.status, 200);
    const row = usage.body.items.find((m: any) => m.model === 'gpt-realtime');
    assert.ok(row, JSON.stringify(usage.body));
    assert.is(row.replies, 1);
    assert.ok(row.costUsd > 0, 'audio is priced');
    assert.ok(row.outputTokens > 0);
    await v.close();
  } finally {
    await w.close();
  }
});

test.run();
