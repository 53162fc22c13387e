/**
 * The visitor's camera on the server (vision.webcam): what the widget's config offers, consent before frames,
 * per_turn frames going with the message, look_at_camera reaching the model as an image part, limits, team
 * visibility, and frames deleted after the conversation with the injectable clock.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { FakeClock } from '../../src/kernel/clock.js';
import { FRAMES_KEPT_AFTER_END_MS, runCameraFrameSweep } from '../../src/retention/camera-frames.js';
import { republish, startTeamWorld, type FrameClient, type TeamWorld } from '../team/helpers.js';

const clock = new FakeClock(Date.UTC(2026, 5, 1, 9, 0));
let w: TeamWorld;

const webcam = (patch: Record<string, unknown>) => ({ vision: { webcam: { enabled: true, ...patch } } });
const jpeg = (width: number, colour = '#2266ff') => sharp({ create: { width, height: Math.round(width * 0.75), channels: 3, background: colour } }).jpeg({ quality: 70 }).toBuffer();
const b64 = async (width: number, colour?: string) => (await jpeg(width, colour)).toString('base64');
const ws = () => w.owner.workspaceId;
const frames = async () => (await w.server.app.records.attachments.find({ workspaceId: ws() })).filter((a) => a.camera);
/** Image parts of the last chat completion request the fake model got. */
const imagesSeen = () => {
  const body = w.fake.lastBody('/chat/completions');
  return body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((p: any) => p.type === 'image_url');
};

async function visitorWithCamera(): Promise<FrameClient> {
  const v = await w.widget();
  await v.frame('ready');
  v.send({ t: 'camera', state: 'on' });
  return v;
}

test.before(async () => {
  w = await startTeamWorld({ identity: { agentName: 'Mira' }, ...webcam({ mode: 'per_turn', privacyUrl: 'https://example.com/privacy' }) }, { clock });
});
test.after(async () => { await w.stop(); });

test('the widget config offers the camera with the consent text naming the agent and the privacy link', async () => {
  const r = await w.server.request('GET', `/widget/v1/bots/${w.botId}/config`);
  assert.is(r.status, 200);
  assert.equal(r.body.webcam, {
    enabled: true, mode: 'per_turn', maxFps: 0.5, maxWidth: 640,
    consentText: 'Turn on your camera so Mira can see what you show it. Video is not recorded.', privacyUrl: 'https://example.com/privacy', liveVideo: false,
  });
});

test('a frame sent before the visitor turned the camera on is refused and nothing is stored', async () => {
  const v = await w.widget();
  await v.frame('ready');
  v.send({ t: 'camera_frame', data: await b64(320) });
  const err = await v.frame('error');
  assert.is(err.code, 'forbidden');
  assert.match(err.message, /after the visitor turned the camera on/);
  assert.not.ok(v.frames.some((f) => f.t === 'conversation'), 'no conversation was opened for it');
  assert.is((await frames()).length, 0);
  await v.close();
});

test('per_turn: the frame sent before a message goes with it to the model as an image part', async () => {
  const v = await visitorWithCamera();
  v.send({ t: 'camera_frame', data: await b64(320) });
  const ok = await v.frame('camera_frame_ok');
  v.send({ t: 'message', text: 'what colour is this mug?' });
  const mine = await v.frame('message', (f) => f.message.role === 'user');
  await v.frame('message', (f) => f.message.role === 'assistant');
  assert.equal(mine.message.attachments, [], 'an unshared frame is not in the message the widget and team get');
  assert.is(imagesSeen().length, 1);
  assert.match(imagesSeen()[0].image_url.url, /^data:image\/jpeg;base64,/);
  const [stored] = await frames();
  assert.is(stored._id, ok.frameId);
  assert.equal(stored.camera, { keep: false, shared: false });
  assert.is(stored.conversationId, mine.conversationId);

  // per_turn is held to one frame every two seconds.
  v.send({ t: 'camera_frame', data: await b64(320) });
  const fast = await v.frame('error');
  assert.is(fast.code, 'rate_limited');
  assert.match(fast.message, /0\.5 a second in per_turn/);
  await clock.advance(2000);
  v.send({ t: 'camera_frame', data: await b64(320) });
  await v.frame('camera_frame_ok');
  await v.close();
});

