/**
 * The voice client (voice.js) in headless Chromium, driven frame by frame as the chat socket would drive it
 * (voice-harness.js), with Chromium's fake microphone playing speech made by espeak-ng. Checks what only
 * the browser side can show precisely: the frames sent up, the jitter buffer, gapless playback, the
 * stop within one render quantum, and voice_played. The whole path through the server is in voice.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { built, widgetDir } from '../helpers/built.js';
import { CHROMIUM } from './world.js';

const harness = readFileSync(new URL('./voice-harness.js', import.meta.url));
let browser: Browser;
let site: Server;
let url: string;
let sizes: ReturnType<typeof built>['widget'];

test.before(async () => {
  sizes = built().widget;
  const wav = join(mkdtempSync(join(tmpdir(), 'voice-')), 'speech.wav');
  execFileSync('espeak-ng', ['-w', wav, 'Hello, I would like to know your opening hours, please.']);
  site = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const body = path === '/voice.js' ? readFileSync(join(widgetDir, 'voice.js')) : path === '/harness.js' ? harness : '<!doctype html><title>voice</title><script src="/harness.js"></script>';
    res.writeHead(200, { 'content-type': path.endsWith('.js') ? 'text/javascript' : 'text/html' });
    res.end(body);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--autoplay-policy=no-user-gesture-required',
      '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${wav}`],
  });
});
test.after(async () => {
  await browser?.close();
  site?.close();
});

async function open(allowMic = true): Promise<Page> {
  const ctx = await browser.newContext();
  if (allowMic) await ctx.grantPermissions(['microphone']);
  const page = await ctx.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (err) => console.error('page error:', err.message));
  await page.goto(url);
  return page;
}

const h = (page: Page, code: string) => page.evaluate(`(async () => { const h = window.harness; ${code} })()`) as Promise<any>;
/**
 * Time on purpose, on the page's clock: a measuring window (frames in a second) or a stretch in which something must
 * not happen (`why` says what). A wait for something to happen is page.waitForFunction.
 */
const pageTime = (page: Page, ms: number, _why: string) => page.evaluate(`new Promise((r) => setTimeout(r, ${ms}))`);

test('voice.js is a separate bundle within 20 KB gzipped', () => {
  assert.ok(sizes.voice.gzip <= 20 * 1024, `voice.js is ${sizes.voice.gzip} bytes gzipped`);
  assert.not.ok(readFileSync(join(widgetDir, 'chat.js'), 'utf8').includes('sc-capture'), 'the worklets are not in chat.js');
});

test('the microphone goes up as 20 ms PCM16 frames at the session input rate, with a level, and not while muted', async () => {
  const page = await open();
  assert.is((await h(page, 'return h.start({ inputRate: 24000 })')).state, 'listening');
  assert.equal((await h(page, 'return h.sent'))[0], { t: 'voice_start' });
  await pageTime(page, 1000, 'the measuring window: a second of microphone frames');
  const { first, ms } = await h(page, 'return { first: h.audio.slice(), ms: performance.now() - h.listeningAt }');
  // 20 ms at 24 kHz: 480 samples, 960 bytes, after the 0x01 type byte; about 50 a second.
  assert.ok(first.every((f: any) => f.first === 1 && f.bytes === 961), JSON.stringify(first.slice(0, 3)));
  // One frame per 20 ms of the time the window really took (a loaded machine's timer fires late: CI's "second" held
  // 93 frames), less the capture's start-up, plus a few frames of the audio thread catching up: a microphone sent
  // twice, or at half rate, fails.
  const expected = ms / 20;
  assert.ok(first.length >= expected * 0.6 - 5 && first.length <= expected * 1.2 + 5, `${first.length} frames in ${Math.round(ms)} ms`);
  assert.ok(Math.max(...await h(page, 'return h.inLevels')) > 0.3, 'the speech shows on the level meter');
  await h(page, 'h.client.setMuted(true); h.muteAt = h.audio.length');
  await pageTime(page, 300, 'a frame sent while muted');
  assert.ok(await h(page, 'return h.audio.length - h.muteAt') <= 1, 'nothing is sent while muted');
  assert.is(await h(page, 'return h.inLevels[h.inLevels.length - 1]'), 0);
  await h(page, 'h.client.setMuted(false); h.muteAt = h.audio.length');
  await page.waitForFunction('window.harness.audio.length - window.harness.muteAt >= 10', null, { timeout: 5000 }); // sending resumes when unmuted
  await page.context().close();
});

test('at a 16 kHz input rate frames are 320 samples', async () => {
  const page = await open();
  await h(page, 'return h.start({ inputRate: 16000 })');
  await page.waitForFunction('window.harness.audio.length > 10', null, { timeout: 5000 });
  const frames = await h(page, 'return h.audio.slice()');
  assert.ok(frames.length > 10 && frames.every((f: any) => f.bytes === 641), JSON.stringify(frames.slice(0, 3)));
  await page.context().close();
});

