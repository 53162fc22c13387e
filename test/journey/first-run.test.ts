/**
 * The product as a site owner gets it, from an empty data folder to a visitor handed over to a person. The server is
 * the shipped build started as `npm start` starts it (node --max-semi-space-size=4 dist/src/main.js, a child process
 * with only PORT, HOST, DATA_DIR and ALLOW_PRIVATE_NETWORK set), and everything after that is done in Chromium where
 * a person would do it: the setup form, the provider (the fake OpenAI on loopback, as an OpenAI-compatible server),
 * the "Get started" steps, try it, the embed snippet pasted into a page of another origin, a visitor's chat, a
 * request for a person with the lead form, a teammate invited from the panel who takes over in the inbox and
 * replies, a webhook receiver registered in the panel that checks each signature as docs/webhooks.md says, and the
 * analytics page. Screenshots of every step go to test-results/journey/.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Frame, type Page } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import { built } from '../helpers/built.js';
import { freePort } from '../helpers/ports.js';
import { startReceiver } from '../tools/helpers.js';
import { CHROMIUM } from '../widget/world.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = join(root, 'test-results/journey');
const { verifyWebhook } = (await import(pathToFileURL(join(root, 'docs/examples/verify-webhook.mjs')).href)) as
  { verifyWebhook: (body: string, header: string, secret: string) => true };

let dataDir = '';
let server: ChildProcess | undefined;
let serverLog = '';
let adminUrl = '';
let origin = '';
let fake: FakeOpenAI;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let site: Server;
let siteUrl = '';
let sitePage = '';
let browser: Browser;
const contexts: BrowserContext[] = [];
let owner: Page;
let teammate: Page;
let visitor: Page;
const errors: string[] = [];
let botId = '';
let snippet = '';
let secret = '';
let inviteLink = '';
let shot = 0;
let failedAt = '';

/** Screenshot of this step at the page's size, numbered in journey order. */
async function snap(page: Page, name: string, fullPage = false): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${String(++shot).padStart(2, '0')}-${name}.png`), fullPage });
}

async function newPage(opts: { viewport?: { width: number; height: number }; clipboard?: boolean } = {}): Promise<Page> {
  const ctx = await browser.newContext({ viewport: opts.viewport ?? { width: 1280, height: 800 } });
  if (opts.clipboard) await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  contexts.push(ctx);
  const page = await ctx.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(`console: ${m.text()}`); });
  return page;
}

/** `npm start` without the build it runs first (npm test has built dist/): node with the start script's flags. */
async function startShippedServer(): Promise<void> {
  dataDir = mkdtempSync(join(tmpdir(), 'sc-journey-'));
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), PORT: String(await freePort()), HOST: '127.0.0.1', DATA_DIR: dataDir, ALLOW_PRIVATE_NETWORK: 'true' };
  server = spawn(process.execPath, ['--max-semi-space-size=4', 'dist/src/main.js'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stderr!.on('data', (d) => (serverLog += d));
  adminUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server printed no panel address within 60 s:\n${serverLog}`)), 60_000);
    server!.stdout!.on('data', (d) => {
      serverLog += d;
      const url = serverLog.match(/"msg":"admin panel: (http[^"]+)"/)?.[1];
      if (url) { clearTimeout(timer); resolve(url); }
    });
    server!.once('exit', (code) => { clearTimeout(timer); reject(new Error(`the server exited (${code}):\n${serverLog}`)); });
  });
  origin = new URL(adminUrl).origin;
}

test.before(async () => {
  const t0 = Date.now();
  try {
    built(); // says to run npm run build when dist/ is missing or stale
    rmSync(SHOTS, { recursive: true, force: true });
    mkdirSync(SHOTS, { recursive: true });
    // Each is kept as soon as it runs, so test.after stops whatever started even when another start failed.
    await Promise.all([
      startFakeOpenAI().then((f) => { fake = f; }),
      startReceiver().then((r) => { receiver = r; }),
      chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      }).then((b) => { browser = b; }),
      startShippedServer(),
      new Promise<void>((resolve) => {
        site = createServer((req, res) => {
          res.writeHead(req.url === '/' && sitePage ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
          res.end(req.url === '/' ? sitePage : 'not found');
        }).listen(0, '127.0.0.1', resolve);
      }),
    ]);
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    console.log(`  ${((Date.now() - t0) / 1000).toFixed(1)} s  the server, the fakes and Chromium started`);
  } catch (err) {
    // uvu drops an error thrown here without a word: say it, and let every step fail saying so.
    failedAt = `start-up: ${(err as Error).message}`;
    console.error(`\n  the journey could not start: ${(err as Error).message}\n`);
  }
});
test.after(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close();
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  await Promise.all([fake?.close(), receiver?.close(), site && new Promise((r) => { site.closeAllConnections(); site.close(r); })]);
});
process.once('exit', () => server?.kill('SIGKILL'));

