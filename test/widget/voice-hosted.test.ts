/**
 * A hosted voice agent end to end in headless Chromium: the widget on a host page captures espeak-ng speech from
 * Chromium's fake microphone and sends it through the server to the provider's conversation socket (the fake
 * hosted agent, which ends the turn by energy); the agent greets, hears the question, calls a tool that runs on
 * this server, answers aloud with captions; both turns are stored as voice. Screenshots: /tmp/shots/voice/.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { pcmToWav } from '../../src/providers/wav.js';
import { startFakeSpeech, type FakeSpeech } from '../fakes/speech.js';
import { framesOf, startWidgetWorld, type WidgetWorld } from './world.js';

const QUESTION = 'I am Ada, please note my e-mail, ada@example.com';
const SHOTS = '/tmp/shots/voice';
const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/hosted-${name}.png` });

/** espeak-ng's 16-bit mono WAV (44-byte header) with `seconds` of silence before the speech. */
function withQuietStart(wav: Buffer, seconds: number): Buffer {
  const rate = wav.readUInt32LE(24);
  return pcmToWav(Buffer.concat([Buffer.alloc(Math.round(seconds * rate) * 2), wav.subarray(44)]), rate);
}

let w: WidgetWorld;
let speech: FakeSpeech;
let botId: string;

test.before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const wav = join(mkdtempSync(join(tmpdir(), 'voice-hosted-')), 'question.wav');
  // Quiet while the agent greets (the visitor would otherwise speak over it), then the question, then a long pause:
  // the agent's turn detection ends the turn, and the loop does not speak again before the reply is done.
  // (espeak-ng drops a leading break, so the quiet start is written here.)
  execFileSync('espeak-ng', ['-m', '-w', wav, `${QUESTION} <break time="9000ms"/> .`]);
  writeFileSync(wav, withQuietStart(readFileSync(wav), 4.5));
  [w, speech] = await Promise.all([
    startWidgetWorld({ browserArgs: ['--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${wav}`] }),
    startFakeSpeech(),
  ]);
  const voices = await w.server.request('POST', '/api/v1/providers', { headers: w.owner.headers, body: { kind: 'speech', name: 'Voices', apiKey: speech.apiKey, baseUrl: speech.baseUrl } });
  assert.is(voices.status, 201, JSON.stringify(voices.body));
  botId = await w.createBot({
    welcome: { message: 'Hi, I am Ava from the mug shop. How can I help?', suggestedPrompts: [], speakGreeting: true },
    behavior: { leadCapture: { enabled: true } },
    voice: { enabled: true, mode: 'hosted_agent', hostedAgent: { connectionId: voices.body.id, voice: 'voice_rachel' } },
  });
});
test.after(async () => { await w?.close(); await speech?.close(); });

test('hosted agent: greeting aloud, the spoken question reaches the provider through the server, a tool runs here, the answer is heard and stored', async () => {
  speech.agents.hear(QUESTION);
  speech.script([
    { toolCalls: [{ id: 'call_lead', name: 'capture_lead', arguments: { name: 'Ada', email: 'ada@example.com' } }] },
    { text: 'Thanks Ada, I have noted your e-mail. Someone from the shop will write to you today.' },
  ]);
  const page = await w.openChat(botId, { path: '/hosted', options: { permissions: ['microphone'] } });
  await page.click('.cp .mic');
  await page.locator('.vb.listening, .vb.speaking').first().waitFor({ timeout: 10_000 });
  const started = (await framesOf(page, 'voice')).find((f) => f.state === 'listening' || f.state === 'speaking');
  assert.equal([started.inputRate, started.outputRate], [16_000, 24_000]);

  // The agent greets aloud; the caption becomes the stored greeting.
  await page.locator('.m.assistant:has(.vk)', { hasText: 'Hi, I am Ava from the mug shop' }).waitFor({ timeout: 15_000 });
  await shot(page, 'greeting');

  // The question, heard by the provider from the widget's own capture, comes back as the visitor's spoken turn.
  await page.locator('.m.user:has(.vk)', { hasText: QUESTION }).waitFor({ timeout: 30_000 });
  const conversation = speech.agents.conversations[0];
  const audio = conversation.received.filter((r) => r.type === 'user_audio_chunk').reduce((n, r) => n + (r.bytes ?? 0), 0);
  assert.ok(audio > 16_000 * 2, `${audio} bytes of 16 kHz audio reached the provider`);

  // The tool ran on this server (the lead is stored) and its result went back to the agent, which answered.
  await page.locator('.vb[data-playing="true"]').waitFor({ timeout: 15_000 });
  await page.locator('.m.assistant:has(.vk)', { hasText: 'Someone from the shop will write to you today' }).waitFor({ timeout: 20_000 });
  assert.equal(conversation.toolResults.map((r) => r.tool_call_id), ['call_lead']);
  // The "thinking" line of the tool round is gone once the answer is spoken.
  await page.locator('.st, .status').filter({ hasText: 'Thinking' }).waitFor({ state: 'detached', timeout: 3000 }).catch(() => {});
  assert.is(await page.getByText('Thinking…').count(), 0, 'no stale thinking line');
  const leads = await w.server.request('GET', '/api/v1/leads', { headers: w.owner.headers });
  assert.ok(leads.body.items.some((l: any) => l.fields?.email === 'ada@example.com'), JSON.stringify(leads.body));
  await shot(page, 'answered');

  await page.click('.vb .ve');
  await page.locator('.vb.ended').waitFor();
  const conv = (await framesOf(page, 'conversation')).filter((f) => f.conversationId).pop();
  const stored = await w.server.request('GET', `/api/v1/conversations/${conv.conversationId}`, { headers: w.owner.headers });
  const voiceTurns = stored.body.messages.filter((m: any) => m.modality === 'voice').map((m: any) => m.role);
  assert.equal(voiceTurns, ['assistant', 'user', 'assistant']);
  for (let i = 0; i < 50 && conversation.open; i++) await page.waitForTimeout(100);
  assert.ok(!conversation.open, 'the provider socket is closed when voice ends');
});

test.run();
