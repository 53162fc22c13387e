/**
 * Camera frames in team transcripts (vision.webcam.shareWithHumanAgents): look_at_camera's picture sits on its tool
 * call, and every picture is listed in the transcript's attachments, only while the bot shares them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { FakeClock } from '../../src/kernel/clock.js';
import { republish, startTeamWorld, type TeamWorld } from '../team/helpers.js';

const clock = new FakeClock(Date.UTC(2026, 5, 1, 9, 0));
let w: TeamWorld;

const webcam = (patch: Record<string, unknown>) => ({ vision: { webcam: { enabled: true, mode: 'on_demand', ...patch } } });
const b64 = async (colour: string) => (await sharp({ create: { width: 320, height: 240, channels: 3, background: colour } }).jpeg({ quality: 70 }).toBuffer()).toString('base64');

/** A visitor with the camera on asks; the agent looks; returns the stored frame's id and the transcript. */
async function agentLooks(text: string) {
  const v = await w.widget();
  await v.frame('ready');
  v.send({ t: 'camera', state: 'on' });
  w.fake.script([{ toolCalls: [{ name: 'look_at_camera', arguments: {} }] }, { text: 'I see it.' }]);
  v.send({ t: 'message', text });
  const req = await v.frame('camera_request');
  v.send({ t: 'camera_frame', data: await b64('#00aa00'), requestId: req.requestId });
  const ok = await v.frame('camera_frame_ok');
  const reply = await v.frame('message', (f) => f.message.role === 'assistant');
  await v.close();
  const t = await w.server.request('GET', `/api/v1/conversations/${reply.conversationId}`, { headers: w.owner.headers });
  assert.is(t.status, 200);
  return { frameId: ok.frameId as string, transcript: t.body };
}

test.before(async () => { w = await startTeamWorld(webcam({ shareWithHumanAgents: true }), { clock }); });
test.after(async () => { await w.stop(); });

test('shared: the picture look_at_camera took shows on its tool call and in the transcript, and the team can open it', async () => {
  const { frameId, transcript } = await agentLooks('can you see my plant?');
  const call = transcript.toolCalls.find((c: any) => c.name === 'look_at_camera');
  assert.ok(call, 'the tool call is in the transcript');
  assert.equal(call.attachments.map((a: any) => a.id), [frameId]);
  assert.equal(call.attachments[0], { id: frameId, mimeType: 'image/jpeg', width: 320, height: 240 });
  const listed = transcript.attachments.find((a: any) => a.id === frameId);
  assert.equal(listed, { id: frameId, mimeType: 'image/jpeg', width: 320, height: 240, createdAt: listed.createdAt, source: 'camera', messageId: null, toolCallId: call.id });
  const img = await w.server.fetch(`/api/v1/attachments/${frameId}`, { headers: w.owner.headers });
  assert.is(img.status, 200);
  assert.is(img.headers.get('content-type'), 'image/jpeg');
  const md = await w.server.fetch(`/api/v1/conversations/${transcript.id}/export?format=md`, { headers: w.owner.headers });
  assert.ok((await md.text()).includes(`/api/v1/attachments/${frameId}`), 'the Markdown export links the picture');
});

test('not shared: the tool call is there but the picture is not, and opening it is refused', async () => {
  await republish(w, webcam({ shareWithHumanAgents: false }));
  const { frameId, transcript } = await agentLooks('and now?');
  const call = transcript.toolCalls.find((c: any) => c.name === 'look_at_camera');
  assert.ok(call && !call.isError, 'the call itself is listed');
  assert.equal(call.attachments, []);
  assert.not.ok(transcript.attachments.some((a: any) => a.id === frameId), 'not in the transcript\'s pictures');
  assert.not.ok(JSON.stringify(transcript).includes(frameId), 'the id appears nowhere');
  const img = await w.server.fetch(`/api/v1/attachments/${frameId}`, { headers: w.owner.headers });
  assert.is(img.status, 404);
});

test.run();
