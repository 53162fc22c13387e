import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { requestHandoff } from '../../src/team/handoff.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { chattingVisitor, startTeamWorld } from './helpers.js';
import { until } from '../helpers/until.js';

const clock = new FakeClock(Date.UTC(2026, 0, 1, 10, 0));
const ALWAYS_OPEN = { enabled: true, timezone: 'UTC', weekly: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, open: '00:00', close: '23:59' })), holidays: [], scope: 'handoff' };

/** Runs the fake clock's due timers (without moving it) until `check` holds, for up to 10 s of real time. */
const dueUntil = (check: () => Promise<boolean>, message: string) => until(async () => { await clock.advance(0); return check(); }, { timeout: 10_000, interval: 20, message });

test('waiting handoffs are timed out after a restart: an overdue one at once, a later one when due', async () => {
  const w = await startTeamWorld({
    behavior: { handoff: { enabled: true, acceptTimeoutSec: 30, offlineAction: 'message' }, hours: ALWAYS_OPEN },
    texts: { offline: 'Nobody is here right now.' },
  }, { clock });
  const dataDir = w.server.dataDir;
  let second: TestServer | null = null;
  try {
    const live = await w.live(w.agent);
    await live.event('presence.changed', (d) => d.presence === 'online');
    const a = await chattingVisitor(w, 'first visitor');
    const ra = await requestHandoff(w.server.app, w.server.services, { conversationId: a.conversationId, reason: null, source: 'visitor' });
    await clock.advance(20_000);
    const b = await chattingVisitor(w, 'second visitor');
    const rb = await requestHandoff(w.server.app, w.server.services, { conversationId: b.conversationId, reason: null, source: 'visitor' });
    assert.ok(ra.ok && ra.available && rb.ok && rb.available, 'both wait for acceptance');
    for (const c of [a.visitor, b.visitor, live]) await c.close();
    await w.server.stop({ keepData: true });

    // Down for 15 s: the first wait (due at +30 s) is overdue at the restart, the second (due at +50 s) is not.
    await clock.advance(15_000);
    second = await startTestServer({ dataDir, clock });
    const app = second.app;
    const ws = w.agent.workspaceId;
    const state = async (id: string) => (await app.records.handoffs.findById(ws, id))?.state;
    const told = async (conversationId: string) => (await app.records.messages.find({ workspaceId: ws, conversationId, role: 'system_event' }))
      .some((m) => m.text === 'Nobody is here right now.');

    await dueUntil(async () => (await state(ra.handoff._id)) === 'unanswered' && told(a.conversationId), 'the overdue handoff timed out at start-up');
    assert.is((await app.records.handoffs.findById(ws, ra.handoff._id))?.unansweredReason, 'timeout');
    assert.is(await state(rb.handoff._id), 'requested', 'the second still waits');
    assert.not.ok(await told(b.conversationId));

    await clock.advance(14_000);
    assert.is(await state(rb.handoff._id), 'requested');
    await clock.advance(1_000);
    await dueUntil(async () => (await state(rb.handoff._id)) === 'unanswered' && told(b.conversationId), 'the second timed out when due');
  } finally {
    await second?.stop();
    await w.fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