test('the agent plays gaplessly across chunk boundaries at the right pitch, then voice_played reports the whole item', async () => {
  const page = await open();
  await h(page, 'return h.start({ outputRate: 24000 })');
  await h(page, `h.frame({ t: 'voice_item', itemId: 'it1', messageId: 'm1' }); h.state('speaking'); h.tone('it1', 1000, [7, 20, 33, 3, 41]);`);
  // voice_item_done (the server sends it after the item's last audio, while still speaking): the player plays the
  // rest and reports the item done, so the server can store the turn without waiting.
  await h(page, `h.frame({ t: 'voice_item_done', itemId: 'it1' })`);
  await page.waitForFunction('window.harness.sent.some((f) => f.t === "voice_played")', null, { timeout: 5000 });
  const played = (await h(page, 'return h.sent')).filter((f: any) => f.t === 'voice_played');
  assert.equal(played, [{ t: 'voice_played', itemId: 'it1', ms: 1000 }]);
  const a = await h(page, 'return h.analyse()');
  assert.ok(Math.abs(a.soundMs - 1000) < 15, `played ${a.soundMs} ms`);
  assert.ok(a.longestSilence <= 2, `longest silent run inside: ${a.longestSilence} samples`);
  assert.ok(Math.abs(a.hz - 440) < 5, `pitch ${a.hz} Hz after resampling to ${a.rate} Hz`);
  const states = (await h(page, 'return h.states')).map((s: any) => s.playing);
  assert.ok(states.includes(true) && states[states.length - 1] === false, 'playback state went playing, then idle');
  assert.ok(Math.max(...await h(page, 'return h.outLevels')) > 0.5, 'the output level follows the voice');
  await page.context().close();
});

test('playback waits for about 60 ms of audio before it starts, and rides out a stall', async () => {
  const page = await open();
  await h(page, 'return h.start({ outputRate: 24000 })');
  await h(page, `h.frame({ t: 'voice_item', itemId: 'it1', messageId: 'm1' }); h.state('speaking'); h.tone('it1', 40)`);
  await pageTime(page, 200, 'playback starting with only 40 ms buffered');
  assert.is(await h(page, 'return h.client.snap.playing'), false, '40 ms buffered: not yet');
  await h(page, `h.tone('it1', 60)`);
  await page.waitForFunction('window.harness.client.snap.playing');
  await pageTime(page, 300, 'voice_played sent while the item is not over');
  // The network stalled: the item is not over, so playback waits for more without calling it done.
  assert.is(await h(page, 'return h.sent.filter((f) => f.t === "voice_played").length'), 0);
  await h(page, `h.tone('it1', 100); h.state('listening')`);
  await page.waitForFunction('window.harness.sent.some((f) => f.t === "voice_played")');
  assert.equal((await h(page, 'return h.sent')).filter((f: any) => f.t === 'voice_played'), [{ t: 'voice_played', itemId: 'it1', ms: 200 }]);
  await page.context().close();
});

test('voice_interrupt silences playback within one render quantum and answers voice_played with the ms heard', async () => {
  const page = await open();
  await h(page, 'return h.start({ outputRate: 24000 })');
  await h(page, `h.frame({ t: 'voice_item', itemId: 'it9', messageId: 'm9' }); h.state('speaking'); h.tone('it9', 3000)`);
  await page.waitForFunction('window.harness.client.snap.playing');
  await pageTime(page, 500, 'the measuring window: 500 ms of playing before the interrupt');
  // The mark goes to the recorder right after the frame is handled: a client that posts 'stop' to its player at once
  // has it on its way first; one that waited (an await, a timer) would post it after the mark, and the sound it let
  // through would count below. Marking before the frame measured the main thread's own delay on a loaded machine
  // (512 samples once in a full run) rather than the player's.
  await h(page, `h.frame({ t: 'voice_interrupt', itemId: 'it9' }); h.mark()`);
  await page.waitForFunction('window.harness.sent.some((f) => f.t === "voice_played")');
  const [played] = (await h(page, 'return h.sent')).filter((f: any) => f.t === 'voice_played');
  assert.is(played.itemId, 'it9');
  assert.ok(played.ms > 350, `heard ${played.ms} ms after 500 ms of playing`);
  await pageTime(page, 200, 'sound after the interrupt (the recorder keeps listening)');
  const a = await h(page, 'return h.analyse()');
  // What it reports is what came out of the speaker (the recorder's count), not the wall clock's time, which a
  // loaded machine stretches.
  assert.ok(Math.abs(played.ms - a.soundMs) <= 20, `reported ${played.ms} ms heard; the recording holds ${a.soundMs.toFixed(1)} ms`);
  // The player is silent from the quantum after it gets 'stop'. The recorder's mark is a message to another port,
  // and one render quantum (128 frames) can pass between the two deliveries.
  assert.ok(a.loudAfterMark <= 2 * 128, `${a.loudAfterMark} samples of sound after the interrupt`);
  assert.is(await h(page, 'return h.client.snap.playing'), false);
  // Audio still in flight for the cut item is not played.
  await h(page, `h.tone('it9', 200)`);
  await pageTime(page, 300, 'the cut item\'s late audio playing');
  assert.is(await h(page, 'return h.client.snap.playing'), false);
  await page.context().close();
});

