import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOpen, localTime } from '../../src/bots/hours.js';
import { LiveHub, liveFrame, type LiveConn } from '../../src/team/live-hub.js';
import { systemClock } from '../../src/kernel/clock.js';
import { EventBus, type EventRecord } from '../../src/app/event-bus.js';
import { createLogger } from '../../src/kernel/log.js';
import type { DocumentStore } from '../../src/store/types.js';
import { startTeamWorld, type TeamWorld } from './helpers.js';

const week = (open: string, close: string) => [1, 2, 3, 4, 5].map((day) => ({ day, open, close }));
const hours = (o: Partial<Parameters<typeof isOpen>[0]> = {}) => ({ enabled: true, timezone: 'UTC', weekly: week('09:00', '17:00'), holidays: [], scope: 'handoff' as const, ...o });

test('opening hours follow the weekly periods in their own time zone', () => {
  const thu1000utc = Date.UTC(2026, 0, 1, 10, 0);
  assert.ok(isOpen(hours(), thu1000utc));
  assert.not.ok(isOpen(hours(), Date.UTC(2026, 0, 1, 17, 0)), 'close time itself is closed');
  assert.not.ok(isOpen(hours(), Date.UTC(2026, 0, 3, 10, 0)), 'Saturday is closed');
  // 10:00 UTC is 02:00 in Los Angeles (UTC-8 in January).
  assert.not.ok(isOpen(hours({ timezone: 'America/Los_Angeles' }), thu1000utc));
  assert.ok(isOpen(hours({ timezone: 'America/Los_Angeles' }), Date.UTC(2026, 0, 1, 18, 0)));
  assert.equal(localTime(Date.UTC(2026, 0, 1, 3, 0), 'America/Los_Angeles'), { day: 3, date: '2025-12-31', minutes: 19 * 60 });
  assert.not.ok(isOpen(hours({ holidays: ['2026-01-01'] }), thu1000utc), 'a holiday is closed all day');
  assert.ok(isOpen({ ...hours(), enabled: false }, Date.UTC(2026, 0, 3, 3, 0)), 'hours off means always open');
});

test('a period that closes before it opens runs past midnight', () => {
  const night = hours({ weekly: [{ day: 4, open: '22:00', close: '02:00' }] });
  assert.ok(isOpen(night, Date.UTC(2026, 0, 1, 23, 0)), 'Thursday 23:00');
  assert.ok(isOpen(night, Date.UTC(2026, 0, 2, 1, 30)), 'Friday 01:30');
  assert.not.ok(isOpen(night, Date.UTC(2026, 0, 2, 2, 0)), 'Friday 02:00');
  assert.not.ok(isOpen(night, Date.UTC(2026, 0, 1, 1, 0)), 'Thursday 01:00 belongs to Wednesday\'s night');
});

test('a live frame carries exactly the spec fields plus workspaceId', () => {
  const frame = liveFrame({ type: 'visitor.typing', workspaceId: 'ws_1', data: { conversationId: 'c', active: true, botId: 'b', workspaceId: 'ws_1' } });
  assert.equal(JSON.parse(frame!), { type: 'visitor.typing', data: { conversationId: 'c', active: true, workspaceId: 'ws_1' } });
  assert.is(liveFrame({ type: 'ping', workspaceId: 'ws_1', data: {} }), null);
});

test('a socket that cannot keep up loses its own frames and never holds back the others', () => {
  const hub = new LiveHub();
  const got: string[] = [];
  const mk = (id: number, result: 'ok' | 'dropped'): LiveConn => ({
    id, closed: false, data: { workspaceId: 'ws_1', userId: `u${id}`, sessionId: `ses${id}`, userName: 'x', role: 'agent' },
    send: (m) => { if (result === 'ok') got.push(String(m)); return result; }, close() {},
  });
  hub.add(mk(1, 'dropped'));
  hub.add(mk(2, 'ok'));
  const n = hub.broadcast({ _id: 'evt_1', workspaceId: 'ws_1', type: 'visitor.typing', data: { conversationId: 'c', active: true }, createdAt: 0 });
  assert.is(n, 1);
  assert.is(got.length, 1);
  assert.is(hub.dropped, 1);
});

test('volatile events reach only listeners that ask for them, for the workspaces they watch', () => {
  const bus = new EventBus({ collection: () => ({}) } as unknown as DocumentStore, systemClock, createLogger('silent'));
  const watched = new Set(['ws_1']);
  const live: EventRecord[] = [];
  const others: EventRecord[] = [];
  bus.subscribe((e) => live.push(e), { volatileFor: (ws) => watched.has(ws) });
  bus.subscribe((e) => others.push(e));
  bus.publishVolatile('ws_1', 'message.delta', { conversationId: 'c', delta: 'Hi' });
  bus.publishVolatile('ws_2', 'message.delta', { conversationId: 'c', delta: 'unseen' });
  assert.is(live.length, 1);
  assert.equal(JSON.parse(JSON.stringify(live[0])).data, { conversationId: 'c', delta: 'Hi', workspaceId: 'ws_1' });
  assert.match(live[0]._id, /^evt_/);
  assert.equal(others, [], 'a listener without volatileFor gets stored events only');
  watched.clear();
  bus.publishVolatile('ws_1', 'message.delta', { conversationId: 'c', delta: 'no one watches' });
  assert.is(live.length, 1);
});

let w: TeamWorld;
test('over the wire, a paused reader is cut off while a healthy one gets every frame', async () => {
  w = await startTeamWorld();
  try {
    const hub = w.server.services.liveHub;
    const workspaceId = w.owner.workspaceId;
    const slow = await w.live(w.agent);
    const fast = await w.live(w.owner);
    await slow.event('hello');
    await fast.event('hello');
    assert.is(hub.count(workspaceId), 2);
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    // A healthy reader keeps up: the test publishes a batch only once the fast socket has read the one before,
    // so at most a batch (well under the socket's buffer limit) is ever in flight to it, however busy the machine
    // is. The paused socket's kernel buffers and server buffer fill batch by batch until the server cuts it off:
    // the test watches the hub for that instead of guessing how many frames or milliseconds it takes.
    const delta = 'x'.repeat(64 * 1024);
    const batch = 4;
    const maxFrames = 512; // 32 MB: far more than loopback buffers hold for a reader that reads nothing
    let published = 0;
    const publishBatch = async () => {
      for (let i = 0; i < batch; i++, published++) {
        w.server.app.events.publishVolatile(workspaceId, 'message.delta', { conversationId: 'c', messageId: 'm', responseId: 'r', delta: `${published}:${delta}` });
      }
      const last = `${published - 1}:`;
      await fast.next((f) => f.type === 'message.delta' && f.data.delta.startsWith(last), 60_000);
    };
    while (hub.count(workspaceId) === 2 && published < maxFrames) await publishBatch();
    assert.is(hub.count(workspaceId), 1, `the paused socket was still open after ${published} frames of 64 KB`);
    assert.ok(hub.dropped > 0, 'the frame that overflowed the paused socket was dropped, not queued');
    await publishBatch(); // the healthy socket goes on receiving after its neighbour is gone
    assert.is(fast.all('message.delta').length, published);
    assert.is(fast.closed, null);
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await new Promise<void>((resolve) => { if (slow.closed) resolve(); else slow.ws.once('close', () => resolve()); });
    assert.ok(slow.all('message.delta').length < published, 'the slow socket was closed before it got everything');
  } finally {
    await w.stop();
  }
});

test.run();
