import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { startFakeMcpHttp, type FakeMcpHttp } from '../fakes/mcp-server.js';
import { addMember, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver } from '../tools/helpers.js';
import { expectAxeClean, screenshots } from './axe.js';
import { signIn, startAdminBrowser, type AdminBrowser } from './world.js';

const SHOTS = '/tmp/shots/admin-build';
const STDIO_SCRIPT = fileURLToPath(new URL('../fakes/mcp-stdio-server.ts', import.meta.url));
let server: TestServer;
let owner: TestSession;
let viewer: TestSession;
let mcp: FakeMcpHttp;
let api: Awaited<ReturnType<typeof startReceiver>>;
let b: AdminBrowser;
let page: Page;

test.before(async () => {
  [server, mcp, api] = await Promise.all([startTestServer({ env: { MCP_STDIO_COMMANDS: `${process.execPath},/nonexistent/program` } }), startFakeMcpHttp(), startReceiver()]);
  owner = await setupOwner(server);
  viewer = await addMember(server, owner, 'viewer', { name: 'Vera Viewer' });
  b = await startAdminBrowser(server);
  page = await b.open('tools');
  await signIn(page, owner.email);
});
test.after(async () => {
  await b?.close();
  await server?.stop();
  await mcp?.close();
  await api?.close();
});

test('with no tools the page says what an HTTP tool is for', async () => {
  await page.locator('.empty-state', { hasText: 'No HTTP tools yet' }).waitFor();
  await expectAxeClean(page, 'tools (empty)');
  await screenshots(page, SHOTS, 'tools-empty');
});

test('a secret is stored by name, its value replaced, and never shown', async () => {
  await page.click('a.tab:has-text("Secrets")');
  await page.locator('.empty-state', { hasText: 'No secrets yet' }).waitFor();
  await page.fill('form[name="set-secret"] input[name="name"]', 'ORDERS_KEY');
  await page.fill('form[name="set-secret"] input[name="value"]', 'first-value-123');
  await page.click('form[name="set-secret"] button[type="submit"]');
  await page.locator('table.secrets td', { hasText: 'ORDERS_KEY' }).waitFor();
  await page.click('table.secrets button:has-text("Replace value")');
  await page.fill('form[name="replace-secret"] input[name="value"]', 'sk-orders-456');
  await page.click('form[name="replace-secret"] button[type="submit"]');
  await page.locator('form[name="replace-secret"]').waitFor({ state: 'detached' });
  assert.not.match(await page.content(), 'sk-orders-456');
  await expectAxeClean(page, 'secrets');
  await screenshots(page, SHOTS, 'tools-secrets');
});

test('an HTTP tool is added, and a test run shows the request made and the answer', async () => {
  await page.click('a.tab:has-text("HTTP tools")');
  await page.click('button:has-text("Add an HTTP tool")');
  const form = page.locator('form[name="add-http-tool"]');
  await form.locator('input[name="name"]').fill('lookup_order');
  await form.locator('textarea[name="description"]').fill('Looks up an order by its number.');
  await form.locator('input[name="url"]').fill(`${api.url}/orders/{{args.orderId}}`);
  await form.locator('textarea[name="headers"]').fill('Authorization: Bearer {{secrets.ORDERS_KEY}}');
  await form.locator('button[type="submit"]').click();
  const row = page.locator('.http-tool[data-name="lookup_order"]');
  await row.waitFor();

  await row.locator('button:has-text("Test")').click();
  await row.locator('textarea[name="arguments"]').fill('{ "orderId": "A-17" }');
  await row.locator('form[name="test-http-tool"] button[type="submit"]').click();
  await row.locator('.test-result').waitFor();
  const result = await row.locator('.test-result').textContent() ?? '';
  assert.match(result, `GET ${api.url}/orders/A-17`);
  assert.match(result, /Response\s*200 in \d+ ms/);
  assert.match(result, '"url": "/orders/A-17"');
  assert.match(result, 'Authorization: Bearer ••••');
  // The secret went to the API; the page shows neither it nor its value.
  assert.is(api.received.at(-1)?.headers.authorization, 'Bearer sk-orders-456');
  assert.not.match(await page.content(), 'sk-orders-456');
  await expectAxeClean(page, 'HTTP tool test run');
  await screenshots(page, SHOTS, 'tools-http-test');
});

test('arguments that are not JSON and a URL the API refuses are explained', async () => {
  const row = page.locator('.http-tool[data-name="lookup_order"]');
  await row.locator('textarea[name="arguments"]').fill('{ orderId: A-17 }');
  await row.locator('form[name="test-http-tool"] button[type="submit"]').click();
  assert.match(await row.locator('form[name="test-http-tool"] .error').textContent() ?? '', 'Arguments: not valid JSON');
  await row.locator('button:has-text("Edit")').click();
  await row.locator('form[name="edit-http-tool"] input[name="url"]').fill('https://{{args.host}}/x');
  await row.locator('form[name="edit-http-tool"] button[type="submit"]').click();
  // At the URL field, in the API's words without the path in front; no banner repeats it.
  const urlField = row.locator('form[name="edit-http-tool"] .field.has-error', { has: page.locator('input[name="url"]') });
  assert.match(await urlField.locator('.field-error').textContent() ?? '', /host/);
  assert.is(await row.locator('form[name="edit-http-tool"] p.error').count(), 0);
  await screenshots(page, SHOTS, 'http-tool-url-error');
  await row.locator('form[name="edit-http-tool"] input[name="url"]').fill(`${api.url}/v2/orders/{{args.orderId}}`);
  await row.locator('form[name="edit-http-tool"] button[type="submit"]').click();
  await row.locator('form[name="edit-http-tool"]').waitFor({ state: 'detached' });
  await row.locator('text=/v2/orders/').waitFor();
});

