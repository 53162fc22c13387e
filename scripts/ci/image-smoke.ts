/**
 * The production image's smoke test, without Docker: the Dockerfile's steps have been run in a folder (npm ci from
 * the lockfile, npm run build, npm prune --omit=dev); this starts that folder's server with the image's command and
 * environment as an unprivileged user, waits for /readyz, loads /admin/ in Chromium (the setup form must show),
 * then sets up a workspace and a bot on a loopback fake provider and chats through the widget on another origin.
 * Usage (from a checkout with dev dependencies): tsx scripts/ci/image-smoke.ts IMAGE_DIR [USER]
 * Prints `N passed, N failed` like the test runner and exits non-zero on any failure.
 */
import { spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { startFakeOpenAI } from '../../test/fakes/openai.js';

const [imageDir, user = 'node'] = process.argv.slice(2);
if (!imageDir) { process.stderr.write('usage: image-smoke.ts IMAGE_DIR [USER]\n'); process.exit(2); }

const freePort = () => new Promise<number>((resolve) => { const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address() as AddressInfo; s.close(() => resolve(port)); }); });
const until = async (what: string, check: () => Promise<boolean>, ms = 60_000) => {
  const end = Date.now() + ms;
  while (Date.now() < end) { if (await check().catch(() => false)) return; await new Promise((r) => setTimeout(r, 200)); }
  throw new Error(`timed out waiting for ${what}`);
};

let passed = 0, failed = 0;
async function step(name: string, fn: () => Promise<void>) {
  try { await fn(); passed++; process.stdout.write(`ok   ${name}\n`); }
  catch (e) { failed++; process.stdout.write(`FAIL ${name}: ${(e as Error).message}\n`); throw e; }
}

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const dataDir = mkdtempSync(join(tmpdir(), 'image-data-'));
const uid = Number(execFileSync('id', ['-u', user]).toString().trim());
const gid = Number(execFileSync('id', ['-g', user]).toString().trim());
chownSync(dataDir, uid, gid);
const fake = await startFakeOpenAI();
// The image's CMD and ENV (Dockerfile), as the image's user.
const server = spawn(process.execPath, ['--max-semi-space-size=4', 'dist/src/main.js'], {
  cwd: imageDir, uid, gid, stdio: ['ignore', 'pipe', 'pipe'],
  env: { PATH: process.env.PATH, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ALLOW_PRIVATE_NETWORK: 'true' },
});
let log = '';
server.stdout.on('data', (d) => (log += d));
server.stderr.on('data', (d) => (log += d));
const site = createHttpServer((_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(pageHtml); });
let pageHtml = '';
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });

try {
  await step('the server answers /readyz', () => until('/readyz', async () => (await fetch(`${base}/readyz`)).status === 200));
  await step('/admin/ shows the setup form', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/admin/`);
    await page.getByRole('heading', { name: /set up this server/i }).waitFor({ timeout: 15_000 });
    await page.close();
  });
  let botId = '';
  await step('a workspace and a bot are set up through the API', async () => {
    const setup = await fetch(`${base}/api/v1/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@example.com', password: 'correct horse battery staple', name: 'Olivia', workspaceName: 'Smoke' }) });
    if (setup.status !== 201) throw new Error(`setup answered ${setup.status}`);
    const body = await setup.json() as { csrfToken: string };
    const headers = { 'content-type': 'application/json', cookie: (setup.headers.get('set-cookie') ?? '').split(';')[0], 'x-csrf-token': body.csrfToken };
    const call = async (method: string, path: string, json?: unknown) => {
      const r = await fetch(`${base}/api/v1${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
      if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${await r.text()}`);
      return r.json() as Promise<any>;
    };
    const provider = await call('POST', '/providers', { kind: 'openai', name: 'Fake', apiKey: fake.apiKey, baseUrl: fake.baseUrl });
    const bot = await call('POST', '/bots', { name: 'Smoke bot' });
    const edited = await call('PATCH', `/bots/${bot.id}`, { revision: bot.revision, patch: { brain: { connectionId: provider.id, model: 'gpt-4o-mini' } } });
    await call('POST', `/bots/${bot.id}/publish`, { revision: edited.revision });
    botId = bot.id;
  });
  await step('the widget on another origin answers a visitor', async () => {
    pageHtml = `<!doctype html><meta charset="utf-8"><title>Shop</title><h1>Shop</h1><script src="${base}/static/widget/loader.js" data-bot-id="${botId}" async></script>`;
    fake.script({ text: 'Hello from the image.' });
    const page = await browser.newPage();
    await page.goto(siteUrl);
    await page.locator('[data-service-chat] button.l').click({ timeout: 15_000 });
    const box = page.locator('[data-service-chat] .cp textarea');
    await box.fill('Hi there');
    await box.press('Enter');
    await page.locator('[data-service-chat] .m', { hasText: 'Hello from the image.' }).waitFor({ timeout: 15_000 });
    await page.close();
  });
} catch {
  process.stdout.write(log.split('\n').slice(-40).map((l) => `    ${l}`).join('\n') + '\n');
} finally {
  await browser.close();
  server.kill('SIGTERM');
  await new Promise((r) => server.once('close', r));
  site.close();
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
}
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);
