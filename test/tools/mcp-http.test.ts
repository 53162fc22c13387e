import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { McpServerRecord } from '../../src/tools/mcp-servers.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startFakeMcpHttp, type FakeMcpHttp } from '../fakes/mcp-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { callContext, toolContext, toolsFor } from './helpers.js';

const TOKEN = 'mcp-bearer-91c0d7e2';
let s: TestServer;
let owner: TestSession;
let fake: FakeMcpHttp;
let serverId: string;

test.before(async () => {
  s = await startTestServer();
  owner = await setupOwner(s);
  fake = await startFakeMcpHttp({ requireHeader: ['Authorization', `Bearer ${TOKEN}`] });
});
test.after(async () => {
  await s.stop();
  await fake.close();
});

const toolNames = (body: any) => body.tools.map((t: any) => t.name).sort();

test('connecting lists the tools at once, with the destructive one marked', async () => {
  const r = await s.request('POST', '/api/v1/tools/mcp', {
    body: { name: 'Acme CRM', url: fake.url, headers: { Authorization: `Bearer ${TOKEN}`, 'X-Tenant': 'acme' } }, headers: owner.headers,
  });
  assert.is(r.status, 201, JSON.stringify(r.body));
  serverId = r.body.id;
  assert.is(r.body.slug, 'acme_crm');
  assert.is(r.body.transport, 'http');
  assert.equal(toolNames(r.body), ['delete_item', 'echo', 'env', 'fail']);
  const del = r.body.tools.find((t: any) => t.name === 'delete_item');
  assert.is(del.destructive, true);
  assert.is(del.annotations.destructiveHint, true);
  assert.is(r.body.tools.find((t: any) => t.name === 'echo').destructive, false);
  assert.equal(r.body.tools.find((t: any) => t.name === 'echo').inputSchema.required, ['text']);
});

test('the headers were really sent, and the API shows only their names', async () => {
  assert.ok(fake.requests.length > 0);
  for (const req of fake.requests) {
    assert.is(req.headers.authorization, `Bearer ${TOKEN}`);
    assert.is(req.headers['x-tenant'], 'acme');
  }
  const list = await s.request('GET', '/api/v1/tools/mcp', { headers: owner.headers });
  assert.is(list.status, 200);
  assert.equal(list.body.items[0].headerNames, ['Authorization', 'X-Tenant']);
  assert.not.ok(JSON.stringify(list.body).includes(TOKEN));
  const rec = await s.app.store.collection<McpServerRecord>('mcp_servers').findById(owner.workspaceId, serverId);
  assert.not.ok(JSON.stringify(rec).includes(TOKEN), 'headers are sealed at rest');
});

test('a server that refuses the credentials is not saved: 422 with the reason', async () => {
  const r = await s.request('POST', '/api/v1/tools/mcp', { body: { name: 'Wrong', url: fake.url, headers: { Authorization: 'Bearer nope-wrong-token' } }, headers: owner.headers });
  assert.is(r.status, 422);
  assert.match(r.body.error.message, /could not connect/);
  assert.not.ok(r.body.error.message.includes('nope-wrong-token'));
  assert.is((await s.request('GET', '/api/v1/tools/mcp', { headers: owner.headers })).body.items.length, 1);
});

test('refresh lists a tool the server added since', async () => {
  fake.addTool('new_report');
  const r = await s.request('POST', `/api/v1/tools/mcp/${serverId}/refresh`, { headers: owner.headers });
  assert.is(r.status, 200);
  assert.equal(toolNames(r.body), ['delete_item', 'echo', 'env', 'fail', 'new_report']);
});

test('the test endpoint calls one tool and shows its result', async () => {
  const r = await s.request('POST', `/api/v1/tools/mcp/${serverId}/test`, { body: { tool: 'echo', arguments: { text: 'hello' } }, headers: owner.headers });
  assert.is(r.status, 200);
  assert.is(r.body.ok, true);
  assert.is(r.body.content, 'echo: hello');
  const failing = await s.request('POST', `/api/v1/tools/mcp/${serverId}/test`, { body: { tool: 'fail' }, headers: owner.headers });
  assert.is(failing.body.isError, true);
  assert.is(failing.body.content, 'it broke');
  const unknown = await s.request('POST', `/api/v1/tools/mcp/${serverId}/test`, { body: { tool: 'nope' }, headers: owner.headers });
  assert.is(unknown.status, 422);
});

test("a bot's allow list picks tools; names are mcp_<slug>_<tool>; destructive ones need confirmation", async () => {
  const all = await toolsFor(s, toolContext(s.app, owner.workspaceId, { mcp: [{ serverId, allow: '*', confirmDestructive: true }] }));
  assert.equal(all.map((t) => t.name).sort(), ['mcp_acme_crm_delete_item', 'mcp_acme_crm_echo', 'mcp_acme_crm_env', 'mcp_acme_crm_fail', 'mcp_acme_crm_new_report']);
  assert.is(all.find((t) => t.name === 'mcp_acme_crm_delete_item')!.needsConfirmation, true);
  assert.is(all.find((t) => t.name === 'mcp_acme_crm_echo')!.needsConfirmation, false);
  assert.ok(all.every((t) => t.source === 'mcp' && /^[a-zA-Z0-9_-]{1,64}$/.test(t.name)));

  const some = await toolsFor(s, toolContext(s.app, owner.workspaceId, { mcp: [{ serverId, allow: ['echo', 'delete_item'], confirmDestructive: false }] }));
  assert.equal(some.map((t) => t.name).sort(), ['mcp_acme_crm_delete_item', 'mcp_acme_crm_echo']);
  assert.is(some.find((t) => t.name === 'mcp_acme_crm_delete_item')!.needsConfirmation, false);

  assert.equal(await toolsFor(s, toolContext(s.app, owner.workspaceId, { mcp: [{ serverId, allow: [] }] })), []);
});