test('frames over the limits or not pictures get clear errors and are not stored', async () => {
  const v = await visitorWithCamera();
  const before = (await frames()).length;
  v.send({ t: 'camera_frame', data: await b64(800) });
  assert.match((await v.frame('error')).message, /800 pixels wide; at most 640 .*vision\.webcam\.maxWidth/);
  v.send({ t: 'camera_frame', data: Buffer.from('not a picture at all').toString('base64') });
  assert.match((await v.frame('error')).message, /base64 JPEG or WebP/);
  v.send({ t: 'camera_frame', data: 'A'.repeat(120_000) });
  assert.match((await v.frame('error')).message, /camera frame is \d+ bytes; at most 98304/);
  v.send({ t: 'camera', state: 'denied', message: 'NotAllowedError' });
  v.send({ t: 'camera_frame', data: await b64(320) });
  assert.is((await v.frame('error')).code, 'forbidden', 'a denied camera sends nothing');
  assert.is((await frames()).length, before);
  await v.close();
});

test('team members see camera frames only when the bot shares them', async () => {
  const [hidden] = await frames();
  const t = await w.server.request('GET', `/api/v1/conversations/${hidden.conversationId}`, { headers: w.owner.headers });
  assert.is(t.status, 200);
  assert.ok(t.body.messages.every((m: any) => m.attachments.length === 0), 'the transcript leaves the frame out');
  const a = await w.server.fetch(`/api/v1/attachments/${hidden._id}`, { headers: w.owner.headers });
  assert.is(a.status, 404);

  await republish(w, webcam({ mode: 'per_turn', shareWithHumanAgents: true, persistFrames: true }));
  const v = await visitorWithCamera();
  await clock.advance(2000);
  v.send({ t: 'camera_frame', data: await b64(320, '#ff0000') });
  const ok = await v.frame('camera_frame_ok');
  v.send({ t: 'message', text: 'and this one?' });
  const mine = await v.frame('message', (f) => f.message.role === 'user');
  await v.frame('message', (f) => f.message.role === 'assistant');
  assert.is(mine.message.attachments[0].id, ok.frameId);
  const shared = await w.server.request('GET', `/api/v1/conversations/${mine.conversationId}`, { headers: w.owner.headers });
  assert.is(shared.body.messages[0].attachments[0].id, ok.frameId);
  const img = await w.server.fetch(`/api/v1/attachments/${ok.frameId}`, { headers: w.owner.headers });
  assert.is(img.status, 200);
  assert.is(img.headers.get('content-type'), 'image/jpeg');
  await v.close();
});

test('frames not kept are deleted about an hour after their conversation ends; kept ones stay', async () => {
  const all = await frames();
  const convIds = [...new Set(all.map((f) => f.conversationId!))];
  for (const id of convIds) await w.server.request('POST', `/api/v1/conversations/${id}/close`, { headers: w.owner.headers });
  await clock.advance(FRAMES_KEPT_AFTER_END_MS - 60_000);
  assert.equal(await runCameraFrameSweep(w.server.app), { frames: 0, conversations: 0 }, 'not yet');
  await clock.advance(2 * 60_000);
  const run = await runCameraFrameSweep(w.server.app);
  const left = await frames();
  assert.is(run.frames, all.filter((f) => !f.camera!.keep).length);
  assert.ok(left.length > 0 && left.every((f) => f.camera!.keep), 'only frames taken with persistFrames on are left');
  const gone = all.find((f) => !f.camera!.keep)!;
  assert.is(await w.server.app.store.files.get(ws(), gone._id), null, 'the picture itself is deleted');
  const msgs = await w.server.app.records.messages.find({ workspaceId: ws(), conversationId: gone.conversationId! });
  assert.ok(msgs.every((m) => m.attachments.every((a) => a.id !== gone._id)), 'no message names it any more');
});

