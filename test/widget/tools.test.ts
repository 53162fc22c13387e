import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeMcpHttp, type FakeMcpHttp } from '../fakes/mcp-server.js';
import { framesOf, sentOf, startWidgetWorld, type WidgetWorld } from './world.js';

let w: WidgetWorld;
let mcp: FakeMcpHttp;
let botId: string;

// The host page registers its tool before the loader runs (the queue), as docs/widget.md shows.
const REGISTER = `<script>
window.ServiceChat = { q: [['registerTool', {
  name: 'get_cart',
  description: 'What is in the visitor\\'s shopping cart',
  parameters: { type: 'object', properties: { currency: { type: 'string' } }, required: ['currency'] },
  handler: (args) => { window.__cartAsked = args; return { items: ['blue widget', 'red widget'], total: 20, currency: args.currency }; },
}]] };
</script>`;

test.before(async () => {
  w = await startWidgetWorld();
  mcp = await startFakeMcpHttp();
  const r = await w.server.request('POST', '/api/v1/tools/mcp', { body: { name: 'Acme CRM', url: mcp.url }, headers: w.owner.headers });
  if (r.status !== 201) throw new Error(`POST /tools/mcp answered ${r.status}: ${JSON.stringify(r.body)}`);
  botId = await w.createBot({
    tools: { client: { enabled: true, allow: ['get_cart'] }, mcp: [{ serverId: r.body.id, allow: ['delete_item'], confirmDestructive: true }] },
  });
});
test.after(async () => { await w?.close(); await mcp?.close(); });

test("a page tool registered by the host page is run when the agent calls it, and its result reaches the model", async () => {
  const page = await w.openChat(botId, { path: '/cart', extra: REGISTER });
  await page.waitForFunction(() => (window as any).__sent.some((f: any) => f.t === 'tools'));
  const announced = (await sentOf(page, 'tools'))[0].tools;
  assert.equal(announced.map((t: any) => t.name), ['get_cart']);

  w.fake.script([
    { toolCalls: [{ name: 'get_cart', arguments: { currency: 'EUR' } }] },
    { text: 'You have a blue widget and a red widget, 20 EUR in total.' },
  ]);
  await page.fill('.cp textarea', "What's in my cart?");
  await page.press('.cp textarea', 'Enter');
  await page.locator('.m.assistant[data-role="assistant"]', { hasText: '20 EUR in total' }).waitFor();
  assert.equal(await page.evaluate(() => (window as any).__cartAsked), { currency: 'EUR' });
  const call = (await framesOf(page, 'tool_call'))[0];
  assert.is(call.name, 'get_cart');
  const result = (await sentOf(page, 'tool_result'))[0];
  assert.is(result.callId, call.callId);
  // The model's second call carries the page's answer as the tool result.
  const body = w.fake.lastBody('/chat/completions');
  const toolMsg = body.messages.find((m: any) => m.role === 'tool');
  assert.ok(toolMsg && String(toolMsg.content).includes('blue widget'), JSON.stringify(toolMsg));
});

test('a destructive MCP tool runs only after the visitor allows it in the chat', async () => {
  const page = await w.openChat(botId, { path: '/account' });
  w.fake.script([
    { toolCalls: [{ name: 'mcp_acme_crm_delete_item', arguments: { id: 'order-42' } }] },
    { text: 'Done, order-42 is deleted.' },
  ]);
  await page.fill('.cp textarea', 'Please delete order 42');
  await page.press('.cp textarea', 'Enter');
  const card = page.locator('.card.confirm');
  await card.waitFor();
  assert.match(await card.textContent() ?? '', /delete_item/);
  assert.equal(mcp.state.deleted, []);
  await page.screenshot({ path: '/tmp/widget-confirm.png' });
  await card.locator('.btn:not(.alt)').click();
  await page.locator('.m.assistant[data-role="assistant"]', { hasText: 'order-42 is deleted' }).waitFor();
  assert.equal(mcp.state.deleted, ['order-42']);
  assert.is(await page.locator('.card.confirm').count(), 0);
});

test('a refused destructive tool is not run', async () => {
  const page = await w.openChat(botId, { path: '/account2' });
  w.fake.script([
    { toolCalls: [{ name: 'mcp_acme_crm_delete_item', arguments: { id: 'order-7' } }] },
    { text: 'Alright, I left order-7 alone.' },
  ]);
  await page.fill('.cp textarea', 'Delete order 7');
  await page.press('.cp textarea', 'Enter');
  await page.locator('.card.confirm .btn.alt').click();
  await page.locator('.m.assistant[data-role="assistant"]', { hasText: 'left order-7 alone' }).waitFor();
  assert.not.ok(mcp.state.deleted.includes('order-7'));
  const sent = await sentOf(page, 'confirm');
  assert.is(sent[0].approved, false);
});

test.run();
