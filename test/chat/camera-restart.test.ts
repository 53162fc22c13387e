/**
 * Deleting camera frames survives a restart: the sweep's state is the store, and a server that starts runs it at
 * once, so frames whose time came while it was stopped go as soon as it is back.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { FakeClock } from '../../src/kernel/clock.js';
import { FRAMES_KEPT_AFTER_END_MS } from '../../src/retention/camera-frames.js';
import { startTestServer } from '../helpers/server.js';
import { startTeamWorld } from '../team/helpers.js';

test('frames of a conversation that ended before a restart are deleted by the first sweep after it', async () => {
  const clock = new FakeClock(Date.UTC(2026, 6, 1, 9, 0));
  const w = await startTeamWorld({ vision: { webcam: { enabled: true, mode: 'per_turn' } } }, { clock });
  const v = await w.widget();
  await v.frame('ready');
  v.send({ t: 'camera', state: 'on' });
  const data = (await sharp({ create: { width: 320, height: 240, channels: 3, background: '#3355aa' } }).jpeg().toBuffer()).toString('base64');
  v.send({ t: 'camera_frame', data });
  const ok = await v.frame('camera_frame_ok');
  v.send({ t: 'message', text: 'see this?' });
  const mine = await v.frame('message', (f) => f.message.role === 'user');
  await v.frame('message', (f) => f.message.role === 'assistant');
  await v.close();
  const closed = await w.server.request('POST', `/api/v1/conversations/${mine.conversationId}/close`, { headers: w.owner.headers });
  assert.is(closed.status, 200);
  const workspaceId = w.owner.workspaceId;
  const dataDir = w.server.dataDir;
  await w.server.stop({ keepData: true });
  await w.fake.close();

  // Down for longer than frames are kept.
  await clock.advance(FRAMES_KEPT_AFTER_END_MS + 10 * 60_000);
  const again = await startTestServer({ dataDir, clock });
  try {
    await again.services.cameraFrames.running;
    assert.is(await again.app.records.attachments.findById(workspaceId, ok.frameId), null, 'the frame record is gone');
    assert.is(await again.app.store.files.get(workspaceId, ok.frameId), null, 'and its picture');
  } finally {
    await again.stop();
  }
});

test.run();
