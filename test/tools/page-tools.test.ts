import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pageToolSource, type PageToolBridge, type PageToolSpec } from '../../src/tools/page-tools.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { callContext, toolContext, toolsFor } from './helpers.js';

/** The page tools as the root registers them, over a page that answers as `bridge` says. */
const pageTools$ = (bridge: PageToolBridge, ctx: ReturnType<typeof toolContext>) => pageToolSource(bridge).tools(ctx);

let s: TestServer;
const WS = 'ws_page';

const pageTools: PageToolSpec[] = [
  { name: 'add_to_cart', description: 'Adds a product to the cart.', parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
  { name: 'open_page', description: 'Opens a page of the site.', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'bad name!', description: 'Not a valid name for a model provider.', parameters: { type: 'object' } },
  { name: 'weird_schema', description: 'Schema that is not an object.', parameters: { type: 'string' } },
];

const ctxWith = (client: Record<string, unknown>, tools: PageToolSpec[] = pageTools) =>
  toolContext(s.app, WS, { client: { enabled: true, allow: '*', timeoutMs: 15000, ...client } }, { pageTools: tools });

test.before(async () => { s = await startTestServer(); });
test.after(async () => { await s.stop(); });

test('page tools are ignored while tools.client.enabled is off', async () => {
  assert.equal(await toolsFor(s, ctxWith({ enabled: false })), []);
});

test("with '*' every valid page tool is offered; invalid names and schemas are left out", async () => {
  const tools = await toolsFor(s, ctxWith({}));
  assert.equal(tools.map((t) => t.name), ['add_to_cart', 'open_page']);
  assert.ok(tools.every((t) => t.source === 'page'));
});

test('an allow list picks tools by name, and an empty list allows none', async () => {
  assert.equal((await toolsFor(s, ctxWith({ allow: ['open_page'] }))).map((t) => t.name), ['open_page']);
  assert.equal(await toolsFor(s, ctxWith({ allow: [] })), []);
});

test('running a page tool goes through the bridge with tools.client.timeoutMs', async () => {
  const calls: unknown[] = [];
  const bridge: PageToolBridge = {
    async call(conversationId, name, args, timeoutMs) {
      calls.push({ conversationId, name, args, timeoutMs });
      return { content: `added ${String(args.sku)}` };
    },
  };
  const ctx = ctxWith({ timeoutMs: 7000 });
  const [cart] = await pageTools$(bridge, ctx);
  assert.equal(await cart.run({ sku: 'A-1' }, callContext(ctx)), { content: 'added A-1' });
  assert.equal(calls, [{ conversationId: 'conv_test', name: 'add_to_cart', args: { sku: 'A-1' }, timeoutMs: 7000 }]);
});

test('bad arguments are refused before the page is asked', async () => {
  let asked = 0;
  const ctx = ctxWith({});
  const [cart] = await pageTools$({ async call() { asked++; return { content: 'x' }; } }, ctx);
  const r = await cart.run({}, callContext(ctx));
  assert.ok(r.isError);
  assert.match(r.content, /sku/);
  assert.is(asked, 0);
});

test('a page that does not answer gives an error result, not a thrown error', async () => {
  const ctx = ctxWith({ timeoutMs: 1000 });
  const [cart] = await pageTools$({ async call(_c, _n, _a, timeoutMs) { throw new Error(`no answer within ${timeoutMs} ms`); } }, ctx);
  const r = await cart.run({ sku: 'B' }, callContext(ctx));
  assert.equal(r, { content: 'The page did not answer: no answer within 1000 ms', isError: true });
});

test.run();
