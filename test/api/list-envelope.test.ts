/**
 * Every list answer of the REST API uses one envelope (docs/decisions.md, Foundation): `{ items }`, plus
 * `nextBefore` (a string, or null on the last page) when the list is paged, plus a few named extras that are
 * not the list itself. Checked twice: on real answers of a fresh workspace, and on the OpenAPI description.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let owner: TestSession;

test.before(async () => {
  s = await startTestServer();
  owner = await setupOwner(s);
});
test.after(async () => { await s.stop(); });

const PAGED = ['items', 'nextBefore'];
const PERIOD = ['botId', 'from', 'items', 'to'];
/** Path → the exact top-level keys of its answer. */
const LISTS: Record<string, string[]> = {
  '/api/v1/bots': PAGED,
  '/api/v1/bots/templates': ['items'],
  '/api/v1/leads': PAGED,
  '/api/v1/conversations': PAGED,
  '/api/v1/audit': PAGED,
  '/api/v1/knowledge/gaps': PAGED,
  '/api/v1/tokens': ['items'],
  '/api/v1/members': ['invites', 'items'],
  '/api/v1/webhooks': ['events', 'items'],
  '/api/v1/providers': ['items'],
  '/api/v1/providers/catalog': ['items'],
  '/api/v1/faces': ['items'],
  '/api/v1/knowledge': ['items'],
  '/api/v1/tools/http': ['items'],
  '/api/v1/tools/mcp': ['items'],
  '/api/v1/secrets': ['items'],
  '/api/v1/visitors?email=nobody@example.com': ['items', 'leads'],
  '/api/v1/analytics/timeseries': PERIOD,
  '/api/v1/analytics/tools': PERIOD,
  '/api/v1/analytics/usage': [...PERIOD, 'note', 'total'].sort(),
};

test('every list answer carries its rows as items, and paged ones a null nextBefore on the last page', async () => {
  for (const [path, keys] of Object.entries(LISTS)) {
    const r = await s.request('GET', path, { headers: owner.headers });
    assert.is(r.status, 200, `${path} answers 200`);
    assert.equal(Object.keys(r.body).sort(), keys, `${path} answers { ${keys.join(', ')} }`);
    assert.ok(Array.isArray(r.body.items), `${path} items is an array`);
    if (keys.includes('nextBefore')) assert.is(r.body.nextBefore, null, `${path} has one page`);
  }
});

test('a paged list gives nextBefore as a string that fetches the next page', async () => {
  for (const name of ['First', 'Second', 'Third']) {
    assert.is((await s.request('POST', '/api/v1/bots', { body: { name }, headers: owner.headers })).status, 201);
  }
  const page1 = await s.request('GET', '/api/v1/bots?limit=2', { headers: owner.headers });
  assert.equal(page1.body.items.map((b: { name: string }) => b.name), ['Third', 'Second'], 'newest first');
  assert.type(page1.body.nextBefore, 'string');
  const page2 = await s.request('GET', `/api/v1/bots?limit=2&before=${encodeURIComponent(page1.body.nextBefore)}`, { headers: owner.headers });
  assert.equal(page2.body.items.map((b: { name: string }) => b.name), ['First']);
  assert.is(page2.body.nextBefore, null);
});

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; anyOf?: Schema[]; required?: string[] };
const allowsNull = (p: Schema) => p.type === 'null' || (Array.isArray(p.type) && p.type.includes('null')) || !!p.anyOf?.some(allowsNull);
const allowsString = (p: Schema) => p.type === 'string' || (Array.isArray(p.type) && p.type.includes('string')) || !!p.anyOf?.some(allowsString);

test('OpenAPI describes every GET that takes before as { items, nextBefore: string | null }', async () => {
  const doc = (await s.request('GET', '/api/openapi.json')).body;
  let paged = 0;
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    const get = ops.get;
    if (!get?.parameters?.some((p: { name: string; in: string }) => p.in === 'query' && p.name === 'before')) continue;
    paged++;
    const schema: Schema | undefined = get.responses?.['200']?.content?.['application/json']?.schema;
    assert.ok(schema?.properties, `${path} has a response schema`);
    assert.is(schema!.properties!.items?.type, 'array', `${path} items`);
    const next = schema!.properties!.nextBefore;
    assert.ok(next && allowsString(next) && allowsNull(next), `${path} nextBefore is string | null`);
    assert.ok(schema!.required?.includes('nextBefore'), `${path} always carries nextBefore`);
  }
  assert.ok(paged >= 4, 'bots, leads, audit, gaps and webhook deliveries are paged');
});

test.run();