test('an HTTP tool is deleted after a confirmation', async () => {
  const made = await server.request('POST', '/api/v1/tools/http', { body: { name: 'old_tool', description: 'No longer used.', url: `${api.url}/old` }, headers: owner.headers });
  assert.is(made.status, 201);
  await page.reload();
  const row = page.locator('.http-tool[data-name="old_tool"]');
  await row.locator('button:has-text("Delete")').click();
  await page.click('dialog[open] button:has-text("Delete")');
  await row.waitFor({ state: 'detached' });
  const left = await server.request('GET', '/api/v1/tools/http', { headers: owner.headers });
  assert.equal(left.body.items.map((t: any) => t.name), ['lookup_order']);
});

test('an MCP server lists its tools with destructive ones marked; refresh finds new tools; a tool is test-called', async () => {
  await page.click('a.tab:has-text("MCP servers")');
  await page.locator('.empty-state', { hasText: 'No MCP servers yet' }).waitFor();
  await page.click('button:has-text("Connect an MCP server")');
  await page.fill('form[name="add-mcp"] input[name="name"]', 'Orders CRM');
  await page.fill('form[name="add-mcp"] input[name="url"]', mcp.url);
  await page.click('form[name="add-mcp"] button[type="submit"]');
  const row = page.locator('.mcp-server[data-name="Orders CRM"]');
  await row.locator('.mcp-tool[data-tool="echo"]').waitFor();
  assert.match(await row.locator('.mcp-tool[data-tool="delete_item"]').textContent() ?? '', 'destructive');
  assert.not.match(await row.locator('.mcp-tool[data-tool="echo"]').textContent() ?? '', 'destructive');

  mcp.addTool('count_orders');
  await row.locator('button:has-text("Refresh tools")').click();
  await row.locator('.mcp-tool[data-tool="count_orders"]').waitFor();
  assert.match(await row.locator('[role="status"]').textContent() ?? '', 'Found 5 tools.');

  await row.locator('button:has-text("Test a tool")').click();
  await row.locator('select[name="tool"]').selectOption('echo');
  assert.match(await row.locator('textarea[name="arguments"]').inputValue(), '"text": ""');
  await row.locator('textarea[name="arguments"]').fill('{ "text": "hello there" }');
  await row.locator('form[name="test-mcp-tool"] button[type="submit"]').click();
  await row.locator('.test-result').waitFor();
  assert.match(await row.locator('.test-result').textContent() ?? '', 'echo: hello there');
  assert.equal(mcp.state.calls.at(-1), { name: 'echo', args: { text: 'hello there' } });
  await expectAxeClean(page, 'MCP servers');
  await screenshots(page, SHOTS, 'tools-mcp');
});

test('a program on this server is connected as an MCP server with its environment; a command that cannot start shows why', async () => {
  await page.click('button:has-text("Connect an MCP server")');
  const form = page.locator('form[name="add-mcp"]');
  await form.locator('input[name="name"]').fill('Local files');
  await form.locator('select[name="transport"]').selectOption('stdio');
  await form.locator('input[name="command"]').fill('/nonexistent/program');
  await form.locator('button[type="submit"]').click();
  await form.locator('.error').waitFor();
  assert.ok((await form.locator('.error').textContent() ?? '').length > 10);
  await form.locator('input[name="command"]').fill(process.execPath);
  await form.locator('textarea[name="args"]').fill(['--import', 'tsx', STDIO_SCRIPT].join('\n'));
  await form.locator('textarea[name="env"]').fill('REGION=eu');
  await form.locator('button[type="submit"]').click();
  const row = page.locator('.mcp-server[data-name="Local files"]');
  await row.locator('.mcp-tool[data-tool="echo"]').waitFor({ timeout: 20_000 });
  assert.match(await row.locator('.row-meta').first().textContent() ?? '', 'with REGION');
  assert.not.match(await page.content(), 'REGION=eu');
});

test('a viewer sees the tools and MCP servers but no actions and no secrets', async () => {
  const v = await b.open('tools');
  await signIn(v, viewer.email);
  await v.locator('.http-tool[data-name="lookup_order"]').waitFor();
  assert.is(await v.locator('a.tab:has-text("Secrets")').count(), 0);
  assert.is(await v.locator('main button').count(), 0);
  await v.click('a.tab:has-text("MCP servers")');
  await v.locator('.mcp-tool[data-tool="delete_item"]').first().waitFor();
  assert.is(await v.locator('main button').count(), 0);
  await expectAxeClean(v, 'tools (viewer)');
});

test('no page threw or broke the content security policy', () => {
  assert.equal(b.errors, []);
});

test.run();
