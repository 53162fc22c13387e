import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { callContext, startReceiver, toolContext, toolsFor } from './helpers.js';

const SECRET = 'tok-4b8e1f0a9d77c2';
let s: TestServer;
let owner: TestSession;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let toolId: string;

const weatherTool = () => ({
  name: 'get_weather',
  description: 'Current weather for a city.',
  method: 'GET',
  url: `${receiver.url}/weather?city={{args.city}}&key={{secrets.WEATHER_KEY}}`,
  headers: { Authorization: 'Bearer {{secrets.WEATHER_KEY}}' },
  parameters: { type: 'object', properties: { city: { type: 'string', minLength: 1 } }, required: ['city'], additionalProperties: false },
});

test.before(async () => {
  s = await startTestServer();
  owner = await setupOwner(s);
  // The receiver echoes what it got, so a leak of the secret into any answer would show.
  receiver = await startReceiver((r, res) => {
    if (r.url.startsWith('/big')) return void res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(20_000));
    if (r.url.startsWith('/missing')) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no such thing');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ tempC: 21, url: r.url, auth: r.headers.authorization, body: r.body }));
  });
  await s.request('PUT', '/api/v1/secrets/WEATHER_KEY', { body: { value: SECRET }, headers: owner.headers });
});
test.after(async () => {
  await receiver.close();
  await s.stop();
});

test('adding an HTTP tool answers 201 with the definition, templates as written', async () => {
  const r = await s.request('POST', '/api/v1/tools/http', { body: weatherTool(), headers: owner.headers });
  assert.is(r.status, 201, JSON.stringify(r.body));
  toolId = r.body.id;
  assert.is(r.body.headers.Authorization, 'Bearer {{secrets.WEATHER_KEY}}');
  assert.is(r.body.bodyMode, 'none');
  assert.is(r.body.timeoutMs, 10_000);
  assert.not.ok(JSON.stringify(r.body).includes(SECRET));
});

test('a second tool with the same name gives 409, a built-in name or unknown placeholder 422', async () => {
  assert.is((await s.request('POST', '/api/v1/tools/http', { body: weatherTool(), headers: owner.headers })).status, 409);
  const builtin = await s.request('POST', '/api/v1/tools/http', { body: { ...weatherTool(), name: 'capture_lead' }, headers: owner.headers });
  assert.is(builtin.status, 422);
  const placeholder = await s.request('POST', '/api/v1/tools/http', { body: { ...weatherTool(), name: 'x', url: 'https://api.example.com/{{env.HOME}}' }, headers: owner.headers });
  assert.is(placeholder.status, 422);
  assert.match(placeholder.body.error.message, /^url: unknown placeholder/);
  const schema = await s.request('POST', '/api/v1/tools/http', { body: { ...weatherTool(), name: 'y', parameters: { type: 'string' } }, headers: owner.headers });
  assert.is(schema.status, 422);
  assert.match(schema.body.error.message, /^parameters:/);
});

test('the test endpoint calls the receiver, which sees the secret, while the answer never shows it', async () => {
  const r = await s.request('POST', `/api/v1/tools/http/${toolId}/test`, { body: { arguments: { city: 'São Paulo' } }, headers: owner.headers });
  assert.is(r.status, 200);
  const got = receiver.received.at(-1)!;
  assert.is(got.headers.authorization, `Bearer ${SECRET}`);
  assert.is(got.url, `/weather?city=S%C3%A3o%20Paulo&key=${SECRET}`);
  assert.is(r.body.ok, true);
  assert.is(r.body.status, 200);
  assert.type(r.body.durationMs, 'number');
  // The receiver echoed the secret back; the answer has it replaced.
  assert.not.ok(JSON.stringify(r.body).includes(SECRET));
  assert.ok(r.body.body.includes('[secret WEATHER_KEY]'));
  assert.ok(r.body.body.includes('"tempC":21'));
});

test('the list response never contains a secret value', async () => {
  const r = await s.request('GET', '/api/v1/tools/http', { headers: owner.headers });
  assert.is(r.status, 200);
  assert.is(r.body.items.length, 1);
  assert.not.ok(JSON.stringify(r.body).includes(SECRET));
});

test('arguments that break the schema are refused with 422 before any request is made', async () => {
  const before = receiver.received.length;
  const r = await s.request('POST', `/api/v1/tools/http/${toolId}/test`, { body: { arguments: { city: 42 } }, headers: owner.headers });
  assert.is(r.status, 422);
  assert.match(r.body.error.message, /city: must be string/);
  const missing = await s.request('POST', `/api/v1/tools/http/${toolId}/test`, { body: { arguments: {} }, headers: owner.headers });
  assert.is(missing.status, 422);
  assert.is(receiver.received.length, before);
});

