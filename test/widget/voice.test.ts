/**
 * Voice end to end in headless Chromium: the widget on a host page, the real server, the fake OpenAI Realtime
 * endpoint. Chromium's fake microphone plays a WAV spoken by espeak-ng at test time (a question, then 3 s of
 * silence, looped), so the engine hears real speech through the widget's capture and resampling.
 * Screenshots of each state: /tmp/voice-*.png (beside the other widget tests' /tmp/widget-*.png).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../helpers/until.js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { Visitor } from '../chat/helpers.js';
import { startFakeOpenAI } from '../fakes/openai.js';
import { faceState } from './face-world.js';
import { frameTimeOf, framesOf, holdFrames, msUntilStopped, openLauncher, recordPlayback, recordShown, sentOf, shownOf, visitorTokenOf, startWidgetWorld, type WidgetWorld } from './world.js';

const QUESTION = 'What are your opening hours?';
// About 6 s of the fake's speech (60 ms a character): still playing when the question comes round again.
const LONG_REPLY = 'We are open from nine in the morning until five in the evening, Monday to Friday, and on Saturday mornings too.';
const shot = (page: Page, name: string) => page.screenshot({ path: `/tmp/voice-${name}.png` });

let w: WidgetWorld;
let botId: string;

test.before(async () => {
  const wav = join(mkdtempSync(join(tmpdir(), 'voice-')), 'question.wav');
  // SSML (-m): the pause after the question lets the engine's turn detection end the turn before the loop repeats.
  execFileSync('espeak-ng', ['-m', '-w', wav, `${QUESTION} <break time="3000ms"/> .`]);
  w = await startWidgetWorld({
    browserArgs: ['--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${wav}`,
      // A host name that is not localhost: pages there are not a secure context (no microphone, no worklets).
      '--host-resolver-rules=MAP insecure.test 127.0.0.1'],
  });
  botId = await w.createBot({
    welcome: { message: 'Hi! I am Ava. Ask me anything, by text or by voice.', suggestedPrompts: [] },
    appearance: { theme: { accent: '#4f46e5', mode: 'light' } },
    voice: { enabled: true, mode: 'realtime' },
  });
});
test.after(async () => { await w?.close(); });

const mic = { permissions: ['microphone'] };

/** A page with the widget open, recording ServiceChat's voice events in window.__voice. */
async function openChat(bot = botId, options: object = mic, host = ''): Promise<Page> {
  const page = await w.newPage(undefined, options);
  const url = w.page(`/v${Math.random().toString(36).slice(2)}`, w.embed(bot, {}, '<button id="talk" onclick="ServiceChat.startVoice({ mode: \'ptt\' })">Talk to us</button>'));
  await page.goto(host ? url.replace('127.0.0.1', host) : url);
  await page.evaluate(() => { (window as any).__voice = []; });
  await openLauncher(page);
  await page.evaluate(() => (window as any).ServiceChat.on('voice', (e: unknown) => (window as any).__voice.push(e)));
  return page;
}
/** Waits until the voice bar is in a state (`.listening`, `[data-playing="true"]`) and shows these words at that moment. */
const barSays = (page: Page, state: string, words: string) => page.locator(`.vb${state} .vs`, { hasText: new RegExp(`^${words}$`) }).waitFor({ timeout: 10_000 });
/** Microphone glyphs shown in the voice bar and the message box (the spoken messages' small marks aside). */
const micIcons = (page: Page) => page.locator('.vb svg:has(path[d^="M12 3a3 3"]), .cp svg:has(path[d^="M12 3a3 3"])').evaluateAll((els) => els.filter((e) => (e as SVGElement).getBoundingClientRect().width > 0).length);
const voiceEvents = (page: Page): Promise<any[]> => page.evaluate(() => (window as any).__voice);
const conversationId = async (page: Page) => (await framesOf(page, 'conversation')).at(-1).conversationId as string;

