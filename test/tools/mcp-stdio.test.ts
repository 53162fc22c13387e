import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import type { McpServerRecord } from '../../src/tools/mcp-servers.js';
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
  // The operator allows node (the fake server runs on it) and a program that does not exist (to see a start fail).
  s = await startTestServer({ env: { MCP_STDIO_COMMANDS: `${process.execPath}, /nonexistent/program` } });
  owner = await setupOwner(s);
});
test.after(async () => {
  await s.stop({ keepData: true });
  rmSync(s.dataDir, { recursive: true, force: true });
});

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
  const [envTool] = await toolsFor(s, ctx);
  assert.is(envTool.name, 'mcp_local_files_env');
  assert.is((await envTool.run({ name: 'API_TOKEN', reversed: true }, callContext(ctx))).content, [...ENV_SECRET].reverse().join(''));
  assert.is((await envTool.run({ name: 'API_TOKEN' }, callContext(ctx))).content, '[secret env API_TOKEN]', 'results never show env values to the model');
  assert.is((await envTool.run({ name: 'REGION' }, callContext(ctx))).content, 'eu');
  process.env.SC_TEST_PARENT_ONLY = 'parent';
  try {
    // A new process (after a restart of the cache) still does not inherit arbitrary parent variables.
    s.services.mcpServers.connections.drop(serverId);
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
  const rec = await s.services.mcpServers.get(owner.workspaceId, serverId);
  assert.is((await s.services.mcpServers.callTool(rec, 'env', { name: 'API_TOKEN' })).content, '(unset)');
  assert.is((await s.services.mcpServers.callTool(rec, 'env', { name: 'REGION' })).content, 'us');
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

const auditOf = async (session: TestSession, action: string) =>
  ((await s.request('GET', '/api/v1/audit?limit=100', { headers: session.headers })).body.items as any[]).filter((e) => e.action === action);

/** A shell command that leaves a file behind if it ever runs. */
function shellAttempt() {
  const dir = mkdtempSync(join(tmpdir(), 'sc-stdio-'));
  const marker = join(dir, 'ran');
  return { marker, body: stdioBody({ name: 'Shell', command: '/bin/sh', args: ['-c', `touch ${marker}`], env: {} }), done: () => rmSync(dir, { recursive: true, force: true }) };
}

test('the failed start is in the audit log, naming the program and why', async () => {
  const [entry] = await auditOf(owner, 'tools.mcp.stdio.failed');
  assert.ok(entry, 'audited');
  assert.is(entry.detail.command, '/nonexistent/program');
  assert.is(entry.actor.kind, 'user');
});

test('a caller who is not a signed-in admin cannot add a stdio server (service rule)', async () => {
  const input = McpServerInput.parse(stdioBody());
  try {
    await s.services.mcpServers.create(owner.workspaceId, input, { principal: null });
    assert.unreachable('should refuse');
  } catch (err) {
    assert.match((err as Error).message, /signed in to the admin panel/);
  }
});

test('an API token with tools:write cannot add a stdio server, even an allowed program: 403, nothing runs, and the try is audited', async () => {
  const token = await createToken(s, owner, ['tools:write']);
  const shell = shellAttempt();
  try {
    for (const body of [stdioBody({ name: 'Via token' }), shell.body]) {
      const r = await s.request('POST', '/api/v1/tools/mcp', { body, headers: token.headers });
      assert.is(r.status, 403, JSON.stringify(r.body));
      assert.is(r.body.error.code, 'forbidden');
      assert.match(r.body.error.message, /admin panel/, 'says how to do it instead');
    }
    const patched = await s.request('PATCH', `/api/v1/tools/mcp/${serverId}`, { body: { command: '/bin/sh', args: ['-c', `touch ${shell.marker}`] }, headers: token.headers });
    assert.is(patched.status, 403, JSON.stringify(patched.body));
    assert.not.ok(existsSync(shell.marker), 'the shell command never ran');
    const refused = (await auditOf(owner, 'tools.mcp.stdio.refused')).filter((e) => e.actor.kind === 'token');
    assert.equal(refused.map((e) => [e.detail.operation, e.detail.command]).sort(), [['create', '/bin/sh'], ['create', process.execPath], ['update', '/bin/sh']]);
    assert.not.ok(JSON.stringify(refused).includes(shell.marker), 'args are not copied into the log');
    assert.is((await s.request('GET', '/api/v1/tools/mcp', { headers: owner.headers })).body.items.length, 1, 'nothing was added');
  } finally {
    shell.done();
  }
});

test('a signed-in admin cannot start a program the operator did not list: 403 naming MCP_STDIO_COMMANDS, audited', async () => {
  const shell = shellAttempt();
  try {
    const r = await s.request('POST', '/api/v1/tools/mcp', { body: shell.body, headers: owner.headers });
    assert.is(r.status, 403, JSON.stringify(r.body));
    assert.match(r.body.error.message, /\/bin\/sh is not one of the programs this server allows \(MCP_STDIO_COMMANDS/);
    assert.not.ok(existsSync(shell.marker));
    const refused = (await auditOf(owner, 'tools.mcp.stdio.refused')).filter((e) => e.actor.kind === 'user');
    assert.is(refused.length, 1);
    assert.is(refused[0].detail.command, '/bin/sh');
  } finally {
    shell.done();
  }
});

test('MCP_STDIO_COMMANDS is checked at start-up: each entry an absolute path', () => {
  assert.throws(() => loadConfig({ MCP_STDIO_COMMANDS: 'sh,/usr/bin/node' }), (e: Error) => e instanceof ConfigError && /MCP_STDIO_COMMANDS: must be a comma-separated list of absolute program paths/.test(e.message));
  assert.equal(loadConfig({ MCP_STDIO_COMMANDS: ' /a/b , /c ' }).mcpStdioCommands, ['/a/b', '/c']);
  assert.equal(loadConfig({}).mcpStdioCommands, []);
});

test('deleting the server stops its program', async () => {
  assert.is((await s.request('DELETE', `/api/v1/tools/mcp/${serverId}`, { headers: owner.headers })).status, 204);
  assert.equal(await toolsFor(s, toolContext(s.app, owner.workspaceId, { mcp: [{ serverId, allow: '*' }] })), []);
});

test('without MCP_STDIO_COMMANDS stdio servers are off: even the owner is refused (audited), and a stored one does not start', async () => {
  const r = await s.request('POST', '/api/v1/tools/mcp', { body: stdioBody({ name: 'Again' }), headers: owner.headers });
  assert.is(r.status, 201, JSON.stringify(r.body));
  await s.stop({ keepData: true });
  s = await startTestServer({ dataDir: s.dataDir });
  const refused = await s.request('POST', '/api/v1/tools/mcp', { body: stdioBody({ name: 'Off' }), headers: owner.headers });
  assert.is(refused.status, 403, JSON.stringify(refused.body));
  assert.match(refused.body.error.message, /off on this server.*MCP_STDIO_COMMANDS/);
  assert.is((await auditOf(owner, 'tools.mcp.stdio.refused')).filter((e) => /off on this server/.test(e.detail.reason)).length, 1);
  const stored = await s.request('POST', `/api/v1/tools/mcp/${r.body.id}/refresh`, { headers: owner.headers });
  assert.is(stored.status, 422);
  assert.match(stored.body.error.message, /not allowed on this server \(MCP_STDIO_COMMANDS\)/);
});

test.run();
