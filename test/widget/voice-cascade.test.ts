/**
 * Cascade voice end to end in headless Chromium: the widget on a host page captures espeak-ng speech from Chromium's
 * fake microphone and resamples it to 16 kHz; the server's Silero VAD finds the turn, the fake OpenAI server
 * transcribes it as it is spoken, answers through the brain and speaks the answer as streamed PCM, which the widget plays.
 * Screenshots: /tmp/voice-cascade-*.png.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { frameTimeOf, framesOf, micFramesOf, msUntilStopped, recordPlayback, sentOf, startWidgetWorld, type WidgetWorld } from './world.js';

const QUESTION = 'Do you deliver on Sundays?';
const REPLY = 'Yes, we deliver on Sundays. Orders placed before ten in the morning arrive the same afternoon, anywhere in the city.';
const shot = (page: Page, name: string) => page.screenshot({ path: `/tmp/voice-cascade-${name}.png` });

let w: WidgetWorld;
let botId: string;

test.before(async () => {
  const wav = join(mkdtempSync(join(tmpdir(), 'voice-cascade-')), 'question.wav');
  // The pause after the question ends the turn (0.8 s of quiet) well before the loop says it again.
  execFileSync('espeak-ng', ['-m', '-w', wav, `${QUESTION} <break time="4000ms"/> .`]);
  w = await startWidgetWorld({ browserArgs: ['--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${wav}`] });
  botId = await w.createBot({
    welcome: { message: 'Hi! I am Ava. Ask me anything, by text or by voice.', suggestedPrompts: [] },
    voice: { enabled: true, mode: 'cascade' },
  });
});
test.after(async () => { await w?.close(); });

test('hands-free cascade: the spoken question is heard on the server, answered aloud with captions, stored, and speaking over it stops it', async () => {
  w.fake.speech.hear(QUESTION, 'Sorry, one more thing.');
  w.fake.script([{ text: REPLY }, { text: 'Of course, go ahead.' }]);
  // Speech is made a little faster than it plays, so the reply is still coming when the question comes round again.
  w.fake.speech.chunkIntervalMs = 80;
  w.fake.speech.msPerChar = 60;
  const page = await w.openChat(botId, { options: { permissions: ['microphone'] } });
  await recordPlayback(page);
  await page.click('.cp .mic');
  await page.locator('.vb.listening').waitFor({ timeout: 10_000 });
  const started = (await framesOf(page, 'voice')).find((f) => f.state === 'listening');
  assert.equal([started.inputRate, started.outputRate], [16_000, 24_000]);

  const asked = page.locator('.m.user', { hasText: QUESTION });
  await asked.waitFor({ timeout: 20_000 });
  assert.is(await asked.locator('.vk').getAttribute('aria-label'), 'Spoken');
  // The turn reached speech to text as it was spoken (a Realtime transcription session for the default
  // gpt-4o-mini-transcribe), from the widget's own 16 kHz capture, resampled to the 24 kHz OpenAI takes.
  const session = w.fake.realtime.transcriptions.find((s) => s.committedAt !== null)!;
  assert.equal(session.session.audio.input.format, { type: 'audio/pcm', rate: 24_000 });
  // As much of the question as the widget captured: the fake microphone plays the file from when the device opens, so
  // the capture may begin part-way through the question (on a busy machine, in the pause after it: then the question
  // comes whole on the loop's next round). The first run of loud frames (gaps under the 800 ms that end a turn) is
  // the speech of the first turn; speech to text gets all of it, with the turn's padding and tail (a start of the
  // question too short to be a turn is dropped uncommitted, and the first committed turn is the next round's whole question).
  const mic = await micFramesOf(page);
  const inputRate = started.inputRate as number;
  let speechMs = 0, quietMs = 0, inSpeech = false;
  for (const f of mic) {
    const ms = (f.samples / inputRate) * 1000;
    if (f.rms > 0.01) { inSpeech = true; speechMs += quietMs + ms; quietMs = 0; }
    else if (inSpeech && (quietMs += ms) >= 800) break;
  }
  const sttMs = (session.bytes / 2 / 24_000) * 1000;
  assert.ok(sttMs >= 300, `${Math.round(sttMs)} ms of audio reached speech to text: the question, not a click`);
  assert.ok(sttMs >= speechMs, `${Math.round(sttMs)} ms of audio reached speech to text of the ${Math.round(speechMs)} ms the widget captured`);

  await page.locator('.vb[data-playing="true"]').waitFor({ timeout: 15_000 });
  await page.locator('.m.assistant:has(.vk)', { hasText: /Yes, we deliver/ }).waitFor();
  await shot(page, 'speaking');

  // The question comes round again in the loop: barge-in. The widget stops playback and says how much it played.
  const [item] = await framesOf(page, 'voice_item');
  await page.waitForFunction(() => (window as any).__frames.some((f: any) => f.t === 'voice_interrupt'), null, { timeout: 20_000 });
  const stoppedMs = await msUntilStopped(page, (await frameTimeOf(page, 'voice_interrupt'))!);
  assert.ok(stoppedMs < 1000, `playback stopped ${Math.round(stoppedMs)} ms after voice_interrupt arrived`);
  const played = (await sentOf(page, 'voice_played')).find((f) => f.itemId === item.itemId);
  assert.ok(played && played.ms > 0, JSON.stringify(played));
  const stored = page.locator(`.m.assistant[data-id="${item.messageId}"]`);
  // The stored reply replaces the caption: cut where playback stopped (the widget is in a shadow root: locators reach it).
  await page.locator(`.m.assistant[data-id="${item.messageId}"]`, { hasText: '…' }).waitFor({ timeout: 15_000 });
  assert.ok(!(await stored.textContent())!.includes('anywhere in the city'), 'the caption holds only what was heard');
  await shot(page, 'interrupted');
  await page.click('.vb .ve');
  await page.locator('.vb.ended').waitFor();
});

test.run();
