import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dayIn } from '../../src/analytics/period.js';
import { FakeClock } from '../../src/kernel/clock.js';
import { chattingVisitor, startTeamWorld, type TeamWorld } from '../team/helpers.js';

// 21:00 on 1 January in Los Angeles is already 2 January in UTC and in Tokyo.
const clock = new FakeClock(Date.UTC(2026, 0, 2, 5, 0));
let w: TeamWorld;

const as = async (method: string, path: string, body?: unknown) => {
  const r = await w.server.request(method, path, { body, headers: w.owner.headers });
  if (r.status !== 200) throw new Error(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};
const perDay = async (from: string, to: string) =>
  Object.fromEntries((await as('GET', `/api/v1/analytics/timeseries?from=${from}&to=${to}`)).items.map((d: { day: string; conversations: number }) => [d.day, d.conversations]));
const converse = async (text: string) => { const c = await chattingVisitor(w, text); await c.visitor.close(); };

test.before(async () => { w = await startTeamWorld({}, { clock }); });
test.after(async () => { await w.stop(); });

test('a day in a zone is that zone\'s calendar day, half-hour offsets included', () => {
  assert.is(dayIn(Date.UTC(2026, 0, 2, 5, 0), 'UTC'), '2026-01-02');
  assert.is(dayIn(Date.UTC(2026, 0, 2, 5, 0), 'America/Los_Angeles'), '2026-01-01');
  assert.is(dayIn(Date.UTC(2026, 0, 1, 18, 29), 'Asia/Kolkata'), '2026-01-01');
  assert.is(dayIn(Date.UTC(2026, 0, 1, 18, 30), 'Asia/Kolkata'), '2026-01-02');
});

test('analytics days and "today" are the workspace\'s days in its time zone', async () => {
  await as('PATCH', '/api/v1/settings', { timezone: 'America/Los_Angeles' });
  await converse('hello from the evening');
  const today = await as('GET', '/api/v1/analytics/summary?days=1');
  assert.equal([today.from, today.to, today.conversations], ['2026-01-01', '2026-01-01', 1], 'today is 1 January in Los Angeles');
  assert.equal(await perDay('2026-01-01', '2026-01-02'), { '2026-01-01': 1, '2026-01-02': 0 });
});

test('a new zone counts from then on; what was counted stays on its day', async () => {
  await as('PATCH', '/api/v1/settings', { timezone: 'Asia/Tokyo' });
  await converse('hello from the afternoon');
  const today = await as('GET', '/api/v1/analytics/summary');
  assert.is(today.to, '2026-01-02', 'today is 2 January in Tokyo');
  assert.is(today.conversations, 2);
  assert.equal(await perDay('2026-01-01', '2026-01-02'), { '2026-01-01': 1, '2026-01-02': 1 });
});

test('events either side of local midnight in a half-hour zone land on their own days', async () => {
  await as('PATCH', '/api/v1/settings', { timezone: 'Asia/Kolkata' });
  // 23:59 on 2 January in Kolkata (UTC+5:30), then 00:01 on 3 January.
  await clock.advance(Date.UTC(2026, 0, 2, 18, 29) - clock.now());
  await converse('just before midnight');
  await clock.advance(2 * 60_000);
  await converse('just after midnight');
  assert.equal(await perDay('2026-01-02', '2026-01-03'), { '2026-01-02': 2, '2026-01-03': 1 });
});

test.run();
