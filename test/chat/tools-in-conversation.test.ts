import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFakeMcpHttp, type FakeMcpHttp } from '../fakes/mcp-server.js';
import { startReceiver } from '../tools/helpers.js';
import { startChatWorld, type ChatWorld } from './helpers.js';

// Issue 8's end to end: a scripted visitor's conversation in which the agent calls a page tool, a destructive
// MCP tool that the visitor must allow, and an HTTP tool carrying a secret.

const SECRET = 'sk-live-0123456789abcdef';
let w: ChatWorld;
let mcp: FakeMcpHttp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let mcpServerId: string;
let httpToolId: string;

const toolMessages = (body: any) => (body.messages ?? []).filter((m: any) => m.role === 'tool').map((m: any) => String(m.content));

test.before(async () => {
  w = await startChatWorld({ config: { tools: { client: { enabled: true, allow: ['get_cart'] } } } });
  mcp = await startFakeMcpHttp();
  receiver = await startReceiver((r, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ order: 'A-17', status: 'shipped', auth: r.headers.authorization })));
  const h = w.owner.headers;
  const m = await w.server.request('POST', '/api/v1/tools/mcp', { body: { name: 'Shop', url: mcp.url }, headers: h });
  assert.is(m.status, 201, JSON.stringify(m.body));
  mcpServerId = m.body.id;
  assert.is((await w.server.request('PUT', '/api/v1/secrets/SHOP_KEY', { body: { value: SECRET }, headers: h })).status, 201);
  const t = await w.server.request('POST', '/api/v1/tools/http', {
    headers: h,
    body: {
      name: 'order_status', description: 'Status of an order.', method: 'GET',
      url: `${receiver.url}/orders/{{args.id}}`, headers: { Authorization: 'Bearer {{secrets.SHOP_KEY}}' },
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
  });
  assert.is(t.status, 201, JSON.stringify(t.body));
  httpToolId = t.body.id;
  const bot: any = await w.server.app.store.collection('bots').findById(w.workspaceId, w.botId);
  const config = { ...bot.published.config, tools: { ...bot.published.config.tools, mcp: [{ serverId: mcpServerId, allow: '*', confirmDestructive: true }], http: [{ toolId: httpToolId, enabled: true }] } };
  await w.setBot({ 'published.config': config, draft: config, updatedAt: Date.now() + 1 });
});

test.after(async () => {
  await w.close();
  await mcp.close();
  await receiver.close();
});

test('a tool the page registered is run in the page and its answer reaches the model', async () => {
  const v = await w.visitor();
  v.send({ t: 'tools', tools: [
    { name: 'get_cart', description: 'What is in the cart.', parameters: { type: 'object', properties: {} } },
    { name: 'not_allowed', description: 'Not on the allow list.', parameters: { type: 'object', properties: {} } },
  ] });
  w.fake.script([{ toolCalls: [{ name: 'get_cart', arguments: {} }] }, { text: 'You have two mugs in your cart.' }]);
  v.say('What is in my cart?');
  const call = await v.next('tool_call');
  assert.is(call.name, 'get_cart');
  v.send({ t: 'tool_result', callId: call.callId, content: '2 x mug' });
  const { message } = await v.reply();
  assert.is(message.text, 'You have two mugs in your cart.');
  const offered = w.fake.requests.filter((r: any) => r.path.includes('chat/completions')).at(-2)!.body.tools.map((t: any) => t.function.name);
  assert.ok(offered.includes('get_cart'));
  assert.not.ok(offered.includes('not_allowed'), 'a page tool outside tools.client.allow is not offered');
  assert.ok(toolMessages(w.fake.lastBody('chat/completions')).some((c: string) => c.includes('2 x mug')));
  await v.close();
});

test('a destructive MCP tool runs only after the visitor allows it', async () => {
  const v = await w.visitor();
  w.fake.script([{ toolCalls: [{ name: 'mcp_shop_delete_item', arguments: { id: 'cart-7' } }] }, { text: 'Done, it is deleted.' }]);
  v.say('Delete cart-7 please');
  const ask = await v.next('confirm');
  assert.is(ask.tool.name, 'mcp_shop_delete_item');
  assert.equal(ask.args, { id: 'cart-7' });
  assert.equal(mcp.state.deleted, [], 'nothing runs before the visitor answers');
  v.send({ t: 'confirm', confirmId: ask.confirmId, approved: true });
  await v.reply();
  assert.equal(mcp.state.deleted, ['cart-7']);
  await v.close();
});

test('a destructive MCP tool the visitor refuses is not run, and the agent is told', async () => {
  const v = await w.visitor();
  w.fake.script([{ toolCalls: [{ name: 'mcp_shop_delete_item', arguments: { id: 'cart-8' } }] }, { text: 'Alright, I left it alone.' }]);
  v.say('Delete cart-8');
  const ask = await v.next('confirm');
  v.send({ t: 'confirm', confirmId: ask.confirmId, approved: false });
  await v.reply();
  assert.not.ok(mcp.state.deleted.includes('cart-8'));
  assert.ok(toolMessages(w.fake.lastBody('chat/completions')).some((c: string) => c.includes('did not allow')));
  await v.close();
});

test('an HTTP tool with a secret is called; the secret never reaches the model or the transcript', async () => {
  const v = await w.visitor();
  w.fake.script([{ toolCalls: [{ name: 'order_status', arguments: { id: 'A-17' } }] }, { text: 'Order A-17 has shipped.' }]);
  v.say('Where is order A-17?');
  const { message } = await v.reply();
  assert.is(message.text, 'Order A-17 has shipped.');
  const got = receiver.received.at(-1)!;
  assert.is(got.url, '/orders/A-17');
  assert.is(got.headers.authorization, `Bearer ${SECRET}`);
  const toModel = JSON.stringify(w.fake.lastBody('chat/completions'));
  assert.ok(toModel.includes('shipped'));
  assert.not.ok(toModel.includes(SECRET), 'the secret is redacted from what the model sees');
  const conv = await w.server.request('GET', `/api/v1/conversations/${v.frames.find((f) => f.t === 'conversation').conversationId}`, { headers: w.owner.headers });
  assert.is(conv.status, 200);
  assert.not.ok(JSON.stringify(conv.body).includes(SECRET), 'nor the stored tool calls');
  assert.ok(conv.body.toolCalls.some((c: any) => c.name === 'order_status' && !c.isError));
  await v.close();
});

test.run();
