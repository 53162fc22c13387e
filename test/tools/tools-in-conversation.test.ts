import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startChatWorld, type ChatWorld } from '../chat/helpers.js';
import { startReceiver } from './helpers.js';

// Tool calls seen from a conversation: a stdio MCP server's tool, a result longer than tools.maxResultChars
// and a tool slower than tools.toolTimeoutMs.

const SCRIPT = fileURLToPath(new URL('../fakes/mcp-stdio-server.ts', import.meta.url));
const MAX_CHARS = 500;
const TIMEOUT_MS = 1000;
let w: ChatWorld;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const toolMessages = (body: any) => (body.messages ?? []).filter((m: any) => m.role === 'tool').map((m: any) => String(m.content));
const conversationId = (v: { frames: any[] }) => v.frames.find((f) => f.t === 'conversation').conversationId;

test.before(async () => {
  w = await startChatWorld({ env: { MCP_STDIO_COMMANDS: process.execPath } });
  receiver = await startReceiver((r, res) => {
    if (r.url === '/long') return res.writeHead(200, { 'content-type': 'text/plain' }).end(`${'x'.repeat(5000)}END`);
    // /slow never answers (the receiver's close cuts it): a reply at all means the time limit stopped the call.
  });
  const h = w.owner.headers;
  const mcp = await w.server.request('POST', '/api/v1/tools/mcp', {
    body: { name: 'Local files', transport: 'stdio', command: process.execPath, args: ['--import', 'tsx', SCRIPT] }, headers: h,
  });
  assert.is(mcp.status, 201, JSON.stringify(mcp.body));
  const http = async (name: string, path: string) => {
    const r = await w.server.request('POST', '/api/v1/tools/http', {
      headers: h, body: { name, description: `${name} tool`, method: 'GET', url: `${receiver.url}${path}`, parameters: { type: 'object', properties: {} } },
    });
    assert.is(r.status, 201, JSON.stringify(r.body));
    return { toolId: r.body.id, enabled: true };
  };
  const tools = [await http('long_report', '/long'), await http('slow_lookup', '/slow')];
  const bot: any = await w.server.app.store.collection('bots').findById(w.workspaceId, w.botId);
  const c = bot.published.config;
  const config = { ...c, tools: { ...c.tools, toolTimeoutMs: TIMEOUT_MS, maxResultChars: MAX_CHARS, http: tools, mcp: [{ serverId: mcp.body.id, allow: ['echo'] }] } };
  await w.setBot({ 'published.config': config, draft: config });
});

test.after(async () => {
  await w.close();
  await receiver.close();
});

test('a stdio MCP server’s tool is called from a conversation and its answer reaches the model', async () => {
  const v = await w.visitor();
  w.fake.script([{ toolCalls: [{ name: 'mcp_local_files_echo', arguments: { text: 'hello from the visitor' } }] }, { text: 'It echoed your words.' }]);
  v.say('Please echo my words');
  const { message } = await v.reply(15_000);
  assert.is(message.text, 'It echoed your words.');
  assert.ok(toolMessages(w.fake.lastBody('chat/completions')).some((c: string) => c.includes('echo: hello from the visitor')));
  const conv = await w.server.request('GET', `/api/v1/conversations/${conversationId(v)}`, { headers: w.owner.headers });
  assert.ok(conv.body.toolCalls.some((c: any) => c.name === 'mcp_local_files_echo' && !c.isError));
  await v.close();
});

test('a result longer than tools.maxResultChars is cut before the model sees it', async () => {
  const v = await w.visitor();
  w.fake.script([{ toolCalls: [{ name: 'long_report', arguments: {} }] }, { text: 'The report is long.' }]);
  v.say('Give me the long report');
  await v.reply();
  const [content] = toolMessages(w.fake.lastBody('chat/completions'));
  assert.ok(content.includes(`[cut to ${MAX_CHARS} characters]`), content.slice(-200));
  assert.not.ok(content.includes('END'), 'the tail is gone');
  assert.ok((content.match(/x+/)?.[0].length ?? 0) <= MAX_CHARS);
  await v.close();
});

test('a tool slower than tools.toolTimeoutMs is stopped; the model sees an error and tool.called says isError', async () => {
  const v = await w.visitor();
  w.fake.script([{ toolCalls: [{ name: 'slow_lookup', arguments: {} }] }, { text: 'The lookup timed out, sorry.' }]);
  v.say('Look it up slowly');
  const { message } = await v.reply(10_000);
  assert.is(message.text, 'The lookup timed out, sorry.');
  const [content] = toolMessages(w.fake.lastBody('chat/completions'));
  assert.ok(content.includes(`did not answer within ${TIMEOUT_MS} ms`), content);
  const events = await w.server.app.events.collection.find({ workspaceId: w.workspaceId, type: 'tool.called' }, { sort: [['_id', 1]] });
  const called: any[] = events.filter((e: any) => e.data.name === 'slow_lookup');
  assert.is(called.length, 1);
  assert.is(called[0].data.isError, true);
  assert.ok(called[0].data.durationMs >= TIMEOUT_MS - 50 && called[0].data.durationMs < 10_000, String(called[0].data.durationMs));
  await v.close();
});

test.run();