/** Steps depend on the ones before: after a failure the rest stop at once instead of each waiting out its timeouts. */
function step(name: string, fn: () => Promise<void>): void {
  test(name, async () => {
    if (failedAt) throw new Error(`not run: the step "${failedAt}" failed`);
    const started = Date.now();
    try { await fn(); console.log(`  ${((Date.now() - started) / 1000).toFixed(1)} s  ${name}`); } catch (err) {
      failedAt = name;
      // What each person saw when it failed.
      for (const [who, page] of Object.entries({ owner, teammate, visitor })) await page?.screenshot({ path: join(SHOTS, `failed-${who}.png`) }).catch(() => {});
      throw err;
    }
  });
}

step('the printed address opens the panel, which asks to set up the server', async () => {
  assert.match(adminUrl, /^http:\/\/localhost:\d+\/admin\/$/);
  owner = await newPage({ clipboard: true });
  await owner.goto(adminUrl);
  await owner.locator('form[name="setup"]').waitFor();
  await snap(owner, 'setup');
  await owner.fill('form[name="setup"] input[name="workspaceName"]', 'Acme Bikes');
  await owner.fill('form[name="setup"] input[name="name"]', 'Olivia Owner');
  await owner.fill('form[name="setup"] input[name="email"]', 'olivia@acme.example');
  await owner.fill('form[name="setup"] input[name="password"]', 'correct horse battery');
  await owner.click('form[name="setup"] button[type="submit"]');
  await owner.locator('h1', { hasText: 'Set up your first bot' }).waitFor();
  await snap(owner, 'get-started');
});

step('an OpenAI-compatible server on loopback is connected, and its models are offered', async () => {
  await owner.click('button:has-text("Connect OpenAI-compatible server")');
  const form = owner.locator('form[name="connect"]');
  await form.locator('input[name="baseUrl"]').fill(fake.baseUrl);
  await form.locator('input[name="apiKey"]').fill(fake.apiKey);
  await snap(owner, 'connect-provider');
  await form.locator('button[type="submit"]').click();
  await owner.locator('select[name="model"] option', { hasText: 'gpt-4o-mini' }).first().waitFor({ state: 'attached' });
  await owner.locator('.notice', { hasText: 'Connected to' }).waitFor();
});

step('a bot from the customer-support template is created and published, and answers on the try-it step', async () => {
  await owner.selectOption('select[name="model"]', 'gpt-4o-mini');
  await owner.check('input[name="templateId"][value="customer-support"]');
  await owner.fill('input[name="businessName"]', 'Acme Bikes');
  await snap(owner, 'create-bot');
  await owner.click('form[name="create-bot"] button[type="submit"]');
  await owner.locator('h1', { hasText: 'is ready' }).waitFor();
  botId = owner.url().split('#/start/bot/')[1]!;
  const chat = await tryFrame(owner);
  assert.is(await chat.locator('.m.welcome').textContent(), "Hi! I'm Ava from Acme Bikes. What can I help you with?");
  fake.script({ text: 'I can answer questions about Acme Bikes.' });
  await chat.fill('.cp textarea', 'What can you do?');
  await chat.press('.cp textarea', 'Enter');
  await chat.locator('.m.assistant', { hasText: 'I can answer questions about Acme Bikes.' }).waitFor();
  await snap(owner, 'try-it');
});

step('the embed snippet is copied with its button and names this server and bot', async () => {
  await owner.locator('#embed').scrollIntoViewIfNeeded();
  await owner.locator('#embed button', { hasText: 'Copy snippet' }).first().click();
  await owner.locator('#embed button', { hasText: 'Copied' }).first().waitFor();
  snippet = await owner.evaluate(() => navigator.clipboard.readText());
  assert.match(snippet, `${origin}/static/widget/loader.js`);
  assert.match(snippet, `data-bot-id="${botId}"`);
  await snap(owner, 'embed-snippet');
});

