import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openSecret } from '../../src/security/secret-box.js';
import { startWorld, type World } from '../bots-api/setup.js';

let w: World;
test.before(async () => { w = await startWorld(); });
test.after(async () => { await w.close(); });

const stored = () => w.server.app.store.collection<any>('providers').find({ workspaceId: w.owner.workspaceId });

test('the catalog lists the four kinds of provider', async () => {
  const r = await w.as('GET', '/api/v1/providers/catalog');
  assert.is(r.status, 200);
  assert.equal(r.body.items.map((p: any) => p.letter), ['A', 'B', 'C', 'D']);
  assert.match(r.body.items[0].docsHint, /http:\/\/localhost:11434\/v1 \(an address on this machine or your network needs the server started with ALLOW_PRIVATE_NETWORK=true\)/);
});

test('a bad key gives 422 naming apiKey and nothing is saved', async () => {
  const r = await w.as('POST', '/api/v1/providers', { kind: 'openai', apiKey: 'sk-wrong-key', baseUrl: w.openai.baseUrl });
  assert.is(r.status, 422);
  assert.is(r.body.error.code, 'invalid');
  assert.match(r.body.error.message, /apiKey/);
  assert.is((await stored()).length, 0);
  assert.equal((await w.as('GET', '/api/v1/providers')).body.items, []);
});

test('an OpenAI-compatible connection without a base URL is refused naming baseUrl', async () => {
  const r = await w.as('POST', '/api/v1/providers', { kind: 'openai_compatible', apiKey: 'x' });
  assert.is(r.status, 422);
  assert.match(r.body.error.message, /baseUrl/);
});

test('a base URL that answers 404 is refused in plain words, with where the /v1 usually goes', async () => {
  const root = w.openai.baseUrl.replace(/\/v1$/, '');
  const r = await w.as('POST', '/api/v1/providers', { kind: 'openai_compatible', apiKey: w.openai.apiKey, baseUrl: root });
  assert.is(r.status, 422);
  assert.is(r.body.error.message, `baseUrl: ${root} answered 404 (not found), so it does not look like the API of the OpenAI-compatible provider; check the address (an OpenAI-compatible base URL usually ends in /v1, e.g. http://localhost:11434/v1 for Ollama)`);
  const speech = await w.as('POST', '/api/v1/providers', { kind: 'speech', apiKey: w.speech.apiKey, baseUrl: `${w.speech.baseUrl}/nothing-here` });
  assert.is(speech.status, 422);
  assert.is(speech.body.error.message, `baseUrl: ${w.speech.baseUrl}/nothing-here answered 404 (not found), so it does not look like the API of the speech provider; check the address`);
});

test('a good key is saved sealed and never returned, only a hint of its end', async () => {
  const key = 'test-key';
  const conn = await w.connectOpenAI('Main brain');
  assert.is(conn.kind, 'openai');
  assert.is(conn.letter, 'B');
  assert.is(conn.name, 'Main brain');
  assert.not.ok(JSON.stringify(conn).includes(key));
  assert.not.ok('apiKey' in conn);
  const list = await w.as('GET', '/api/v1/providers');
  assert.is(list.body.items.length, 1);
  assert.not.ok(JSON.stringify(list.body).includes(key));
  const [doc] = await stored();
  assert.not.ok(JSON.stringify(doc).includes(key), 'the stored record holds no plain key');
  assert.is(openSecret(doc.apiKeySealed, w.server.app.secretKey, doc._id), key);
});

test('a connection can be renamed', async () => {
  const [doc] = await stored();
  const r = await w.as('PATCH', `/api/v1/providers/${doc._id}`, { name: 'Renamed' });
  assert.is(r.status, 200);
  assert.is(r.body.name, 'Renamed');
});

test('replacing the key with a bad one gives 422 and keeps the old key', async () => {
  const [doc] = await stored();
  const r = await w.as('PATCH', `/api/v1/providers/${doc._id}`, { apiKey: 'sk-also-wrong' });
  assert.is(r.status, 422);
  const [after] = await stored();
  assert.is(openSecret(after.apiKeySealed, w.server.app.secretKey, after._id), 'test-key');
});

test('replacing the key with a good one is checked and saved', async () => {
  const [doc] = await stored();
  const before = w.openai.requests.length;
  const r = await w.as('PATCH', `/api/v1/providers/${doc._id}`, { apiKey: 'test-key' });
  assert.is(r.status, 200);
  assert.ok(w.openai.requests.length > before, 'the provider was asked');
});

test('test checks the key again and reports a key the provider now refuses', async () => {
  const [doc] = await stored();
  const ok = await w.as('POST', `/api/v1/providers/${doc._id}/test`);
  assert.is(ok.status, 200);
  assert.is(ok.body.ok, true);
  w.openai.failNext('/models', 401, 'Incorrect API key provided');
  const bad = await w.as('POST', `/api/v1/providers/${doc._id}/test`);
  assert.is(bad.status, 200);
  assert.is(bad.body.ok, false);
  assert.match(bad.body.message, /apiKey/);
});

test('an unknown connection gives 404', async () => {
  const r = await w.as('POST', '/api/v1/providers/prv_nope/test');
  assert.is(r.status, 404);
});

test('a viewer token can list connections but not add one', async () => {
  const { createToken } = await import('../helpers/auth.js');
  const token = await createToken(w.server, w.owner, ['bots:read']);
  assert.is((await w.server.request('GET', '/api/v1/providers', { headers: token.headers })).status, 200);
  const r = await w.server.request('POST', '/api/v1/providers', { headers: token.headers, body: { kind: 'openai', apiKey: 'x' } });
  assert.is(r.status, 403);
});

test.run();