test('push-to-talk sends voice_ptt and audio only while held, and pressing stops the agent', async () => {
  const page = await open();
  assert.is((await h(page, `return h.start({ mode: 'ptt' })`)).mode, 'ptt');
  assert.equal((await h(page, 'return h.sent'))[0], { t: 'voice_start', mode: 'ptt' });
  await pageTime(page, 300, 'a frame sent before the button is held');
  assert.is(await h(page, 'return h.audio.length'), 0, 'nothing is sent before the button is held');
  await h(page, `h.frame({ t: 'voice_item', itemId: 'a1', messageId: 'm1' }); h.state('speaking'); h.tone('a1', 2000)`);
  await page.waitForFunction('window.harness.client.snap.playing');
  await h(page, 'h.client.ptt(true)');
  await page.waitForFunction('!window.harness.client.snap.playing');
  await page.waitForFunction('window.harness.audio.length >= 10', null, { timeout: 5000 }); // audio while held
  await h(page, 'h.client.ptt(false); h.upAt = h.audio.length');
  await pageTime(page, 200, 'a frame sent after the release');
  const sent = await h(page, 'return h.sent');
  assert.equal(sent.filter((f: any) => f.t === 'voice_ptt'), [{ t: 'voice_ptt', down: true }, { t: 'voice_ptt', down: false }]);
  assert.ok(sent.some((f: any) => f.t === 'voice_played' && f.itemId === 'a1' && f.ms < 2000), 'the cut item reports what was heard');
  const audio = await h(page, 'return h.audio.length');
  assert.ok(audio >= 10, `${audio} frames while held`);
  assert.ok(audio - await h(page, 'return h.upAt') <= 1, 'nothing after release');
  await page.context().close();
});

test('a refused microphone ends the attempt with permission_denied and sends nothing', async () => {
  const page = await open(false);
  const s = await h(page, 'return h.start({ answer: false })');
  assert.equal([s.state, s.reason], ['ended', 'permission_denied']);
  assert.equal(await h(page, 'return h.sent'), []);
  await page.context().close();
});

test('stopped before the server answered: the session it opens after all is stopped, and its refusals stay quiet', async () => {
  const page = await open();
  await h(page, 'return h.start({ answer: false })');
  await h(page, 'await h.client.stop()');
  assert.is(await h(page, `return h.client.onError({ code: 'not_found', message: 'no voice session is live on this chat' })`), true);
  await h(page, `h.frame({ t: 'voice', state: 'connecting', sessionId: 's7', mode: 'hands_free', inputRate: 24000, outputRate: 24000 })`);
  assert.equal((await h(page, 'return h.sent')).map((f: any) => f.t), ['voice_start', 'voice_stop', 'voice_stop']);
  assert.equal(await h(page, 'return [h.client.snap.state, h.client.snap.reason]'), ['ended', 'visitor']);
  // An error long after the end is not voice's to hide.
  await pageTime(page, 3100, 'the time after the end in which voice hides its refusals going by');
  assert.is(await h(page, `return h.client.onError({ code: 'not_found', message: 'feedback for an unknown message' })`), false);
  await page.context().close();
});

test('without any microphone the attempt ends with no_microphone', async () => {
  // A browser without the fake device: this machine has no sound card.
  const bare = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--autoplay-policy=no-user-gesture-required'] });
  try {
    const ctx = await bare.newContext();
    await ctx.grantPermissions(['microphone']);
    const page = await ctx.newPage();
    await page.goto(url);
    const s = await h(page, 'return h.start({ answer: false })');
    assert.equal([s.state, s.reason], ['ended', 'no_microphone']);
  } finally {
    await bare.close();
  }
});

test('an error answering voice_start ends it with the reason; the session ended by the server releases the microphone', async () => {
  const page = await open();
  await h(page, 'return h.start({ answer: false })');
  assert.is(await h(page, `return h.client.onError({ code: 'rate_limited', message: 'Daily voice minutes reached.' })`), true);
  assert.equal(await h(page, 'return [h.client.snap.state, h.client.snap.reason]'), ['ended', 'rate_limited']);
  await h(page, 'return h.start()');
  await h(page, `h.frame({ t: 'voice', state: 'ended', reason: 'team_takeover', sessionId: 's1', message: 'A team member joined.' })`);
  assert.equal(await h(page, 'return [h.client.snap.state, h.client.snap.reason, h.client.snap.message]'), ['ended', 'team_takeover', 'A team member joined.']);
  const frames = await h(page, 'const n = h.audio.length; await new Promise((r) => setTimeout(r, 200)); return h.audio.length - n');
  assert.is(frames, 0, 'no audio after the end');
  await page.context().close();
});

test.run();