test('the microphone shows only when voice is set up, and voice.js loads only when the visitor starts voice', async () => {
  const plain = await w.createBot();
  const page = await openChat(plain);
  assert.is(await page.locator('.mic').count(), 0);
  await page.evaluate(() => (window as any).ServiceChat.startVoice());
  assert.equal(await voiceEvents(page), [{ state: 'ended', reason: 'disabled' }]);
  const page2 = await openChat();
  assert.is(await page2.locator('.cp .mic').getAttribute('aria-label'), 'Talk by voice');
  const loaded = () => page2.evaluate(() => performance.getEntriesByType('resource').some((e) => /\/voice(\.[0-9a-f]+)?\.js$/.test(e.name)));
  assert.is(await loaded(), false);
  assert.ok(w.sizes.voice.gzip <= 20 * 1024, `voice.js is ${w.sizes.voice.gzip} bytes gzipped`);
  await shot(page2, 'idle');
});

test('hands-free: the spoken question reaches the engine, the reply plays with live captions, is stored, and speaking over it stops it', async () => {
  w.fake.realtime.hear(QUESTION, 'Sorry, one more thing.');
  w.fake.script([{ text: LONG_REPLY }, { text: 'Of course, go ahead.' }]);
  // The reply is generated a little faster than it plays (as real engines do), so it is still coming when the
  // visitor speaks over it.
  w.fake.realtime.chunkIntervalMs = 80;
  const page = await openChat();
  await recordPlayback(page);
  // voice.js (voice.<content hash>.js as built) is held back until the connecting state has been seen.
  let letVoiceIn!: () => void;
  const voiceHeld = new Promise<void>((r) => { letVoiceIn = r; });
  let voiceAsked = 0;
  await page.route(/\/voice(\.[0-9a-f]+)?\.js$/, async (route) => { voiceAsked++; await voiceHeld; await route.continue(); });
  // How many "Thinking…" lines the window shows at once, at most, over the whole turn (the bar's and the status line's).
  await page.locator('[data-service-chat]').evaluate((host) => {
    const root = host.shadowRoot!;
    const w = window as any;
    w.__thinking = 0;
    new MutationObserver(() => {
      w.__thinking = Math.max(w.__thinking, [...root.querySelectorAll('.vs, .st')].filter((e) => e.textContent?.includes('Thinking…')).length);
    }).observe(root, { subtree: true, childList: true, characterData: true });
  });
  await page.click('.cp .mic');
  // voice.js is let in once the state has been seen (then it moves on to listening at once).
  await page.locator('.vb.connecting .vs', { hasText: 'Connecting…' }).waitFor();
  await shot(page, 'connecting');
  await until(() => voiceAsked > 0, { message: 'voice.js asked for (and held) while connecting' });
  letVoiceIn();
  // The bar's state and its words, seen together: the looped question is heard a moment later, and the bar moves on.
  await barSays(page, '.listening', 'Listening…');
  assert.is(await micIcons(page), 1, 'one microphone: the mute button');
  await shot(page, 'listening');

  // The visitor's turn, heard by the engine from the widget's audio, comes back as a voice message.
  const asked = page.locator('.m.user', { hasText: QUESTION });
  await asked.waitFor({ timeout: 15_000 });
  assert.is(await asked.locator('.vk').getAttribute('aria-label'), 'Spoken');
  // It stays above the reply, though its words came after the reply had begun.
  await page.locator('.m.assistant:has(.vk)').first().waitFor();
  assert.equal(await page.locator('.m:has(.vk)').evaluateAll((els) => els.map((e) => e.getAttribute('data-role'))), ['user', 'assistant']);
  const appended = w.fake.realtime.sent('input_audio_buffer.append').reduce((n, e) => n + (e.bytes ?? 0), 0);
  assert.ok(appended > 24_000 * 2, `the engine got ${appended} bytes of microphone audio`);
  assert.ok(await page.evaluate(() => (window as any).__binOut) > 50, 'the microphone went up as binary frames');

  // The reply plays (the widget's playback state) while its words stream in as the caption.
  await barSays(page, '[data-playing="true"]', 'Speaking…');
  // The face's mouth follows the level of the voice being played (lip sync).
  const mouth: number[] = [];
  for (let i = 0; i < 12; i++) { mouth.push((await faceState(page)).talk); await page.waitForTimeout(50); }
  assert.ok(Math.max(...mouth) > 0.1, `the mouth moves with the agent's voice (${mouth.map((m) => m.toFixed(2)).join(' ')})`);
  await page.locator('.m.assistant:has(.vk)', { hasText: /We are open from nine/ }).waitFor();
  assert.is(await micIcons(page), 1);
  assert.is(await page.evaluate(() => (window as any).__thinking), 1, 'Thinking… was shown once at a time');
  await shot(page, 'speaking');

  // The question comes round again in the loop: barge-in. The server interrupts; the widget stops and says how much it played.
  const [item] = await framesOf(page, 'voice_item');
  await page.waitForFunction(() => (window as any).__frames.some((f: any) => f.t === 'voice_interrupt'), null, { timeout: 15_000 });
  const stoppedMs = await msUntilStopped(page, (await frameTimeOf(page, 'voice_interrupt'))!);
  assert.ok(stoppedMs < 1000, `playback stopped ${Math.round(stoppedMs)} ms after voice_interrupt arrived`);
  w.fake.realtime.chunkIntervalMs = 5;
  const played = (await sentOf(page, 'voice_played')).find((f) => f.itemId === item.itemId);
  assert.ok(played, 'voice_played answers the interrupt');
  const fullMs = LONG_REPLY.length * 60;
  assert.ok(played.ms > 300 && played.ms < fullMs - 500, `played ${played.ms} of ${fullMs} ms`);

  // What is stored: the spoken question, and the reply cut to what was heard.
  const id = await conversationId(page);
  let stored: any[] = [];
  for (let i = 0; i < 100; i++) {
    stored = (await w.server.request('GET', `/api/v1/conversations/${id}`, { headers: w.owner.headers })).body.messages;
    if (stored.some((m: any) => m.role === 'assistant' && m.modality === 'voice')) break;
    await page.waitForTimeout(100);
  }
  const voiceTurns: Array<[string, string]> = stored.filter((m: any) => m.modality === 'voice').map((m: any) => [m.role, m.text]);
  assert.equal(voiceTurns[0], ['user', QUESTION]);
  const cut = voiceTurns.find(([role]) => role === 'assistant')![1];
  assert.ok(cut.endsWith('…') && LONG_REPLY.startsWith(cut.slice(0, -1)), `stored reply: ${cut}`);
  // The caption is replaced by the stored (cut) text.
  await page.locator('.m.assistant', { hasText: cut }).waitFor();

  // The words spoken over the reply are the visitor's next turn, and the agent answers it.
  await page.locator('.m.user:has(.vk)', { hasText: 'Sorry, one more thing.' }).waitFor({ timeout: 10_000 });
  await page.locator('.m.assistant:has(.vk)', { hasText: 'Of course, go ahead.' }).waitFor({ timeout: 10_000 });

  // Mute: nothing goes up, the bar says so (once the agent has finished speaking).
  await page.locator('.vb.listening[data-playing="false"]').waitFor({ timeout: 10_000 });
  await page.click('.vb .vm');
  await page.locator('.vb.muted').waitFor();
  const before = await page.evaluate(() => (window as any).__binOut);
  await page.waitForTimeout(300);
  assert.ok(await page.evaluate(() => (window as any).__binOut) - before <= 1, 'muted: no audio frames');
  assert.is(await page.locator('.vb .vm').getAttribute('aria-pressed'), 'true');
  await shot(page, 'muted');

  // End: the chat continues in text with the whole history.
  await page.click('.vb .ve');
  await page.locator('.vb.ended').waitFor();
  assert.is(await page.locator('.vb .vs').textContent(), 'Voice ended');
  await page.locator('.line', { hasText: 'Voice ended. You can keep chatting here.' }).waitFor();
  await shot(page, 'ended');
  assert.ok((await sentOf(page, 'voice_stop')).length === 1);
  w.fake.script({ text: 'Anything else I can help with?' });
  await page.fill('.cp textarea', 'Thanks!');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant', { hasText: 'Anything else I can help with?' }).waitFor();
  assert.ok(await asked.isVisible(), 'the spoken turns stay in the history');
  const states = (await voiceEvents(page)).map((e) => e.state);
  for (const s of ['connecting', 'listening', 'speaking', 'muted', 'ended']) assert.ok(states.includes(s), `on('voice') saw ${s}: ${states}`);
  assert.equal((await voiceEvents(page)).at(-1), { state: 'ended', reason: 'visitor' });
});

