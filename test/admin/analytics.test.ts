import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { FakeClock } from '../../src/kernel/clock.js';
import { addMember, type TestSession } from '../helpers/auth.js';
import { chattingVisitor, startTeamWorld, type TeamWorld } from '../team/helpers.js';
import { expectAxeClean, screenshots } from './axe.js';
import { signIn, startAdminBrowser, type AdminBrowser } from './world.js';

const SHOTS = '/tmp/shots/admin-build';
const DAY = 86_400_000;
const clock = new FakeClock(Date.UTC(2026, 0, 1, 10, 0));
let w: TeamWorld;
let viewer: TestSession;
let b: AdminBrowser;
let page: Page;

/** Conversations on five days (1, 3, 2, 0, 2 of them); the first of day 2 saves a lead with a tool call. */
async function activity() {
  for (const [day, count] of [1, 3, 2, 0, 2].entries()) {
    if (day > 0) await clock.advance(DAY);
    for (let i = 0; i < count; i++) {
      if (day === 1 && i === 0) w.fake.script([{ toolCalls: [{ name: 'capture_lead', arguments: { name: 'Ann', email: 'ann@example.com' } }] }, { text: 'Saved, thanks!' }]);
      const c = await chattingVisitor(w, `question ${day}-${i}`);
      // The last conversation is taken over by the team without anyone asking for a person.
      if (day === 4 && i === count - 1) {
        const took = await w.server.request('POST', `/api/v1/conversations/${c.conversationId}/takeover`, { headers: w.agent.headers });
        assert.is(took.status, 200, JSON.stringify(took.body));
      }
      await c.visitor.close();
    }
  }
  // A lead added by hand on the last day: a lead, but no conversation's outcome.
  const added = await w.server.request('POST', '/api/v1/leads', { body: { botId: w.botId, fields: { name: 'Cat', email: 'cat@example.com' } }, headers: w.owner.headers });
  assert.is(added.status, 201, JSON.stringify(added.body));
}

test.before(async () => {
  w = await startTeamWorld({ behavior: { leadCapture: { enabled: true } } }, { clock });
  viewer = await addMember(w.server, w.owner, 'viewer', { name: 'Vera Viewer' });
  await activity();
  b = await startAdminBrowser(w.server);
  page = await b.open('analytics');
  await signIn(page, w.owner.email);
});
test.after(async () => {
  await b?.close();
  await w?.stop();
});

/** How many pixels of a chart's canvas uPlot painted (lines, fills, axes text). */
const painted = (p: Page, id: string) => p.evaluate((sel) => {
  const c = document.querySelector<HTMLCanvasElement>(`${sel} canvas`);
  if (!c) return -1;
  const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
  return n;
}, `#${id}`);

const tile = (p: Page, label: string) => p.locator('.stat', { has: p.locator(`dt:text-is("${label}")`) }).locator('dd');

test('the last 30 days show the totals, and the per-day charts are drawn with the data', async () => {
  await page.locator('.stats.totals').waitFor();
  assert.match(await tile(page, 'Conversations').textContent() ?? '', /^8/);
  // 2 leads, 1 of them from 8 conversations (13 %), the other added by hand; 1 takeover without a request.
  assert.is(await tile(page, 'Leads').textContent(), '213% of conversations · 1 added by hand');
  assert.is(await tile(page, 'Handoffs').textContent(), '01 taken over');
  assert.match(await tile(page, 'Tool calls').textContent() ?? '', /^1/);
  assert.match(await page.locator('.period').textContent() ?? '', '2025-12-07 to 2026-01-05');
  for (const id of ['chart-conversations', 'chart-outcomes', 'chart-cost']) {
    await page.locator(`#${id} canvas`).waitFor();
    assert.ok(await painted(page, id) > 2000, `${id} is drawn`);
  }
  // The legend follows the cursor: over the chart's right end it reads the last day's figures.
  const box = (await page.locator('#chart-conversations .u-over').boundingBox())!;
  await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
  assert.match(await page.locator('#chart-conversations .u-legend').textContent() ?? '', /Conversations\s*2/);
  assert.match(await page.locator('table.tool-use').textContent() ?? '', 'capture_lead');
  assert.match(await page.locator('table.usage').textContent() ?? '', 'gpt-4o-mini');
  await expectAxeClean(page, 'analytics');
  await screenshots(page, SHOTS, 'analytics');
});

test('a chosen period and a bot narrow the totals', async () => {
  await page.selectOption('select[name="period"]', 'custom');
  await page.fill('input[name="from"]', '2026-01-02');
  await page.fill('input[name="to"]', '2026-01-02');
  await page.locator('.period', { hasText: '2026-01-02 to 2026-01-02' }).waitFor();
  assert.match(await tile(page, 'Conversations').textContent() ?? '', /^3/);
  assert.match(await tile(page, 'Leads').textContent() ?? '', /^1/);
  await page.selectOption('select[name="period"]', '7');
  await page.locator('.period', { hasText: '2025-12-30 to 2026-01-05' }).waitFor();
  await page.selectOption('select[name="botId"]', w.botId);
  await page.locator('.period', { hasText: '2025-12-30 to 2026-01-05' }).waitFor();
  assert.match(await tile(page, 'Conversations').textContent() ?? '', /^8/);
});

test('a period without conversations says so instead of empty charts', async () => {
  await page.selectOption('select[name="period"]', 'custom');
  await page.fill('input[name="from"]', '2025-11-01');
  await page.fill('input[name="to"]', '2025-11-30');
  await page.locator('.empty-state', { hasText: 'No conversations in this period' }).waitFor();
  assert.is(await page.locator('.chart canvas').count(), 0);
});

test('a bad period shows the API message', async () => {
  await page.fill('input[name="from"]', '2025-12-31');
  await page.fill('input[name="to"]', '2025-12-01');
  assert.match(await page.locator('.analytics .error').textContent() ?? '', 'from: must not be after to');
});

test('a viewer sees the analytics too, accessible and drawn', async () => {
  const v = await b.open('analytics');
  await signIn(v, viewer.email);
  await v.locator('#chart-conversations canvas').waitFor();
  assert.ok(await painted(v, 'chart-conversations') > 2000);
  await expectAxeClean(v, 'analytics (viewer)');
});

test('no page threw or broke the content security policy', () => {
  assert.equal(b.errors.filter((e) => !e.includes('status of 4')), []);
});

test.run();
