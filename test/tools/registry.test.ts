import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AppContext } from '../../src/app/context.js';
import { ToolRegistry, type AgentTool } from '../../src/tools/registry.js';

const warnings: unknown[] = [];
const app = { log: { warn: (obj: unknown) => warnings.push(obj) } } as unknown as AppContext;
const ctx = { app, workspaceId: 'ws', botId: 'bot', conversationId: 'conv', visitorId: 'vis', config: {} };
const tool = (name: string): AgentTool => ({ name, description: name, parameters: { type: 'object' }, source: 'builtin', run: async () => ({ content: 'ok' }) });

test('a context source that throws adds nothing and the others still answer', async () => {
  const r = new ToolRegistry();
  r.addContextSource({ name: 'broken', context: async () => { throw new Error('embedding provider down'); } });
  r.addContextSource({ name: 'fine', context: async () => ({ text: 'facts' }) });
  warnings.length = 0;
  assert.equal(await r.contextFor({ ...ctx, query: 'hello' }), [{ text: 'facts' }]);
  assert.is(warnings.length, 1);
});

test('a tool source that throws is left out and the other tools are offered', async () => {
  const r = new ToolRegistry();
  r.addSource({ name: 'mcp', tools: async () => { throw new Error('server unreachable'); } });
  r.addSource({ name: 'builtins', tools: () => [tool('get_time')] });
  warnings.length = 0;
  assert.equal((await r.toolsFor(ctx)).map((t) => t.name), ['get_time']);
  assert.is(warnings.length, 1);
});

test.run();
