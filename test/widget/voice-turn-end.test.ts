/**
 * The end of the agent's turn as the visitor hears it, in every voice mode (realtime on OpenAI and on Gemini Live,
 * cascade, a hosted agent), in headless Chromium with espeak-ng speech from the fake microphone: once the reply's
 * last audio has played, the voice bar is back to "Listening…" within a second, and the agent's turn is stored
 * (its message arrives) at that moment, not when a server fallback timer fires seconds later.
 *
 * What the visitor hears is measured, not what the widget believes: every AudioNode connected to the speakers is
 * also connected to an AnalyserNode, sampled every 10 ms beside the bar's state (window.__ear).
 * Screenshots: /tmp/shots/voice/turn-end-*.png.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startFakeGemini, type FakeGemini } from '../fakes/gemini.js';
import { startFakeSpeech, type FakeSpeech } from '../fakes/speech.js';
import { framesOf, startWidgetWorld, type WidgetWorld } from './world.js';

const QUESTION = 'When do you open tomorrow?';
const REPLY = 'We open at nine tomorrow.';
const SHOTS = '/tmp/shots/voice';
/** The visitor hears the bar go back to listening within this long after the reply's last sound. */
const BACK_MS = 1000;

/**
 * Samples, every 10 ms, whether the page makes a sound (any node connected to an AudioContext's destination is also
 * tapped by an analyser), the voice bar's classes and when each chat frame arrived.
 */
const EAR = `(() => {
  // sound: the last time the page made a sound; listening: the first time after it that the bar said listening, and
  // words: what the bar's text said then.
  // log: what a failure message shows, each with its time: voice frames, the agent's message, sound starting and
  // stopping, the bar's state changes.
  // quiet: the first sample without sound after the last one with it: the reply's audio ended between the two (the
  // page's timers run late on a loaded machine, so the two can be some hundreds of ms apart).
  const ear = window.__ear = { sound: null, quiet: null, listening: null, stored: null, words: null, taps: [], log: [], bar: '' };
  const note = (what) => ear.log.push(Math.round(performance.now()) + ' ' + what);
  const connect = AudioNode.prototype.connect;
  AudioNode.prototype.connect = function (dest, ...rest) {
    if (dest instanceof AudioDestinationNode) {
      const a = this.context.createAnalyser();
      a.fftSize = 512;
      connect.call(this, a);
      ear.taps.push({ a, buf: new Float32Array(512) });
    }
    return connect.call(this, dest, ...rest);
  };
  const WS = window.WebSocket;
  window.WebSocket = class extends WS {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', (e) => {
        if (typeof e.data !== 'string') return;
        let f;
        try { f = JSON.parse(e.data); } catch { return; }
        if (f.t === 'voice' || f.t === 'voice_item' || f.t === 'voice_item_done' || f.t === 'voice_interrupt') note(f.t + ' ' + (f.state ?? f.itemId ?? ''));
        if (f.t === 'message') note('message ' + f.message.role + ' ' + (f.message.modality ?? 'text'));
        // The agent's spoken turn, stored (its message replaces the caption).
        if (ear.stored === null && f.t === 'message' && f.message.role === 'assistant' && f.message.modality === 'voice') ear.stored = performance.now();
      });
    }
  };
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last > 100) note('(no sample for ' + Math.round(now - last) + ' ms)');
    last = now;
    const loud = ear.taps.some((tap) => { tap.a.getFloatTimeDomainData(tap.buf); return tap.buf.some((v) => Math.abs(v) > 0.002); });
    if (loud) {
      if (ear.sound === null || ear.quiet !== null) note('sound');
      ear.sound = now; ear.quiet = null; ear.listening = null;
    } else if (ear.sound !== null && ear.quiet === null) {
      ear.quiet = now; note('quiet');
    }
    const bar = document.querySelector('[data-service-chat]')?.shadowRoot?.querySelector('.vb');
    const barNow = bar ? bar.className + ' playing=' + bar.getAttribute('data-playing') : '';
    if (barNow !== ear.bar) { ear.bar = barNow; note('bar ' + barNow); }
    if (ear.sound !== null && ear.listening === null && bar?.classList.contains('listening') && bar.getAttribute('data-playing') !== 'true') {
      ear.listening = now;
      ear.words = bar.querySelector('.vs')?.textContent ?? null;
    }
  }, 10);
})();`;

let w: WidgetWorld;
let gemini: FakeGemini;
let speech: FakeSpeech;
const bots: Record<string, string> = {};

