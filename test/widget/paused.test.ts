/**
 * A paused bot in the widget, as the bot offline (behavior.hours.scope bot outside hours): the visitor reads the
 * offline text and can leave their details in the lead form (if lead capture is on), the message box is off, a
 * message sent anyway is refused in words, the widget does not loop on reconnecting, and once the bot runs again the
 * chat comes back by itself.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync } from 'node:fs';
import WebSocket from 'ws';
import { until } from '../helpers/until.js';
import { startWidgetWorld, type WidgetWorld } from './world.js';

const SHOTS = '/tmp/shots/widget';
const OFFLINE = 'Paused for maintenance. Leave your details and we will call you back.';
let w: WidgetWorld;
test.before(async () => { w = await startWidgetWorld(); mkdirSync(SHOTS, { recursive: true }); });
test.after(async () => { await w?.close(); });

const setStatus = async (botId: string, status: 'running' | 'paused') => {
  const r = await w.server.request('POST', `/api/v1/bots/${botId}/status`, { body: { status }, headers: w.owner.headers });
  assert.is(r.status, 200);
};
const leadsOf = async (botId: string): Promise<any[]> => {
  const r = await w.server.request('GET', `/api/v1/leads?botId=${botId}`, { headers: w.owner.headers });
  assert.is(r.status, 200);
  return (r.body as { items: any[] }).items.filter((l) => l.botId === botId);
};

test('a paused bot\'s socket says paused in ready, offers the offline lead form, refuses messages and takes the lead', async () => {
  const botId = await w.createBot({ behavior: { leadCapture: { enabled: true, when: 'tool' } } });
  await setStatus(botId, 'paused');
  const ws = new WebSocket(`${w.server.url.replace(/^http/, 'ws')}/widget/v1/chat?botId=${botId}`);
  const frames: any[] = [];
  let closed: number | null = null;
  ws.on('message', (d) => frames.push(JSON.parse(String(d))));
  ws.on('close', (c) => { closed = c; });
  const next = (t: string, after = 0) => until(() => frames.slice(after).find((x) => x.t === t), { message: `a ${t} frame` });
  const ready = await next('ready');
  assert.is(ready.paused, true);
  assert.is(ready.offline, true);
  const form = await next('lead_form');
  assert.is(form.reason, 'offline');
  assert.equal(form.fields.map((f: any) => f.key), ['name', 'email']);

  let seen = frames.length;
  ws.send(JSON.stringify({ t: 'message', text: 'Hello?', clientId: 'c1' }));
  const refused = await next('error', seen);
  assert.is(refused.code, 'forbidden');
  assert.is(refused.clientId, 'c1');
  assert.match(refused.message, /paused/);
  seen = frames.length;
  ws.send(JSON.stringify({ t: 'handoff' }));
  assert.is((await next('error', seen)).code, 'forbidden');

  seen = frames.length;
  ws.send(JSON.stringify({ t: 'lead', fields: { name: 'Grace', email: 'grace@example.com' } }));
  const ok = await next('lead_ok', seen);
  assert.ok(ok.leadId);
  assert.is(closed, null, 'the socket stays open');
  const leads = await leadsOf(botId);
  assert.is(leads.length, 1);
  assert.equal(leads[0].fields, { name: 'Grace', email: 'grace@example.com' });
  ws.close();
});

test('a visitor of a paused bot reads the offline text, leaves their details, and the chat returns when the bot runs again', async () => {
  const botId = await w.createBot({ texts: { offline: OFFLINE }, behavior: { leadCapture: { enabled: true, when: 'tool' } } });
  await setStatus(botId, 'paused');
  const page = await w.newPage();
  await page.clock.install();
  await page.goto(w.page('/paused', w.embed(botId)));
  await page.click('button.l');
  const notice = page.locator('.line.offline.paused', { hasText: OFFLINE });
  await notice.waitFor();
  await page.locator('form.lead').waitFor();
  assert.ok(await page.locator('.cp textarea').isDisabled(), 'the message box is off');
  assert.ok(await page.locator('.cp button').first().isDisabled(), 'so is the attach button');
  assert.is(await page.getByText(OFFLINE).count(), 1, 'the offline text is said once');
  // Half a minute later the widget has not tried again and again, and never said the connection was lost.
  await page.clock.runFor(30_000);
  assert.is(await page.evaluate(() => (window as any).__urls.length), 1, 'one connection, no reconnect loop');
  assert.is(await page.getByText('Connection lost').count(), 0);

  await page.fill('form.lead input[name=name]', 'Ada Lovelace');
  await page.fill('form.lead input[name=email]', 'ada@example.com');
  await page.screenshot({ path: `${SHOTS}/paused-bot-form.png` });
  await page.click('form.lead button[type=submit]');
  await page.locator('form.lead').waitFor({ state: 'detached' });
  await page.waitForFunction(() => (window as any).__frames.some((f: any) => f.t === 'lead_ok'));
  await page.screenshot({ path: `${SHOTS}/paused-bot.png` });
  const leads = await leadsOf(botId);
  assert.is(leads.length, 1);
  assert.equal(leads[0].fields, { name: 'Ada Lovelace', email: 'ada@example.com' });

  // Resumed: the next quiet check (the bot's public config) reconnects, the notice goes, and the chat answers.
  await setStatus(botId, 'running');
  await page.clock.runFor(61_000);
  await notice.waitFor({ state: 'detached' });
  assert.ok(await page.locator('.cp textarea').isEnabled());
  w.fake.script({ text: 'Yes, from 10 to 4.' });
  await page.fill('.cp textarea', 'Are you open on Sunday?');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant', { hasText: 'Yes, from 10 to 4.' }).waitFor();
  await page.screenshot({ path: `${SHOTS}/paused-bot-resumed.png` });
});

test('without lead capture a paused bot shows only the offline text, and its box stays off', async () => {
  const botId = await w.createBot({ texts: { offline: OFFLINE } });
  await setStatus(botId, 'paused');
  const page = await w.newPage();
  await page.goto(w.page('/paused-no-lead', w.embed(botId)));
  await page.click('button.l');
  await page.locator('.line.offline.paused', { hasText: OFFLINE }).waitFor();
  assert.ok(await page.locator('.cp textarea').isDisabled());
  assert.is(await page.locator('form.lead').count(), 0);
  assert.is(await page.evaluate(() => (window as any).__frames.filter((f: any) => f.t === 'lead_form').length), 0);
});

test.run();
