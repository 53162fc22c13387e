/**
 * vision.webcam continuous during a Gemini Live voice session: frames are the engine's live view (sent as video
 * realtime input), not attached to messages.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { RATES, seen, speak, startVoice, startVoiceWorld, until } from '../voice/world.js';

test('continuous: during a Gemini Live session each camera frame reaches the engine as live video', async () => {
  const w = await startVoiceWorld({ kind: 'gemini', config: { vision: { webcam: { enabled: true, mode: 'continuous', shareWithHumanAgents: true } } } });
  try {
    const live = (w.fake as unknown as { live: { events: Array<{ kind: string; keys?: string[] }> } }).live;
    const cfg = await (await fetch(`${w.server.url}/widget/v1/bots/${w.botId}/config`)).json() as any;
    assert.is(cfg.webcam.liveVideo, true, 'the widget is told to stream a live view during voice');
    const v = await w.visitor();
    await startVoice(v);
    v.send({ t: 'camera', state: 'on' });
    const data = (await sharp({ create: { width: 320, height: 240, channels: 3, background: '#cc3300' } }).jpeg().toBuffer()).toString('base64');
    v.send({ t: 'camera_frame', data });
    await until(() => live.events.some((e) => e.kind === 'other' && e.keys?.includes('video')), { timeout: 5000, message: 'a video input at the engine' });
    const ok = await seen(v, 'camera_frame_ok');
    await v.close();
    // shareWithHumanAgents: the team finds the live view in the transcript's pictures (on no message or tool call).
    const conv = v.frames.find((f: any) => f.t === 'conversation');
    const t = await w.server.request('GET', `/api/v1/conversations/${conv.conversationId}`, { headers: w.owner.headers });
    const pic = t.body.attachments.find((a: any) => a.id === ok.frameId);
    assert.ok(pic, 'the live-view frame is listed');
    assert.is(pic.source, 'camera');
    assert.is(pic.messageId, null);
    assert.is(pic.toolCallId, null);
  } finally {
    await w.close();
  }
});

test('on_demand in a voice session: look_at_camera takes a picture and the engine sees it', async () => {
  const w = await startVoiceWorld({ kind: 'gemini', config: { vision: { webcam: { enabled: true, mode: 'on_demand' } } } });
  try {
    const live = (w.fake as unknown as { live: { hear(...t: string[]): void; events: Array<{ kind: string; keys?: string[]; functionResponses?: any[] }> } }).live;
    live.hear('What am I holding?');
    w.fake.script([{ toolCalls: [{ name: 'look_at_camera', arguments: {} }] }, { text: 'A red card.' }]);
    const v = await w.visitor();
    await startVoice(v);
    v.send({ t: 'camera', state: 'on' });
    speak(v, RATES.gemini.input);
    const req = await seen(v, 'camera_request');
    const data = (await sharp({ create: { width: 320, height: 240, channels: 3, background: '#cc0000' } }).jpeg().toBuffer()).toString('base64');
    v.send({ t: 'camera_frame', data, requestId: req.requestId });
    await until(() => live.events.some((e) => e.kind === 'toolResponse'), { timeout: 5000, message: 'the tool result at the engine' });
    assert.ok(live.events.some((e) => e.kind === 'other' && e.keys?.includes('video')), 'the picture reached the engine');
    await v.close();
  } finally {
    await w.close();
  }
});

test.run();