test.before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const wav = join(mkdtempSync(join(tmpdir(), 'voice-turn-end-')), 'question.wav');
  // A long pause after the question: the reply is over well before the loop asks again.
  execFileSync('espeak-ng', ['-m', '-w', wav, `${QUESTION} <break time="14000ms"/> .`]);
  [w, gemini, speech] = await Promise.all([
    startWidgetWorld({ browserArgs: ['--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${wav}`] }),
    startFakeGemini(),
    startFakeSpeech(),
  ]);
  const provider = async (body: object) => {
    const r = await w.server.request('POST', '/api/v1/providers', { headers: w.owner.headers, body });
    assert.is(r.status, 201, JSON.stringify(r.body));
    return r.body.id as string;
  };
  const google = await provider({ kind: 'gemini', name: 'Gemini', apiKey: gemini.apiKey, baseUrl: gemini.baseUrl });
  const voices = await provider({ kind: 'speech', name: 'Voices', apiKey: speech.apiKey, baseUrl: speech.baseUrl });
  bots.openai = await w.createBot({ voice: { enabled: true, mode: 'realtime' } });
  bots.gemini = await w.createBot({ brain: { connectionId: google, model: 'gemini-2.5-flash' }, voice: { enabled: true, mode: 'realtime' } });
  bots.cascade = await w.createBot({ voice: { enabled: true, mode: 'cascade' } });
  bots.hosted = await w.createBot({ voice: { enabled: true, mode: 'hosted_agent', hostedAgent: { connectionId: voices, voice: 'voice_rachel' } } });
});
test.after(async () => { await w?.close(); await gemini?.close(); await speech?.close(); });

/**
 * Starts voice on the page, lets the visitor ask, and waits for the reply to be heard, the bar to return to listening
 * and the agent's turn to arrive; returns when the reply's audio had ended, when the bar said listening, and when the
 * agent's turn arrived.
 */
async function oneTurn(page: Page, name: string): Promise<{ lastSound: number; listening: number; stored: number; words: string | null; timeline: string }> {
  await page.click('.cp .mic');
  await page.locator('.vb.listening').waitFor({ timeout: 10_000 });
  await page.locator('.m.user:has(.vk)', { hasText: QUESTION }).waitFor({ timeout: 20_000 });
  await page.locator('.m.assistant:has(.vk)', { hasText: REPLY }).waitFor({ timeout: 15_000 });
  await page.screenshot({ path: `${SHOTS}/turn-end-${name}-speaking.png` });
  // Heard, then back to listening and the turn stored (or the deadline: the fault kept "Speaking…" up to 14 s). The
  // bar says listening before the turn's message comes: the message follows the store's write.
  await page.waitForFunction(() => { const e = (window as any).__ear; return e.listening !== null && e.stored !== null; }, null, { timeout: 20_000, polling: 100 }).catch(() => {});
  const ear: { sound: number | null; quiet: number | null; listening: number | null; stored: number | null; words: string | null; log: string[] } = await page.evaluate(() => { const { sound, quiet, listening, stored, words, log } = (window as any).__ear; return { sound, quiet, listening, stored, words, log }; });
  const timeline = `; the page's timeline (ms): ${ear.log.join(' | ')}`;
  assert.ok(ear.sound !== null, `${name}: the reply was heard${timeline}`);
  // The audio had ended by the first quiet sample.
  const lastSound = ear.quiet ?? ear.sound!;
  const listening = ear.listening ?? Infinity;
  const stored = ear.stored ?? Infinity;
  await page.screenshot({ path: `${SHOTS}/turn-end-${name}-listening.png` });
  return { lastSound, listening, stored, words: ear.words, timeline };
}

async function check(mode: string): Promise<void> {
  const page = await w.openChat(bots[mode], { path: `/turn-end-${mode}`, options: { permissions: ['microphone'] }, before: (p) => p.addInitScript(EAR) });
  try {
    const { lastSound, listening, stored, words, timeline } = await oneTurn(page, mode);
    const after = (t: number) => (Number.isFinite(t) ? `${Math.round(t - lastSound)} ms` : 'not within 20 s');
    assert.ok(listening - lastSound <= BACK_MS, `${mode}: back to listening ${after(listening)} after the last audio${timeline}`);
    assert.ok(stored - lastSound <= BACK_MS, `${mode}: the agent's turn stored ${after(stored)} after the last audio${timeline}`);
    assert.is(words, 'Listening…', `${mode}: the bar's words when it went back to listening${timeline}`);
    // Stored as the agent's spoken turn.
    const conv = (await framesOf(page, 'conversation')).filter((f) => f.conversationId).pop();
    const got = await w.server.request('GET', `/api/v1/conversations/${conv.conversationId}`, { headers: w.owner.headers });
    assert.ok(got.body.messages.some((m: any) => m.role === 'assistant' && m.modality === 'voice' && m.text === REPLY), JSON.stringify(got.body.messages));
    await page.click('.vb .ve');
    await page.locator('.vb.ended').waitFor();
  } finally {
    // A failed case's voice session ends with its page, not in the next case.
    await page.context().close();
  }
}

test('realtime (OpenAI): back to listening within 1 s of the last audio, the turn stored then', async () => {
  w.fake.realtime.hear(QUESTION);
  w.fake.script({ text: REPLY });
  await check('openai');
});

test('realtime (Gemini Live): back to listening within 1 s of the last audio, the turn stored then', async () => {
  gemini.live.hear(QUESTION);
  gemini.script({ text: REPLY });
  await check('gemini');
});

test('cascade: back to listening within 1 s of the last audio, the turn stored then', async () => {
  w.fake.speech.hear(QUESTION);
  w.fake.script({ text: REPLY });
  await check('cascade');
});

test('hosted agent: back to listening within 1 s of the last audio, the turn stored then', async () => {
  speech.agents.hear(QUESTION);
  speech.script({ text: REPLY });
  await check('hosted');
});

test.run();