test('on_demand: look_at_camera asks the widget for a picture and the model gets it as an image part', async () => {
  await republish(w, webcam({ mode: 'on_demand' }));
  const v = await visitorWithCamera();
  w.fake.script([{ toolCalls: [{ name: 'look_at_camera', arguments: {} }] }, { text: 'I see a green plant.' }]);
  v.send({ t: 'message', text: 'can you see my plant?' });
  const tools = () => w.fake.requests.filter((r) => r.path.includes('/chat/completions')).at(-1)!.body.tools ?? [];
  const req = await v.frame('camera_request');
  assert.ok(tools().some((t: any) => t.function.name === 'look_at_camera'), 'the tool is offered in on_demand mode');
  v.send({ t: 'camera_frame', data: await b64(320, '#00aa00'), requestId: req.requestId });
  assert.is((await v.frame('camera_frame_ok')).requestId, req.requestId);
  const reply = await v.frame('message', (f) => f.message.role === 'assistant');
  assert.is(reply.message.text, 'I see a green plant.');
  const images = imagesSeen();
  assert.is(images.length, 1, 'the picture reached the model as an image part');

  // A frame nobody asked for is refused in on_demand mode.
  v.send({ t: 'camera_frame', data: await b64(320) });
  assert.match((await v.frame('error')).message, /only when the agent asks/);

  // With the camera off the model is told so, in words it can pass on.
  v.send({ t: 'camera', state: 'off' });
  w.fake.script([{ toolCalls: [{ name: 'look_at_camera', arguments: {} }] }, { text: 'Please turn your camera on.' }]);
  v.send({ t: 'message', text: 'look again' });
  await v.frame('message', (f) => f.message.role === 'assistant' && f.message.text === 'Please turn your camera on.');
  const body = w.fake.lastBody('/chat/completions');
  const toolMsg = body.messages.filter((m: any) => m.role === 'tool').at(-1);
  assert.match(toolMsg.content, /camera is off/);
  await v.close();
});

test('a brain that cannot see gets the camera picture in words from the vision proxy', async () => {
  await republish(w, { brain: { model: 'o4-mini' }, vision: { webcam: { enabled: true, mode: 'per_turn' }, proxy: { model: 'gpt-4o-mini' } } });
  const v = await visitorWithCamera();
  await clock.advance(2000);
  w.fake.script([{ text: 'A blue mug with a chipped handle.' }, { text: 'Your mug looks chipped.' }]);
  v.send({ t: 'camera_frame', data: await b64(320) });
  await v.frame('camera_frame_ok');
  const describe = w.fake.lastBody('/chat/completions');
  assert.is(describe.model, 'gpt-4o-mini', 'the proxy model was asked to describe the frame');
  v.send({ t: 'message', text: 'is it broken?' });
  const reply = await v.frame('message', (f) => f.message.role === 'assistant');
  assert.is(reply.message.text, 'Your mug looks chipped.');
  const body = w.fake.lastBody('/chat/completions');
  assert.is(body.model, 'o4-mini');
  const user = body.messages.filter((m: any) => m.role === 'user').at(-1);
  assert.is(typeof user.content, 'string', 'no image part for a brain that cannot see');
  assert.match(user.content, /is it broken\?\n\[The visitor's camera showed: A blue mug with a chipped handle\.\]/);
  await v.close();
});

test('a bot without the camera offers none, and refuses camera frames', async () => {
  await republish(w, { brain: { model: 'gpt-4o-mini' }, vision: { webcam: { enabled: false } } });
  const r = await w.server.request('GET', `/widget/v1/bots/${w.botId}/config`);
  assert.equal(r.body.webcam, { enabled: false });
  const v = await w.widget();
  await v.frame('ready');
  v.send({ t: 'camera', state: 'on' });
  assert.match((await v.frame('error')).message, /does not use the camera/);
  await v.close();
});

test.run();
