import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM } from '../widget/world.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// The API reference (/api/docs) can make changes for a signed-in person: the document declares X-CSRF-Token, and the
// page fills it in from GET /me, so Swagger UI's "Try it out" sends it with the session cookie.
let server: TestServer;
let owner: TestSession;
let doc: any;
let browser: Browser;
test.before(async () => {
  server = await startTestServer();
  owner = await setupOwner(server);
  doc = (await server.request('GET', '/api/openapi.json')).body;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
});
test.after(async () => { await browser.close(); await server.stop(); });

test('the document declares the X-CSRF-Token header as a security scheme', () => {
  assert.equal(
    { type: doc.components.securitySchemes.csrf.type, in: doc.components.securitySchemes.csrf.in, name: doc.components.securitySchemes.csrf.name },
    { type: 'apiKey', in: 'header', name: 'X-CSRF-Token' },
  );
});

test('state-changing operations need the token with a session, reading ones and API tokens do not', () => {
  assert.equal(doc.paths['/api/v1/bots'].post.security, [{ bearer: ['bots:write'] }, { session: [], csrf: [] }]);
  assert.equal(doc.paths['/api/v1/bots'].get.security, [{ bearer: ['bots:read'] }, { session: [] }]);
  assert.equal(doc.paths['/api/v1/tokens'].post.security, [{ session: [], csrf: [] }]);
  assert.equal(doc.paths['/api/v1/auth/login'].post.security, []);
  assert.match(doc.paths['/api/v1/bots/{id}'].delete.description, /With a session, also send X-CSRF-Token\./);
});

test('a change sent with the session but without the token says where the token comes from', async () => {
  const r = await server.request('POST', '/api/v1/bots', { body: { name: 'No token' }, headers: { cookie: owner.cookie } });
  assert.is(r.status, 403);
  assert.equal(r.body.error, {
    code: 'csrf',
    message: "missing or wrong X-CSRF-Token header: a signed-in request that changes something sends the session's csrfToken (from the sign-in answer or GET /api/v1/me) in it",
  });
});

test('signed in, "Try it out" in the reference creates a bot', async () => {
  const context = await browser.newContext();
  try {
    const [name, value] = owner.cookie.split('=');
    await context.addCookies([{ name, value, url: server.url }]);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const sent: Array<Record<string, string>> = [];
    page.on('request', (r) => { if (r.method() === 'POST' && r.url().endsWith('/api/v1/bots')) sent.push(r.headers()); });
    await page.goto(`${server.url}/api/docs#/Bots/postBots`);
    const op = page.locator('#operations-Bots-postBots');
    await op.locator('.try-out__btn').click();
    // The token arrives from GET /me once the page has loaded; the Authorize button shows it as set.
    await page.locator('.auth-wrapper .authorize.locked').waitFor();
    await op.locator('textarea.body-param__text').fill(JSON.stringify({ name: 'From the reference' }));
    await op.locator('button.execute').click();
    await op.locator('.live-responses-table tbody .response-col_status').first().waitFor();
    assert.is((await op.locator('.live-responses-table tbody .response-col_status').first().innerText()).trim(), '201');
    assert.is(sent[0]?.['x-csrf-token'], owner.csrf);
    const bots = (await server.request('GET', '/api/v1/bots', { headers: owner.headers })).body.items.map((b: any) => b.name);
    assert.equal(bots, ['From the reference']);
  } finally {
    await context.close();
  }
});

test.run();
