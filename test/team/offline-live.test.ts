import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { republish, startTeamWorld, type TeamWorld } from './helpers.js';

// 2026-01-01 (a Thursday), 16:00 UTC; open 09:00 to 17:00 on weekdays, so the bot closes in an hour.
const clock = new FakeClock(Date.UTC(2026, 0, 1, 16, 0));
const WEEKDAYS = { enabled: true, timezone: 'UTC', weekly: [1, 2, 3, 4, 5].map((day) => ({ day, open: '09:00', close: '17:00' })), holidays: [], scope: 'bot' };

let w: TeamWorld;
test.before(async () => { w = await startTeamWorld({ behavior: { hours: WEEKDAYS } }, { clock }); });
test.after(async () => { await w.stop(); });

const widgetConfig = async () => (await w.server.request('GET', `/widget/v1/bots/${w.botId}/config`)).body;

test('a widget open across closing time is told the bot went offline, and again when it opens next morning', async () => {
  const visitor = await w.widget();
  const ready = await visitor.frame('ready');
  assert.is(ready.offline, false, 'open at 16:00');
  await clock.advance(59 * 60_000);
  assert.is(visitor.all('offline').length, 0, 'nothing before 17:00');
  await clock.advance(60_000);
  const closed = await visitor.frame('offline');
  assert.is(closed.offline, true);
  assert.is((await widgetConfig()).offline, true, 'the config read at page load agrees');
  // Friday 09:00 is 16 hours later.
  await clock.advance(16 * 3600_000);
  const opened = await visitor.frame('offline', (f) => f.offline === false);
  assert.is(opened.offline, false);
  assert.is(visitor.all('offline').length, 2, 'one frame per change');
  await visitor.close();
});

test('a widget that connects while closed gets offline in its ready frame', async () => {
  await clock.advance(9 * 3600_000); // Friday 18:00
  const visitor = await w.widget();
  const ready = await visitor.frame('ready');
  assert.is(ready.offline, true);
  await visitor.close();
});

test('a publish that changes the hours tells open widgets at once', async () => {
  const visitor = await w.widget();
  assert.is((await visitor.frame('ready')).offline, true);
  await republish(w, { behavior: { hours: { ...WEEKDAYS, scope: 'handoff' } } });
  const f = await visitor.frame('offline');
  assert.is(f.offline, false, 'scope handoff: the bot answers outside hours');
  await visitor.close();
});

test.run();
