/**
 * The inbox with two people at once: a visitor in the real widget on a host page, an agent in the panel. The
 * handoff request arrives (queue, unread count, sound, notification), the agent takes over, types and replies
 * (the visitor sees both), adds a note (the visitor never gets it), tags, exports, hands back and closes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { quietFor, until } from '../helpers/until.js';
import type { Page } from 'playwright-core';
import { framesOf, startWidgetWorld, type WidgetWorld } from '../widget/world.js';
import { newId } from '../../src/store/ids.js';
import { addMember } from '../helpers/auth.js';
import { expectAxeClean, screenshots } from './axe.js';
import { signIn } from './world.js';

const SHOTS = '/tmp/shots/admin-inbox';
// Counts the beeps (oscillators started) and the browser notifications the panel makes.
const RECORD_ALERTS = `(() => {
  window.__beeps = 0; window.__notes = [];
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...a) { window.__beeps++; return start.apply(this, a); };
  const N = window.Notification;
  window.Notification = class extends N { constructor(title, opts) { super(title, opts); window.__notes.push({ title, body: opts && opts.body }); } };
  window.Notification.requestPermission = N.requestPermission.bind(N);
  Object.defineProperty(window.Notification, 'permission', { get: () => N.permission });
})();`;

let w: WidgetWorld;
let agent: Page;
let visitor: Page;
let conversationId = '';
let botId = '';
let richId = '';
let alex: Awaited<ReturnType<typeof addMember>>;
const errors: string[] = [];

test.before(async () => {
  w = await startWidgetWorld();
  botId = await w.createBot({ behavior: { handoff: { enabled: true } } });
  agent = await w.newPage({ width: 1280, height: 800 }, { permissions: ['notifications'] });
  await agent.context().addInitScript(RECORD_ALERTS);
  agent.on('pageerror', (e) => errors.push(e.message));
  agent.on('console', (m) => { if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(m.text()); });
  await agent.goto(`${w.server.url}/admin/#/inbox`);
  await signIn(agent, w.owner.email);
  visitor = await w.newPage();
  await visitor.goto(w.page('/shop', w.embed(botId)));
});
test.after(async () => { await w?.close(); });

test('an empty inbox says what will appear and the agent is online', async () => {
  await agent.locator('.inbox .empty-state', { hasText: 'No open conversations' }).waitFor();
  assert.is(await agent.locator('select[name="presence"]').inputValue(), 'online');
  await agent.locator('.inbox-none', { hasText: 'Pick a conversation' }).waitFor();
  await expectAxeClean(agent, 'the empty inbox');
  await screenshots(agent, SHOTS, 'empty');
});

test("a visitor's request for a person arrives in the queue with an unread count, a sound and a notification", async () => {
  await visitor.click('button.l');
  w.fake.script([
    { toolCalls: [{ name: 'handoff_to_human', arguments: { reason: 'Refund over the limit' } }] },
    { text: 'I have **asked** a colleague to [help](https://example.com/help).' },
  ]);
  await visitor.fill('.cp textarea', 'I want a refund of 900 EUR');
  await visitor.press('.cp textarea', 'Enter');
  await visitor.locator('.m.assistant', { hasText: 'asked a colleague' }).waitFor();

  // The list's preview is the reply's words, not its Markdown.
  await agent.locator(`.conv .conv-line`, { hasText: 'AI: I have asked a colleague to help.' }).waitFor();
  const queued = agent.locator('.queue li', { hasText: 'Refund over the limit' });
  await queued.waitFor();
  conversationId = (await agent.locator('.conv').first().getAttribute('data-id'))!;
  assert.ok(Number(await agent.locator(`.conv[data-id="${conversationId}"] .unread-count`).textContent()) >= 2);
  assert.match(await agent.locator('#filter-waiting .count').textContent() ?? '', '1');
  assert.match(await agent.title(), /^\(\d+\) Inbox$/);
  await agent.waitForFunction(() => (window as any).__beeps > 0);
  const notes = await agent.evaluate(() => (window as any).__notes);
  assert.is(notes.length, 1);
  assert.match(notes[0].title, 'is waiting for a person');
  assert.is(notes[0].body, 'Refund over the limit');
  await screenshots(agent, SHOTS, 'queue');

  // The waiting state and the last message come from the server, so a reload keeps the queue and the preview.
  await agent.reload();
  await agent.locator('.queue li', { hasText: 'Refund over the limit' }).waitFor();
  await agent.locator(`.conv[data-id="${conversationId}"] .conv-line`, { hasText: 'AI: I have asked a colleague to help.' }).waitFor();
});

test('the agent opens it, sees the tool call, and takes it over; the visitor is told', async () => {
  await agent.locator(`.conv[data-id="${conversationId}"] a`).click();
  await agent.locator('.inbox-thread .msg.user', { hasText: 'I want a refund' }).waitFor();
  await agent.locator('.tool-call summary', { hasText: 'handoff_to_human' }).waitFor();
  assert.is(await agent.locator(`.conv[data-id="${conversationId}"] .unread-count`).count(), 0);
  await agent.locator('.handoff-card', { hasText: 'Refund over the limit' }).waitFor();
  await agent.click('.thread-actions button:has-text("Take over")');
  await agent.locator('.taken-over', { hasText: 'You are answering' }).waitFor();
  // At 1280x800 the note that says so leaves the composer's Send button visible and clickable.
  const note = await agent.locator('.toast').first().boundingBox();
  const send = await agent.locator('form[name="reply"] button[type="submit"]').boundingBox();
  assert.ok(note && send, 'a note and the Send button');
  const overlaps = note!.x < send!.x + send!.width && send!.x < note!.x + note!.width && note!.y < send!.y + send!.height && send!.y < note!.y + note!.height;
  assert.not.ok(overlaps, `the note ${JSON.stringify(note)} covers the Send button ${JSON.stringify(send)}`);
  await agent.screenshot({ path: `${SHOTS}/taken-over-note.png` });
  await agent.locator('.queue').waitFor({ state: 'detached' });
  await visitor.locator('[data-role="system_event"], .line', { hasText: 'joined the conversation' }).first().waitFor();
});

test('typing and a reply reach the visitor; an internal note does not', async () => {
  const box = agent.locator('form[name="reply"] textarea');
  await box.click();
  await box.pressSequentially('Hello, this is Olivia');
  await visitor.waitForFunction(() => (window as any).__frames.some((f: any) => f.t === 'typing' && f.active));
  await box.press('Enter');
  await visitor.locator('[data-role="human_agent"]', { hasText: 'Hello, this is Olivia' }).waitFor();
  await agent.locator('.inbox-thread .msg.human_agent', { hasText: 'Hello, this is Olivia' }).waitFor();

  await agent.locator('form[name="reply"] label', { hasText: 'Internal note' }).click();
  await box.fill('Customer since 2019, approve the refund');
  await agent.click('form[name="reply"] button[type="submit"]');
  await agent.locator('.msg.internal', { hasText: 'approve the refund' }).waitFor();
  await quietFor(300, 'the internal note reaching the visitor'); // must not: notes stay with the team
  const seen = (await framesOf(visitor, 'message')).map((f) => f.message.text);
  assert.not.ok(seen.some((t: string) => t.includes('approve the refund')), 'the visitor got the internal note');
  assert.is(await visitor.getByText('approve the refund').count(), 0);
});

test('what the visitor writes next appears in the open transcript without a reload', async () => {
  await visitor.locator('.cp textarea').pressSequentially('Thank you, Olivia!');
  await agent.locator('.visitor-typing', { hasText: 'is typing' }).waitFor();
  await visitor.press('.cp textarea', 'Enter');
  await agent.locator('.inbox-thread .msg.user', { hasText: 'Thank you, Olivia!' }).waitFor();
  await expectAxeClean(agent, 'the inbox with a conversation open');
  await screenshots(agent, SHOTS, 'conversation');
});

test('tags are added and removed, and the list shows them', async () => {
  await agent.fill('form[name="tags"] input', 'refund, vip');
  await agent.press('form[name="tags"] input', 'Enter');
  await agent.locator(`.conv[data-id="${conversationId}"] .badge.tag`, { hasText: '#vip' }).waitFor();
  await agent.click('button[aria-label="Remove tag vip"]');
  await agent.locator(`.conv[data-id="${conversationId}"] .badge.tag`, { hasText: '#vip' }).waitFor({ state: 'detached' });
  const r = await w.server.request('GET', `/api/v1/conversations/${conversationId}`, { headers: w.owner.headers });
  assert.equal(r.body.tags, ['refund']);
});

test('the transcript exports as Markdown', async () => {
  const [download] = await Promise.all([agent.waitForEvent('download'), agent.click('.inbox-details a:has-text("Markdown")')]);
  assert.is(download.suggestedFilename(), `${conversationId}.md`);
  const { readFileSync } = await import('node:fs');
  const text = readFileSync((await download.path())!, 'utf8');
  assert.match(text, 'I want a refund of 900 EUR');
  assert.match(text, 'Hello, this is Olivia');
});

test('handing back to the AI and closing end up under Ended', async () => {
  await agent.click('button:has-text("Hand back to the AI")');
  await agent.locator('.taken-over', { hasText: 'the AI is answering' }).waitFor();
  await agent.click('.thread-actions button:has-text("Close")');
  await agent.click('dialog button:has-text("Close conversation")');
  await agent.locator('.thread-title .badge', { hasText: 'ended' }).waitFor();
  assert.is(await agent.locator('form[name="reply"] input[value="reply"]').isDisabled(), true);
  await agent.click('#filter-ended');
  await agent.locator(`.conv[data-id="${conversationId}"]`).waitFor();
  await agent.locator('#filter-ended').press('ArrowLeft');
  assert.is(await agent.locator('#filter-mine').getAttribute('aria-selected'), 'true');
  assert.is(await agent.evaluate(() => document.activeElement?.id), 'filter-mine');
});

test('presence set to away is what the team sees', async () => {
  await agent.selectOption('select[name="presence"]', 'away');
  await agent.locator('.presence-bar .dot.away').waitFor();
  await until(async () => (await w.server.request('GET', '/api/v1/members', { headers: w.owner.headers })).body.items[0].presence === 'away', { interval: 100, message: 'the member listed as away' });
  await agent.selectOption('select[name="presence"]', 'online');
});

test('at 390 px one pane shows at a time: list, conversation, details', async () => {
  await agent.setViewportSize({ width: 390, height: 844 });
  await agent.goto(`${w.server.url}/admin/#/inbox`);
  await agent.click('#filter-ended');
  await agent.locator('.inbox-list').waitFor();
  assert.is(await agent.locator('.inbox-thread').isVisible(), false);
  await agent.waitForTimeout(300); // the folded menu's slide-out
  await agent.screenshot({ path: `${SHOTS}/phone-list.png` });
  await agent.locator(`.conv[data-id="${conversationId}"] a`).click();
  await agent.locator('.inbox-thread .msg.user').first().waitFor();
  assert.is(await agent.locator('.inbox-list').isVisible(), false);
  await agent.screenshot({ path: `${SHOTS}/phone-thread.png` });
  await agent.click('button.details-toggle');
  await agent.locator('.inbox-details').waitFor({ state: 'visible' });
  assert.is(await agent.locator('.inbox-thread').isVisible(), false);
  await agent.screenshot({ path: `${SHOTS}/phone-details.png` });
  // The shell's top bar is helper A's (admin/src/nav.tsx); this test checks the inbox's panes.
  await expectAxeClean(agent, 'the inbox details at 390 px');
  await agent.click('.inbox-details .back-pane');
  await agent.locator('.inbox-thread').waitFor({ state: 'visible' });
  await agent.click('.thread-head a.back-pane');
  await agent.locator('.inbox-list').waitFor({ state: 'visible' });
  await agent.setViewportSize({ width: 1280, height: 800 });
});

test('keyboard only: a filter, a conversation from the list, and a note sent with Enter', async () => {
  await agent.goto(`${w.server.url}/admin/#/inbox`);
  await agent.locator('#filter-ended').click();
  await agent.locator('#filter-ended').focus();
  await agent.keyboard.press('Tab');
  assert.match(await agent.evaluate(() => document.activeElement?.closest('.conv')?.getAttribute('data-id') ?? ''), conversationId);
  await agent.keyboard.press('Enter');
  await agent.waitForFunction((id) => location.hash === `#/inbox/${id}`, conversationId);
  await agent.locator('.inbox-thread .msg.user').first().waitFor();
  for (let i = 0; i < 30; i++) {
    if (await agent.evaluate(() => document.activeElement?.tagName === 'TEXTAREA')) break;
    await agent.keyboard.press('Tab');
  }
  assert.ok(await agent.evaluate(() => document.activeElement?.tagName === 'TEXTAREA'), 'the composer is reachable with Tab');
  await agent.keyboard.type('Noted from the keyboard');
  await agent.keyboard.press('Enter');
  await agent.locator('.msg.internal', { hasText: 'Noted from the keyboard' }).waitFor();
});

test('with two bots the list can show one bot only', async () => {
  const other = await w.createBot({ behavior: { handoff: { enabled: true } } });
  await agent.goto(`${w.server.url}/admin/#/inbox`);
  await agent.locator('#filter-ended').click();
  await agent.locator(`.conv[data-id="${conversationId}"]`).waitFor();
  const options = await agent.locator('select[name="bot"] option').allTextContents();
  assert.is(options.length, 3);
  await agent.selectOption('select[name="bot"]', other);
  await agent.locator('.inbox .empty-state', { hasText: 'No ended conversations' }).waitFor();
  await agent.selectOption('select[name="bot"]', botId);
  await agent.locator(`.conv[data-id="${conversationId}"]`).waitFor();
});

test('the old addresses lead to the inbox', async () => {
  await agent.goto(`${w.server.url}/admin/#/conversations/${conversationId}`);
  await agent.waitForFunction((id) => location.hash === `#/inbox/${id}`, conversationId);
  await agent.goto(`${w.server.url}/admin/#/live`);
  await agent.waitForFunction(() => location.hash === '#/inbox');
});

test('a viewer reads the conversation and is offered no action', async () => {
  const viewer = await addMember(w.server, w.owner, 'viewer', { name: 'Vera Viewer' });
  const v = await w.newPage();
  v.on('pageerror', (e) => errors.push(e.message));
  await v.goto(`${w.server.url}/admin/#/inbox/${conversationId}`);
  await signIn(v, viewer.email);
  await v.locator('.inbox-thread .msg.user', { hasText: 'I want a refund' }).waitFor();
  assert.is(await v.locator('form[name="reply"], .thread-actions button:not(.details-toggle), form[name="tags"], select[name="presence"]').count(), 0);
  await v.locator('.inbox-details a', { hasText: 'Markdown' }).waitFor();
  assert.is(await v.locator('.inbox-details button:has-text("Delete")').count(), 0);
  await v.context().close();
});

test('a transcript shows voice turns, images, the sources a reply cited and ratings', async () => {
  const { app } = w.server;
  const ws = w.owner.workspaceId;
  const id = newId('conv');
  const now = Date.now();
  await app.store.collection('conversations').insertOne({
    _id: id, workspaceId: ws, botId, visitorId: 'vis_rich0001', verified: true, status: 'open', endReason: null, tags: ['voice'], takenOverBy: null,
    configVersion: 1, prompt: { instructions: '', guardrails: '' }, page: { url: 'https://shop.example/help', title: 'Help centre' }, summary: null, nextSeq: 3,
    messageCount: 3, costUsd: 0.0123, ip: '', createdAt: now - 60_000, updatedAt: now, lastMessageAt: now, idleEndsAt: null, endedAt: null, csat: 5,
  } as any);
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const imgId = newId('att');
  await app.store.files.put(imgId, png, { workspaceId: ws, contentType: 'image/png', size: png.length, kind: 'chat-attachment' });
  await app.store.collection('attachments').insertOne({ _id: imgId, workspaceId: ws, botId, visitorId: 'vis_rich0001', conversationId: id, mimeType: 'image/png', width: 1, height: 1, size: png.length, createdAt: now } as any);
  const msg = (seq: number, role: string, text: string, extra: object = {}) => ({
    _id: newId('msg'), workspaceId: ws, conversationId: id, botId, seq, role, text, modality: 'text', createdAt: now - 50_000 + seq * 1000, authorName: null, visibility: 'visible', attachments: [], ...extra,
  });
  const reply = msg(2, 'assistant', 'Returns are free within 30 days.', { modality: 'voice', citations: [{ title: 'Returns policy', url: 'https://shop.example/returns', sourceId: 'ks_1' }] });
  await app.store.collection('messages').insertMany([
    msg(0, 'user', 'Here is the broken part', { attachments: [{ id: imgId, mimeType: 'image/png', width: 1, height: 1 }] }),
    msg(1, 'user', 'Can I return it?', { modality: 'voice' }),
    reply,
  ] as any);
  // Camera pictures shared with the team: one the agent took with look_at_camera, one from the live view.
  const [shotId, liveId] = [newId('att'), newId('att')];
  for (const att of [shotId, liveId]) {
    await app.store.files.put(att, png, { workspaceId: ws, contentType: 'image/png', size: png.length, kind: 'chat-attachment' });
    await app.store.collection('attachments').insertOne({ _id: att, workspaceId: ws, botId, visitorId: 'vis_rich0001', conversationId: id, mimeType: 'image/png', width: 1, height: 1, size: png.length, createdAt: now, camera: { shared: true } } as any);
  }
  await app.store.collection('tool_calls').insertOne({
    _id: newId('tc'), workspaceId: ws, conversationId: id, botId, messageId: reply._id, round: 0, name: 'look_at_camera', arguments: '{}', result: 'picture taken',
    isError: false, durationMs: 40, createdAt: now - 49_000, attachments: [{ id: shotId, mimeType: 'image/png', width: 1, height: 1 }],
  } as any);
  await app.store.collection('leads').insertOne({ _id: newId('lead'), workspaceId: ws, botId, conversationId: id, visitorId: 'vis_rich0001', fields: { name: 'Grace Hopper', email: 'grace@example.com' }, status: 'new', source: 'tool', createdAt: now, updatedAt: now } as any);
  await app.store.collection('feedback').insertOne({ _id: newId('fb'), workspaceId: ws, botId, conversationId: id, messageId: reply._id, kind: 'thumb', value: 1, createdAt: now } as any);

  await agent.goto(`${w.server.url}/admin/#/inbox/${id}`);
  const voice = agent.locator('.msg.voice', { hasText: 'Can I return it?' });
  await voice.waitFor();
  assert.match(await voice.locator('.msg-meta').textContent() ?? '', 'voice');
  const img = agent.locator('.msg.user .attachments img');
  await img.waitFor();
  await agent.waitForFunction(() => (document.querySelector('.attachments img') as HTMLImageElement | null)?.naturalWidth === 1);
  await agent.locator('.msg.assistant .citations a', { hasText: 'Returns policy' }).waitFor();
  await agent.locator(`.msg.assistant .attachments a[href$="${shotId}"] img[alt^="Picture the agent took"]`).waitFor();
  await agent.locator(`.live-view a[href$="${liveId}"]`).waitFor();
  assert.match(await agent.locator('.live-view').textContent() ?? '', /Camera live view: 1 picture/);
  await agent.locator('.msg.assistant .rating', { hasText: 'Rated helpful' }).waitFor();
  await agent.locator('.inbox-details .badge', { hasText: 'verified' }).waitFor();
  // Who the visitor is comes from the lead they left.
  await agent.locator('.thread-title h2', { hasText: 'Grace Hopper' }).waitFor();
  await agent.locator('.inbox-details a[href="mailto:grace@example.com"]').waitFor();
  await expectAxeClean(agent, 'a transcript with voice, images and sources');
  await screenshots(agent, SHOTS, 'rich-transcript');
  richId = id;
});

test("a colleague's takeover shows at once: their name, and notes only for everyone else", async () => {
  alex = await addMember(w.server, w.owner, 'agent', { name: 'Alex Agent' });
  const took = await w.server.request('POST', `/api/v1/conversations/${richId}/takeover`, { body: {}, headers: alex.headers });
  assert.is(took.status, 200);
  await agent.locator('.taken-over', { hasText: 'Alex Agent is answering' }).waitFor();
  assert.is(await agent.locator('form[name="reply"] input[value="reply"]').isDisabled(), true);
  await agent.locator('.composer-hint', { hasText: 'Alex Agent is answering: notes only.' }).waitFor();
  // The server refuses a visible reply too, so the panel's notes-only state matches what it allows.
  const r = await w.server.request('POST', `/api/v1/conversations/${richId}/messages`, { body: { text: 'hi' }, headers: w.owner.headers });
  assert.is(r.status, 409);
  await w.server.request('POST', `/api/v1/conversations/${richId}/release`, { body: {}, headers: alex.headers });
  await agent.locator('.taken-over', { hasText: 'the AI is answering' }).waitFor();
});

test('news arriving as the agent follows a link away does not send them back to the inbox', async () => {
  // A link's click changes the address at once and announces it (hashchange) a moment later. Here the address
  // changes without the announcement, the inbox redraws for a colleague's takeover in between, then it comes.
  await agent.evaluate(() => history.replaceState(null, '', '#/leads'));
  assert.is((await w.server.request('POST', `/api/v1/conversations/${richId}/takeover`, { body: {}, headers: alex.headers })).status, 200);
  await agent.locator('.taken-over', { hasText: 'Alex Agent is answering' }).waitFor();
  await agent.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));
  assert.is(await agent.evaluate(() => location.hash), '#/leads', 'the inbox did not rewrite an address it was not drawn for');
  await agent.evaluate(() => dispatchEvent(new HashChangeEvent('hashchange')));
  await agent.locator('h1', { hasText: 'Leads' }).waitFor();
});

test('no page threw or broke the content security policy', () => {
  assert.equal(errors, []);
});

test.run();