test('a missing secret is reported by name, without a request', async () => {
  const before = receiver.received.length;
  const t = await s.request('POST', '/api/v1/tools/http', { body: { name: 'needs_other', description: 'd', url: `${receiver.url}/x`, headers: { 'X-Key': '{{secrets.NOT_SET}}' } }, headers: owner.headers });
  const r = await s.request('POST', `/api/v1/tools/http/${t.body.id}/test`, { body: {}, headers: owner.headers });
  assert.is(r.body.ok, false);
  assert.match(r.body.error.message, /secret NOT_SET is not set/);
  assert.is(receiver.received.length, before);
});

test('a JSON body template writes arguments as JSON values and the secret where asked', async () => {
  const t = await s.request('POST', '/api/v1/tools/http', { body: {
    name: 'create_ticket', description: 'Opens a ticket.', method: 'POST', url: `${receiver.url}/tickets`,
    bodyMode: 'template', bodyTemplate: '{"title": {{args.title}}, "n": {{args.n}}, "key": {{secrets.WEATHER_KEY}}}',
    parameters: { type: 'object', properties: { title: { type: 'string' }, n: { type: 'integer' } } },
  }, headers: owner.headers });
  assert.is(t.status, 201, JSON.stringify(t.body));
  const r = await s.request('POST', `/api/v1/tools/http/${t.body.id}/test`, { body: { arguments: { title: 'say "hi"', n: 3 } }, headers: owner.headers });
  assert.is(r.body.status, 200);
  const got = receiver.received.at(-1)!;
  assert.equal(JSON.parse(got.body), { title: 'say "hi"', n: 3, key: SECRET });
  assert.is(got.headers['content-type'], 'application/json');
  assert.not.ok(JSON.stringify(r.body).includes(SECRET));
});

test("a bot's enabled HTTP tools become agent tools; run returns the full body", async () => {
  const big = await s.request('POST', '/api/v1/tools/http', { body: { name: 'big', description: 'Large answer.', url: `${receiver.url}/big` }, headers: owner.headers });
  const off = await s.request('POST', '/api/v1/tools/http', { body: { name: 'off', description: 'Turned off.', url: `${receiver.url}/off` }, headers: owner.headers });
  const ctx = toolContext(s.app, owner.workspaceId, { http: [{ toolId, enabled: true }, { toolId: big.body.id, enabled: true }, { toolId: off.body.id, enabled: false }, { toolId: 'htool_gone', enabled: true }] });
  const tools = (await toolsFor(s, ctx)).filter((t) => t.source === 'http');
  assert.equal(tools.map((t) => t.name), ['get_weather', 'big']);
  assert.equal(tools[0].parameters, weatherTool().parameters);
  assert.not.ok(JSON.stringify(tools.map(({ run: _r, ...t }) => t)).includes(SECRET));
  const weather = await tools[0].run({ city: 'Oslo' }, callContext(ctx));
  assert.not.ok(weather.isError);
  assert.not.ok(weather.content.includes(SECRET));
  assert.is(JSON.parse(weather.content).tempC, 21);
  // Cutting to maxResultChars is the engine's job: run gives everything.
  const bigResult = await tools[1].run({}, callContext(ctx));
  assert.is(bigResult.content.length, 20_000);
  const bad = await tools[0].run({ town: 'Oslo' }, callContext(ctx));
  assert.ok(bad.isError);
  assert.match(bad.content, /^Invalid arguments/);
});

test('a non-2xx answer is an error result with its status', async () => {
  const t = await s.request('POST', '/api/v1/tools/http', { body: { name: 'missing', description: 'd', url: `${receiver.url}/missing` }, headers: owner.headers });
  const ctx = toolContext(s.app, owner.workspaceId, { http: [{ toolId: t.body.id, enabled: true }] });
  const [tool] = (await toolsFor(s, ctx)).filter((x) => x.source === 'http');
  const r = await tool.run({}, callContext(ctx));
  assert.ok(r.isError);
  assert.is(r.content, 'HTTP 404\nno such thing');
});

test('changing and deleting a tool', async () => {
  const r = await s.request('PATCH', `/api/v1/tools/http/${toolId}`, { body: { description: 'Weather now.', timeoutMs: 5000 }, headers: owner.headers });
  assert.is(r.status, 200);
  assert.is(r.body.description, 'Weather now.');
  assert.is(r.body.timeoutMs, 5000);
  assert.is(r.body.url, weatherTool().url);
  assert.is((await s.request('PATCH', `/api/v1/tools/http/${toolId}`, { body: { url: 'ftp://x' }, headers: owner.headers })).status, 422);
  assert.is((await s.request('DELETE', `/api/v1/tools/http/${toolId}`, { headers: owner.headers })).status, 204);
  assert.is((await s.request('DELETE', `/api/v1/tools/http/${toolId}`, { headers: owner.headers })).status, 404);
});

test.run();