step('opening hours are switched off in the bot settings and published, so people can take over at any hour', async () => {
  // The template opens for handoffs Monday to Friday, 09:00 to 17:00 UTC; this journey runs at any hour.
  await owner.goto(`${origin}/admin/#/bots/${botId}`);
  await owner.click('.groups a:has-text("Behaviour")');
  await owner.locator('[name="behavior.hours.enabled"]').uncheck();
  await owner.click('.save-bar button[type="submit"]');
  await owner.locator('.save-bar').waitFor({ state: 'detached' });
  await owner.click('button.publish');
  await owner.locator('.facts', { hasText: 'version 2' }).waitFor();
  await owner.locator('[name="behavior.hours.enabled"]').scrollIntoViewIfNeeded();
  await snap(owner, 'bot-settings-published');
});

step('a webhook endpoint is registered in the panel, and its signing secret is shown once', async () => {
  await owner.click('nav.nav a:has-text("Webhooks")');
  await owner.fill('form[name="add-webhook"] input[name="url"]', `${receiver.url}/acme-hooks`);
  await owner.click('form[name="add-webhook"] button[type="submit"]');
  secret = await owner.locator('input.webhook-secret').inputValue();
  assert.match(secret, /^whsec_/);
  await snap(owner, 'webhook-secret');
  await owner.click('.secret-once button:has-text("Done")');
});

step('a teammate is invited from the Team page, joins with the link in another browser and opens the inbox', async () => {
  await owner.click('nav.nav a:has-text("Team")');
  await owner.fill('form[name="invite"] input[name="email"]', 'sam@acme.example');
  await owner.click('form[name="invite"] button[type="submit"]');
  inviteLink = await owner.locator('input.invite-link').inputValue();
  assert.match(inviteLink, `${origin}/admin/#/invite/`);
  await snap(owner, 'team-invite');
  teammate = await newPage();
  await teammate.goto(inviteLink);
  await teammate.fill('form[name="accept"] input[name="name"]', 'Sam Support');
  await teammate.fill('form[name="accept"] input[name="password"]', 'another long password');
  await teammate.click('form[name="accept"] button[type="submit"]');
  await teammate.locator('nav.nav').waitFor();
  await teammate.click('nav.nav a:has-text("Inbox")');
  // The owner's conversation on the try-it step is there already.
  await teammate.locator('.conv', { hasText: 'I can answer questions about Acme Bikes.' }).waitFor();
  assert.is(await teammate.locator('select[name="presence"]').inputValue(), 'online');
  await snap(teammate, 'teammate-inbox');
});

