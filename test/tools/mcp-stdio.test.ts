import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mcpServers, type McpServerRecord } from '../../src/tools/mcp-servers.js';
import { McpServerInput } from '../../src/tools/schemas.js';
import { setupOwner, createToken, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { callContext, toolContext, toolsFor } from './helpers.js';

const SCRIPT = fileURLToPath(new URL('../fakes/mcp-stdio-server.ts', import.meta.url));
const ENV_SECRET = 'stdio-env-secret-5e21';
let s: TestServer;
let owner: TestSession;
let serverId: string;

const stdioBody = (extra: Record<string, unknown> = {}) => ({
  name: 'Local files', transport: 'stdio', command: process.execPath, args: ['--import', 'tsx', SCRIPT], env: { API_TOKEN: ENV_SECRET, REGION: 'eu' }, ...extra,
});

test.before(async () => {
  s = await startTestServer();
  owner = await setupOwner(s);
});
test.after(async () => { await s.stop(); });

test('an admin connects a stdio server: the program starts and its tools are listed', async () => {
  const r = await s.request('POST', '/api/v1/tools/mcp', { body: stdioBody(), headers: owner.headers });
  assert.is(r.status, 201, JSON.stringify(r.body));
  serverId = r.body.id;
  assert.is(r.body.transport, 'stdio');
  assert.equal(r.body.envNames, ['API_TOKEN', 'REGION']);
  assert.ok(r.body.tools.some((t: any) => t.name === 'delete_item' && t.destructive));
  assert.not.ok(JSON.stringify(r.body).includes(ENV_SECRET));
  const rec = await s.app.store.collection<McpServerRecord>('mcp_servers').findById(owner.workspaceId, serverId);
  assert.not.ok(JSON.stringify(rec).includes(ENV_SECRET), 'env is sealed at rest');
});

test('the program gets the env it was given, and not the server’s own environment', async () => {
  const ctx = toolContext(s.app, owner.workspaceId, { mcp: [{ serverId, allow: ['env'] }] });
  const [envTool] = await toolsFor(ctx);
  assert.is(envTool.name, 'mcp_local_files_env');
  assert.is((await envTool.run({ name: 'API_TOKEN', reversed: true }, callContext(ctx))).content, [...ENV_SECRET].reverse().join(''));
  assert.is((await envTool.run({ name: 'API_TOKEN' }, callContext(ctx))).content, '[secret env API_TOKEN]', 'results never show env values to the model');
  assert.is((await envTool.run({ name: 'REGION' }, callContext(ctx))).content, 'eu');
  process.env.SC_TEST_PARENT_ONLY = 'parent';
  try {
    // A new process (after a restart of the cache) still does not inherit arbitrary parent variables.
    mcpServers(s.app).connections.drop(serverId);
    assert.is((await envTool.run({ name: 'SC_TEST_PARENT_ONLY' }, callContext(ctx))).content, '(unset)');
  } finally {
    delete process.env.SC_TEST_PARENT_ONLY;
  }
});

test('keepEnv keeps the old variables (adding given ones); without it env is replaced', async () => {
  const kept = await s.request('PATCH', `/api/v1/tools/mcp/${serverId}`, { body: { keepEnv: true, env: { EXTRA: 'x' } }, headers: owner.headers });
  assert.is(kept.status, 200, JSON.stringify(kept.body));
  assert.equal(kept.body.envNames, ['API_TOKEN', 'REGION', 'EXTRA']);
  const test1 = await s.request('POST', `/api/v1/tools/mcp/${serverId}/test`, { body: { tool: 'env', arguments: { name: 'API_TOKEN' } }, headers: owner.headers });
  assert.is(test1.body.content, '[secret env API_TOKEN]', 'the test answer redacts env values');

  const replaced = await s.request('PATCH', `/api/v1/tools/mcp/${serverId}`, { body: { env: { REGION: 'us' } }, headers: owner.headers });
  assert.is(replaced.status, 200);
  assert.equal(replaced.body.envNames, ['REGION']);
  const rec = await mcpServers(s.app).get(owner.workspaceId, serverId);
  assert.is((await mcpServers(s.app).callTool(rec, 'env', { name: 'API_TOKEN' })).content, '(unset)');
  assert.is((await mcpServers(s.app).callTool(rec, 'env', { name: 'REGION' })).content, 'us');
});

test('refresh after the program changes its tools lists the new one', async () => {
  const r = await s.request('PATCH', `/api/v1/tools/mcp/${serverId}`, { body: { args: ['--import', 'tsx', SCRIPT, '--tool', 'archive'], keepEnv: true }, headers: owner.headers });
  assert.is(r.status, 200);
  assert.ok(r.body.tools.some((t: any) => t.name === 'archive'));
  const refreshed = await s.request('POST', `/api/v1/tools/mcp/${serverId}/refresh`, { headers: owner.headers });
  assert.ok(refreshed.body.tools.some((t: any) => t.name === 'archive'));
});

test('a command that cannot start gives 422 and nothing is saved', async () => {
  const r = await s.request('POST', '/api/v1/tools/mcp', { body: stdioBody({ name: 'Broken', command: '/nonexistent/program' }), headers: owner.headers });
  assert.is(r.status, 422);
  assert.is((await s.request('GET', '/api/v1/tools/mcp', { headers: owner.headers })).body.items.length, 1);
});

test('a caller who is not an admin cannot add a stdio server (service rule)', async () => {
  const input = McpServerInput.parse(stdioBody());
  try {
    await mcpServers(s.app).create(owner.workspaceId, input, { allowStdio: false });
    assert.unreachable('should refuse');
  } catch (err) {
    assert.match((err as Error).message, /only an admin/);
  }
});

test('an API token with tools:write (an admin scope) may add one', async () => {
  const token = await createToken(s, owner, ['tools:write']);
  const r = await s.request('POST', '/api/v1/tools/mcp', { body: stdioBody({ name: 'Via token' }), headers: token.headers });
  assert.is(r.status, 201, JSON.stringify(r.body));
  assert.is(r.body.slug, 'via_token');
  assert.is((await s.request('DELETE', `/api/v1/tools/mcp/${r.body.id}`, { headers: token.headers })).status, 204);
});

test('deleting the server stops its program', async () => {
  assert.is((await s.request('DELETE', `/api/v1/tools/mcp/${serverId}`, { headers: owner.headers })).status, 204);
  assert.equal(await toolsFor(toolContext(s.app, owner.workspaceId, { mcp: [{ serverId, allow: '*' }] })), []);
});

test.run();