test('push-to-talk from the page API: audio only while the button is held, the reply plays, pressing again stops it', async () => {
  w.fake.realtime.hear(QUESTION);
  w.fake.script({ text: LONG_REPLY });
  const page = await openChat();
  await recordPlayback(page);
  // From a closed chat: startVoice opens it.
  await page.locator('button.l').click();
  await page.locator('.w.panel[hidden]').waitFor({ state: 'attached' });
  await page.click('#talk');
  await page.locator('.w.panel:not([hidden])').waitFor();
  const talk = page.locator('.vb .talk');
  await talk.waitFor();
  await page.locator('.vb.ptt').waitFor({ timeout: 10_000 });
  assert.is(await page.locator('.vb .vs').textContent(), 'Hold to talk');
  await page.waitForTimeout(300);
  assert.is(await page.evaluate(() => (window as any).__binOut ?? 0), 0, 'nothing is sent before the button is held');
  const box = (await talk.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.locator('.vb.listening .talk.on').waitFor();
  await shot(page, 'ptt-held');
  await page.waitForTimeout(1800);
  await page.mouse.up();
  assert.equal((await sentOf(page, 'voice_ptt')).map((f) => f.down), [true, false]);
  await page.locator('.vb[data-playing="true"]').waitFor({ timeout: 10_000 });
  // Space on the focused talk button is push-to-talk too, and talks over the agent.
  await talk.focus();
  await page.evaluate(() => window.addEventListener('keydown', (e) => { if (e.key === ' ') (window as any).__spaceAt ??= performance.now(); }, true));
  await page.keyboard.down(' ');
  const stoppedMs = await msUntilStopped(page, await page.evaluate(() => (window as any).__spaceAt));
  assert.ok(stoppedMs < 1000, `playback stopped ${Math.round(stoppedMs)} ms after the space key went down`);
  await page.keyboard.up(' ');
  assert.equal((await sentOf(page, 'voice_ptt')).map((f) => f.down), [true, false, true, false]);
  const [item] = await framesOf(page, 'voice_item');
  assert.ok((await sentOf(page, 'voice_played')).some((f) => f.itemId === item.itemId && f.ms < LONG_REPLY.length * 60));
  await page.evaluate(() => (window as any).ServiceChat.stopVoice());
  await page.locator('.vb.ended').waitFor();
});

test('with voice.pushToTalk only, the microphone button starts push-to-talk', async () => {
  const only = await w.createBot({ voice: { enabled: true, mode: 'realtime', pushToTalk: 'only' } });
  const page = await openChat(only);
  await page.click('.cp .mic');
  await page.locator('.vb.ptt .talk').waitFor({ timeout: 10_000 });
  assert.equal(await sentOf(page, 'voice_start'), [{ t: 'voice_start', mode: 'ptt' }]);
  assert.is((await framesOf(page, 'voice')).at(-1).mode, 'ptt');
  // Focus went to the talk button, so the keyboard can talk at once.
  assert.is(await page.evaluate(() => document.querySelector('[data-service-chat]')!.shadowRoot!.activeElement?.className), 'talk');
  await page.click('.vb .ve');
  await page.locator('.vb.ended').waitFor();
});

test('with voice.pushToTalk off, a page asking for push-to-talk is refused instead of opening an always-on microphone', async () => {
  const off = await w.createBot({ voice: { enabled: true, mode: 'realtime', pushToTalk: 'off' } });
  const page = await openChat(off);
  await page.evaluate(() => (window as any).ServiceChat.startVoice({ mode: 'ptt' }));
  assert.equal((await voiceEvents(page)).at(-1), { state: 'ended', reason: 'ptt_off' });
  assert.equal(await sentOf(page, 'voice_start'), []);
  assert.is(await page.locator('.vb').count(), 0);
});

test('a team member taking over ends voice with a clear line; the text history is intact', async () => {
  const page = await openChat();
  await page.click('.cp .mic');
  const spoken = page.locator('.m.user .vk').first();
  await spoken.waitFor({ timeout: 15_000 });
  const id = await conversationId(page);
  const r = await w.server.request('POST', `/api/v1/conversations/${id}/takeover`, { headers: w.owner.headers });
  assert.is(r.status, 200);
  await page.locator('.line', { hasText: 'A team member has joined. Voice is off; please continue in the chat.' }).waitFor();
  await page.locator('.vb.ended').waitFor();
  assert.equal((await voiceEvents(page)).at(-1), { state: 'ended', reason: 'team_takeover' });
  assert.ok(await spoken.isVisible(), 'the spoken turn stays');
  await shot(page, 'team-takeover');
  // While the team has the conversation the microphone is not offered (voice_start would be refused).
  await page.locator('.vb').waitFor({ state: 'detached' });
  assert.is(await page.locator('.cp .mic').count(), 0, 'no microphone after a takeover');
});

test('the engine failing ends voice with a line that says what to do', async () => {
  const page = await openChat();
  await page.click('.cp .mic');
  await page.locator('.vb.listening').waitFor({ timeout: 10_000 });
  w.fake.realtime.closeAll(1011);
  await page.locator('.line.error', { hasText: 'problem with the voice service' }).waitFor();
  assert.equal((await voiceEvents(page)).at(-1), { state: 'ended', reason: 'engine_error' });
  // Microphone frames that were on their way when the session ended are refused quietly, not shown as errors.
  await page.waitForTimeout(500);
  assert.is(await page.locator('.line.error').count(), 1);
  await shot(page, 'engine-error');
});

test('an engine that cannot be reached: the visitor reads a short line in their language, never the address or the error', async () => {
  // A second OpenAI connection whose server is gone: every request to it is refused.
  const gone = await startFakeOpenAI();
  const conn = await w.server.request('POST', '/api/v1/providers', { headers: w.owner.headers, body: { kind: 'openai', name: 'Gone', apiKey: gone.apiKey, baseUrl: gone.baseUrl } });
  assert.is(conn.status, 201, JSON.stringify(conn.body));
  await gone.close();
  const down = await w.createBot({
    identity: { agentName: 'Ava', role: 'Assistentin', languagePolicy: 'fixed', language: 'de' },
    voice: { enabled: true, mode: 'realtime', realtime: { connectionId: conn.body.id } },
  });
  const page = await openChat(down);
  await page.click('.cp .mic');
  const line = page.locator('.line.error', { hasText: 'Sprache ist gerade nicht verfügbar. Bitte schreiben Sie hier im Chat weiter.' });
  await line.waitFor();
  assert.equal((await voiceEvents(page)).at(-1), { state: 'ended', reason: 'unavailable' });
  const shown = await page.locator('[data-service-chat]').evaluate((el) => el.shadowRoot!.textContent);
  assert.ok(!/127\.0\.0\.1|refused|ECONN|apiKey/.test(shown ?? ''), shown ?? '');
  await shot(page, 'engine-unreachable');
  // The details are the operator's: the bot's health.
  const health = await w.server.request('GET', `/api/v1/bots/${down}/health`, { headers: w.owner.headers });
  assert.match(health.body.voice.lastFailure.message, /ECONNREFUSED|connection refused/);
});

test('a voice cap refuses voice_start with the cap text', async () => {
  const capped = await w.createBot({ voice: { enabled: true, mode: 'realtime' }, security: { caps: { concurrentVoiceSessions: 0 } } });
  const page = await openChat(capped);
  await page.click('.cp .mic');
  await page.locator('.line.error', { hasText: 'a usage limit was reached' }).waitFor();
  assert.equal((await voiceEvents(page)).at(-1), { state: 'ended', reason: 'rate_limited' });
  await shot(page, 'rate-limited');
});

test('a visitor already talking in two other tabs, or an address already in four voice conversations, is told so in their language', async () => {
  const german = await w.createBot({ identity: { agentName: 'Ava', role: 'Assistentin', languagePolicy: 'fixed', language: 'de' }, voice: { enabled: true, mode: 'realtime' } });
  const page = await openChat(german);
  const token = await visitorTokenOf(page, german);
  const socket = (q: Record<string, string> = {}) => Visitor.open(`${w.server.url.replace('http', 'ws')}/widget/v1/chat?${new URLSearchParams({ botId: german, ...q })}`);
  const talk = async (v: Visitor) => { v.send({ t: 'voice_start' }); assert.is((await v.next('voice', (f) => f.state === 'listening' || f.state === 'ended', 10_000)).state, 'listening'); };
  const stop = async (v: Visitor) => { v.send({ t: 'voice_stop' }); await v.next('voice', (f) => f.state === 'ended', 10_000); await v.close(); };
  // The same visitor (their token) talking in two other tabs: VOICE_SESSIONS_PER_VISITOR is 2.
  const tabs = [await socket({ visitorToken: token }), await socket({ visitorToken: token })];
  for (const t of tabs) await talk(t);
  await page.click('.cp .mic');
  await page.locator('.line.error', { hasText: 'Sprache ist bereits in einem anderen Tab oder Fenster aktiv.' }).waitFor();
  assert.equal((await voiceEvents(page)).at(-1), { state: 'ended', reason: 'visitor_limit' });
  assert.is(await page.locator('.line.error').count(), 1);
  await shot(page, 'visitor-limit');
  // Those tabs end; four other visitors from the same address (127.0.0.1 here) talk: VOICE_SESSIONS_PER_ADDRESS is 4.
  for (const t of tabs) await stop(t);
  const others = [await socket(), await socket(), await socket(), await socket()];
  for (const o of others) await talk(o);
  await page.locator('.cp .mic').click();
  await page.locator('.line.error', { hasText: 'Aus Ihrem Netzwerk laufen gerade zu viele Sprachgespräche.' }).waitFor();
  assert.equal((await voiceEvents(page)).at(-1), { state: 'ended', reason: 'address_limit' });
  await shot(page, 'address-limit');
  for (const o of others) await stop(o);
  // With a seat free again, the same button starts voice.
  await page.locator('.cp .mic').click();
  await page.locator('.vb.listening').waitFor({ timeout: 10_000 });
  await page.click('.vb .ve');
});

test('a refused microphone says how to allow it, and nothing starts on the server', async () => {
  const page = await openChat(botId, {});
  await page.click('.cp .mic');
  const line = page.locator('.line.error', { hasText: 'Microphone access is blocked' });
  await line.waitFor();
  assert.match(await line.textContent() ?? '', /allow the microphone for this site/);
  assert.equal((await voiceEvents(page)).at(-1), { state: 'ended', reason: 'permission_denied' });
  assert.equal(await sentOf(page, 'voice_start'), []);
  await shot(page, 'permission-denied');
  // The microphone button is back, so the visitor can try again after allowing it.
  await page.locator('.cp .mic').waitFor();
});

test('on a page that is not a secure context there is no microphone button, and a page starting voice is told the browser cannot do it', async () => {
  const page = await openChat(botId, mic, 'insecure.test');
  assert.is(await page.evaluate(() => window.isSecureContext), false);
  assert.is(await page.locator('.cp .mic').count(), 0, 'no button that can only fail');
  await page.evaluate(() => (window as any).ServiceChat.startVoice());
  await page.locator('.line.error', { hasText: 'Voice does not work in this browser' }).waitFor();
  assert.equal((await voiceEvents(page)).at(-1), { state: 'ended', reason: 'unsupported' });
  await shot(page, 'unsupported');
});

test('in the floating layout without a composer the microphone is a labelled button, and the caption says when voice ended', async () => {
  const floating = await w.createBot({
    voice: { enabled: true, mode: 'realtime' }, welcome: { message: 'Hi! Tap to talk to me.', suggestedPrompts: [] },
    appearance: { layout: 'floating', floating: { composer: false }, theme: { accent: '#0f766e', mode: 'dark' } },
  });
  const page = await w.newPage(undefined, mic);
  await page.goto(w.page('/floating-voice', w.embed(floating)));
  await page.locator('button.l').click();
  const solo = page.locator('.fl .mic.solo');
  await solo.waitFor();
  assert.is(await solo.textContent(), 'Talk by voice');
  // Everything the caption says, as it changes.
  await recordShown(page, '.cap');
  // A slow network: the agent's answer to the spoken question (from its voice_item on) reaches the widget only after
  // the visitor has pressed end. It was never heard, so it is neither shown nor stored.
  const slow = await holdFrames(page, '"t":"voice_item"');
  await solo.click();
  await page.locator('.fl .vb.listening').waitFor({ timeout: 10_000 });
  await shot(page, 'floating-listening');
  await until(slow.holding, { timeout: 15_000, message: 'the agent answering the spoken question' });
  await page.click('.vb .ve');
  const ended = page.locator('.cap', { hasText: 'Voice ended. You can keep chatting here.' });
  await ended.waitFor();
  await slow.release();
  await page.waitForFunction(() => (window as any).__frames.some((f: any) => f.t === 'voice' && f.state === 'ended'), null, { timeout: 10_000 });
  const [item] = await framesOf(page, 'voice_item');
  assert.ok((await framesOf(page, 'delta_reset')).some((f) => f.messageId === item.messageId), 'the server withdrew the unheard reply');
  await ended.waitFor();
  const captions = await shownOf(page, '.cap');
  assert.not.ok(captions.some((c) => c.includes('You said')), `the unheard reply was never shown: ${JSON.stringify(captions)}`);
  const stored = (await w.server.request('GET', `/api/v1/conversations/${await conversationId(page)}`, { headers: w.owner.headers })).body.messages;
  assert.not.ok(stored.some((m: any) => m.role === 'assistant' && m.modality === 'voice'), 'nothing of it stored');
  await solo.waitFor();
  await shot(page, 'floating-ended');
});

test('under prefers-reduced-motion the level meter is replaced by the static state light', async () => {
  const page = await openChat(botId, { ...mic, reducedMotion: 'reduce' });
  await page.click('.cp .mic');
  await page.locator('.vb.listening').waitFor({ timeout: 10_000 });
  assert.is(await page.locator('.vb .lv').evaluate((el) => getComputedStyle(el).display), 'none');
  assert.ok(await page.locator('.vb .vi').isVisible());
  await shot(page, 'reduced-motion');
  await page.click('.vb .ve');
  await page.locator('.vb.ended').waitFor();
});

test.run();
