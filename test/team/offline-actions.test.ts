import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { quietFor } from '../helpers/until.js';
import { FakeClock } from '../../src/kernel/clock.js';
import { requestHandoff } from '../../src/team/handoff.js';
import { chattingVisitor, republish, startTeamWorld, type TeamWorld } from './helpers.js';

// 2026-01-01 (a Thursday), 10:00 UTC; the clock moves only when a test advances it.
const clock = new FakeClock(Date.UTC(2026, 0, 1, 10, 0));
const ALWAYS_OPEN = { enabled: true, timezone: 'UTC', weekly: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, open: '00:00', close: '23:59' })), holidays: [], scope: 'handoff' };
const CLOSED_TODAY = { ...ALWAYS_OPEN, holidays: ['2026-01-01'] };
const OFFLINE_TEXT = 'We are away right now.';

let w: TeamWorld;
test.before(async () => {
  w = await startTeamWorld({
    behavior: {
      handoff: { enabled: true, acceptTimeoutSec: 30, offlineAction: 'none' },
      hours: ALWAYS_OPEN,
      leadCapture: { enabled: true, when: 'offline' },
    },
    texts: { offline: OFFLINE_TEXT },
  }, { clock });
});
test.after(async () => { await w.stop(); });

const modelCalls = () => w.fake.requests.length;

test('offlineAction none: nobody available gives the offline text only, no lead form', async () => {
  const { visitor, conversationId } = await chattingVisitor(w, 'a person please');
  const r = await requestHandoff(w.server.app, w.server.services, { conversationId, reason: null, source: 'visitor' });
  assert.ok(r.ok && !r.available);
  const line = await visitor.frame('message', (f) => f.message.role === 'system_event');
  assert.is(line.message.text, OFFLINE_TEXT);
  visitor.send({ t: 'message', text: 'still there?' });
  await visitor.frame('message', (f) => f.message.role === 'assistant' && f.message.text.includes('still there?'));
  assert.is(visitor.all('lead_form').length, 0, 'no form with offlineAction none');
  await visitor.close();
});

test('hours scope bot: a widget message outside hours gets the offline text and the model is not called', async () => {
  await republish(w, { behavior: { hours: { ...CLOSED_TODAY, scope: 'bot' } } });
  const before = modelCalls();
  const visitor = await w.widget();
  await visitor.frame('ready');
  visitor.send({ t: 'message', text: 'are you open?' });
  const line = await visitor.frame('message', (f) => f.message.role === 'system_event');
  assert.is(line.message.text, OFFLINE_TEXT);
  await visitor.frame('lead_form', (f) => f.reason === 'offline');
  visitor.send({ t: 'message', text: 'hello?' });
  await visitor.frame('message', (f) => f.message.role === 'user' && f.message.text === 'hello?');
  await clock.advance(0);
  await quietFor(200, 'a second offline text or an AI reply to "hello?"');
  assert.is(visitor.all('message').filter((f) => f.message.role === 'system_event').length, 1, 'the offline text at most once an hour');
  assert.is(visitor.all('message').filter((f) => f.message.role === 'assistant').length, 0, 'no AI reply');
  assert.is(modelCalls(), before, 'the fake provider received no request');
  await visitor.close();
});

test.run();