step('on a page of another origin with the snippet pasted in, a visitor chats and the Markdown reply streams in', async () => {
  sitePage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme Bikes</title>
<style>body{font-family:Georgia,serif;background:#f6f3ec;margin:0;padding:32px 48px;color:#2b2b2b} h1{margin-top:0}</style></head>
<body><h1>Acme Bikes</h1><p>City bikes, repairs and rentals since 1998.</p>
${snippet}
</body></html>`;
  visitor = await newPage({ viewport: { width: 1200, height: 800 } });
  await visitor.goto(siteUrl);
  await visitor.click('button.l');
  await visitor.locator('.cp textarea').waitFor();
  fake.script({ text: 'We repair **every kind of bike**:\n\n- city bikes\n- e-bikes\n- folding bikes\n\nMost repairs take *one day*.', chunkIntervalMs: 60 });
  await visitor.fill('.cp textarea', 'Do you repair e-bikes?');
  await visitor.press('.cp textarea', 'Enter');
  const reply = visitor.locator('.m.assistant:not(.welcome)').last();
  await reply.locator('strong', { hasText: 'every kind of bike' }).waitFor();
  assert.not.match(await reply.textContent() ?? '', 'one day', 'the reply shows while it is written, not all at once');
  await reply.locator('em', { hasText: 'one day' }).waitFor();
  assert.equal(await reply.locator('li').allTextContents(), ['city bikes', 'e-bikes', 'folding bikes']);
  await snap(visitor, 'visitor-chat');
});

step('the visitor asks for a person from the chat menu and leaves their details in the form', async () => {
  await visitor.click('button.mb');
  await visitor.click('[role="menuitem"]:has-text("Talk to a person")');
  const form = visitor.locator('form.lead');
  await form.waitFor();
  await form.locator('input[name="name"]').fill('Vic Visitor');
  await form.locator('input[name="email"]').fill('vic@example.net');
  await snap(visitor, 'visitor-lead-form');
  await form.locator('button[type="submit"]').click();
  await visitor.locator('.line', { hasText: 'Thanks, we have your details.' }).waitFor();
  await visitor.locator('.line', { hasText: 'Asking a team member to join' }).waitFor();
  await snap(visitor, 'visitor-waiting');
});

step('the teammate sees the request in the inbox, takes over and replies; the visitor sees the reply', async () => {
  const waiting = teammate.locator('.queue li').first();
  await waiting.waitFor();
  await snap(teammate, 'teammate-queue');
  await teammate.locator('.conv a').first().click();
  await teammate.locator('.inbox-thread .msg.user', { hasText: 'Do you repair e-bikes?' }).waitFor();
  // The team reads the AI's reply as the visitor saw it: formatted, not as Markdown source.
  const ai = teammate.locator('.inbox-thread .msg.assistant', { hasText: 'every kind of bike' });
  await ai.locator('strong', { hasText: 'every kind of bike' }).waitFor();
  assert.equal(await ai.locator('li').allTextContents(), ['city bikes', 'e-bikes', 'folding bikes']);
  assert.not.match(await ai.textContent() ?? '', '**');
  await teammate.click('.thread-actions button:has-text("Take over")');
  await teammate.locator('.taken-over', { hasText: 'You are answering' }).waitFor();
  await visitor.locator('.line', { hasText: 'joined the conversation' }).first().waitFor();
  const box = teammate.locator('form[name="reply"] textarea');
  await box.fill('Hi Vic, Sam here. Bring the e-bike in tomorrow and we will look at it.');
  await box.press('Enter');
  await teammate.locator('.inbox-thread .msg.human_agent', { hasText: 'Sam here' }).waitFor();
  await visitor.locator('[data-role="human_agent"]', { hasText: 'Bring the e-bike in tomorrow' }).waitFor();
  await snap(teammate, 'teammate-reply');
  await snap(visitor, 'visitor-sees-reply');
});

step('the lead is in the Leads list', async () => {
  await owner.click('nav.nav a:has-text("Leads")');
  await owner.locator('tr', { hasText: 'vic@example.net' }).waitFor();
  await snap(owner, 'leads');
});

step('the webhook receiver got the signed events, each verified as docs/webhooks.md says', async () => {
  const want = ['conversation.started', 'message.created', 'lead.captured', 'handoff.requested', 'handoff.accepted'];
  const deadline = Date.now() + 10_000;
  const types = () => receiver.received.map((r) => String(r.headers['service-event']));
  while (want.some((t) => !types().includes(t)) && Date.now() < deadline) await receiver.nextRequest();
  assert.ok(want.every((t) => types().includes(t)), `received ${types().join(', ')}`);
  for (const r of receiver.received) {
    assert.is(r.url, '/acme-hooks');
    assert.ok(verifyWebhook(r.body, String(r.headers['service-signature']), secret), `${r.headers['service-event']} is signed with the secret the panel showed`);
    assert.is(JSON.parse(r.body).type, r.headers['service-event']);
  }
  const lead = JSON.parse(receiver.received.find((r) => r.headers['service-event'] === 'lead.captured')!.body);
  assert.is(lead.data.botId, botId);
  await owner.click('nav.nav a:has-text("Webhooks")');
  await owner.click('.endpoint a:has-text("Deliveries and settings")');
  await owner.locator('table.deliveries tr[data-state="delivered"]').first().waitFor();
  await snap(owner, 'webhook-deliveries');
});

step('the analytics page counts the conversations, the lead and the handoff taken over', async () => {
  await owner.click('nav.nav a:has-text("Analytics")');
  await owner.locator('.stats.totals').waitFor();
  const tile = (label: string) => owner.locator('.stat', { has: owner.locator(`dt:text-is("${label}")`) }).locator('dd');
  // Two conversations: the owner's on the try-it step and the visitor's.
  assert.match(await tile('Conversations').textContent() ?? '', /^2/);
  assert.match(await tile('Leads').textContent() ?? '', /^1/);
  assert.match(await tile('Handoffs').textContent() ?? '', /^1\s*1 taken over/);
  assert.match(await tile('Visitor messages').textContent() ?? '', /1 from the team/);
  await snap(owner, 'analytics', true);
  assert.equal(errors, [], 'no page threw or logged an error');
});

/** The try-it iframe's document once the widget drew its composer. */
async function tryFrame(p: Page): Promise<Frame> {
  const handle = await p.locator('iframe.try-frame').elementHandle();
  const frame = (await handle!.contentFrame())!;
  await frame.locator('.cp textarea').waitFor({ timeout: 15_000 });
  return frame;
}

test.run();