test('an agent tool calls the MCP server; a destructive call really runs once allowed', async () => {
  const ctx = toolContext(s.app, owner.workspaceId, { mcp: [{ serverId, allow: '*', confirmDestructive: true }] });
  const tools = await toolsFor(s, ctx);
  const echo = tools.find((t) => t.name === 'mcp_acme_crm_echo')!;
  assert.equal(await echo.run({ text: 'from the agent' }, callContext(ctx)), { content: 'echo: from the agent', isError: false });
  const bad = await echo.run({ text: 5 }, callContext(ctx));
  assert.ok(bad.isError);
  assert.match(bad.content, /^Invalid arguments: text/);
  const del = tools.find((t) => t.name === 'mcp_acme_crm_delete_item')!;
  const r = await del.run({ id: 'item-7' }, callContext(ctx));
  assert.is(r.content, 'deleted item-7');
  assert.equal(fake.state.deleted, ['item-7']);
});

test('a change without keepHeaders replaces the headers; with keepHeaders they stay', async () => {
  const kept = await s.request('PATCH', `/api/v1/tools/mcp/${serverId}`, { body: { name: 'Acme CRM (prod)', keepHeaders: true, headers: { 'X-Extra': '1' } }, headers: owner.headers });
  assert.is(kept.status, 200, JSON.stringify(kept.body));
  assert.is(kept.body.name, 'Acme CRM (prod)');
  assert.is(kept.body.slug, 'acme_crm', 'the slug stays so tool names do not change');
  assert.equal(kept.body.headerNames, ['Authorization', 'X-Tenant', 'X-Extra']);
  assert.is(fake.requests.at(-1)!.headers['x-extra'], '1');
  assert.is(fake.requests.at(-1)!.headers.authorization, `Bearer ${TOKEN}`);

  // Replacing with headers that lack the token: the server refuses, so the change is not saved.
  const refused = await s.request('PATCH', `/api/v1/tools/mcp/${serverId}`, { body: { headers: { 'X-Tenant': 'other' } }, headers: owner.headers });
  assert.is(refused.status, 422);
  const replaced = await s.request('PATCH', `/api/v1/tools/mcp/${serverId}`, { body: { headers: { Authorization: `Bearer ${TOKEN}` } }, headers: owner.headers });
  assert.is(replaced.status, 200);
  assert.equal(replaced.body.headerNames, ['Authorization']);
  assert.is(fake.requests.at(-1)!.headers['x-tenant'], undefined);
  const { headers } = s.services.mcpServers.endpointOf((await s.services.mcpServers.get(owner.workspaceId, serverId)));
  assert.equal(headers, { Authorization: `Bearer ${TOKEN}` });
});

test('a stale cached connection is replaced: calls work after the server restarts on the same settings', async () => {
  const service = s.services.mcpServers;
  const rec = await service.get(owner.workspaceId, serverId);
  assert.is((await service.callTool(rec, 'echo', { text: 'a' })).content, 'echo: a');
  service.connections.drop(serverId);
  assert.is((await service.callTool(rec, 'echo', { text: 'b' })).content, 'echo: b');
});

test('a second server with the same name gets its own slug, so tool names stay unique', async () => {
  const r = await s.request('POST', '/api/v1/tools/mcp', { body: { name: 'Acme  CRM', url: fake.url, headers: { Authorization: `Bearer ${TOKEN}` } }, headers: owner.headers });
  assert.is(r.status, 201);
  assert.is(r.body.slug, 'acme_crm2');
  const tools = await toolsFor(s, toolContext(s.app, owner.workspaceId, { mcp: [{ serverId, allow: ['echo'] }, { serverId: r.body.id, allow: ['echo'] }] }));
  assert.equal(tools.map((t) => t.name), ['mcp_acme_crm_echo', 'mcp_acme_crm2_echo']);
  assert.is((await s.request('DELETE', `/api/v1/tools/mcp/${r.body.id}`, { headers: owner.headers })).status, 204);
});

test('deleting a server removes it and its tools from every bot', async () => {
  assert.is((await s.request('DELETE', `/api/v1/tools/mcp/${serverId}`, { headers: owner.headers })).status, 204);
  assert.is((await s.request('DELETE', `/api/v1/tools/mcp/${serverId}`, { headers: owner.headers })).status, 404);
  assert.equal(await toolsFor(s, toolContext(s.app, owner.workspaceId, { mcp: [{ serverId, allow: '*' }] })), []);
});

test('a server that speaks only the older HTTP+SSE transport is reached by the fallback', async () => {
  const old = await startFakeMcpHttp({ mode: 'sse' });
  try {
    const r = await s.request('POST', '/api/v1/tools/mcp', { body: { name: 'Legacy', url: old.url, headers: { 'X-Key': 'k1' } }, headers: owner.headers });
    assert.is(r.status, 201, JSON.stringify(r.body));
    assert.ok(toolNames(r.body).includes('echo'));
    assert.ok(old.requests.some((q) => q.path === '/sse' && q.headers['x-key'] === 'k1'));
    const t = await s.request('POST', `/api/v1/tools/mcp/${r.body.id}/test`, { body: { tool: 'echo', arguments: { text: 'sse' } }, headers: owner.headers });
    assert.is(t.body.content, 'echo: sse');
    await s.request('DELETE', `/api/v1/tools/mcp/${r.body.id}`, { headers: owner.headers });
  } finally {
    await old.close();
  }
});

test.run();
