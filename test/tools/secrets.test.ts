import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setupOwner, addMember, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { SecretRecord } from '../../src/tools/secrets.js';

let s: TestServer;
let owner: TestSession;

test.before(async () => {
  s = await startTestServer();
  owner = await setupOwner(s);
});
test.after(async () => { await s.stop(); });

const VALUE = 'sk-live-7f3a9c1e5b2d';

test('setting a secret answers 201 with its name and never its value', async () => {
  const r = await s.request('PUT', '/api/v1/secrets/WEATHER_KEY', { body: { value: VALUE }, headers: owner.headers });
  assert.is(r.status, 201);
  assert.is(r.body.name, 'WEATHER_KEY');
  assert.ok(r.body.id.startsWith('sec_'));
  assert.not.ok(JSON.stringify(r.body).includes(VALUE));
});

test('the value is encrypted at rest: the stored record does not contain it', async () => {
  const rec = await s.app.store.collection<SecretRecord>('secrets').findOne({ workspaceId: owner.workspaceId, name: 'WEATHER_KEY' });
  assert.ok(rec);
  assert.not.ok(JSON.stringify(rec).includes(VALUE));
  assert.ok(rec!.value.startsWith('v1:'));
  const { values } = await s.services.secrets.resolve(owner.workspaceId, ['WEATHER_KEY']);
  assert.is(values.get('WEATHER_KEY'), VALUE);
});

test('setting it again replaces the value and answers 200 with the same id', async () => {
  const list1 = await s.request('GET', '/api/v1/secrets', { headers: owner.headers });
  const r = await s.request('PUT', '/api/v1/secrets/WEATHER_KEY', { body: { value: 'second-value' }, headers: owner.headers });
  assert.is(r.status, 200);
  assert.is(r.body.id, list1.body.items[0].id);
  const { values } = await s.services.secrets.resolve(owner.workspaceId, ['WEATHER_KEY']);
  assert.is(values.get('WEATHER_KEY'), 'second-value');
});

test('the list shows names and dates, no values', async () => {
  await s.request('PUT', '/api/v1/secrets/CRM_TOKEN', { body: { value: 'crm-token-value' }, headers: owner.headers });
  const r = await s.request('GET', '/api/v1/secrets', { headers: owner.headers });
  assert.is(r.status, 200);
  assert.equal(r.body.items.map((x: any) => x.name).sort(), ['CRM_TOKEN', 'WEATHER_KEY']);
  assert.equal(Object.keys(r.body.items[0]).sort(), ['createdAt', 'id', 'name', 'updatedAt']);
  assert.not.ok(JSON.stringify(r.body).includes('crm-token-value'));
});

test('a badly formed name or an empty value gives 422 naming the field', async () => {
  const bad = await s.request('PUT', '/api/v1/secrets/lower-case', { body: { value: 'x' }, headers: owner.headers });
  assert.is(bad.status, 422);
  assert.match(bad.body.error.message, /name/);
  const empty = await s.request('PUT', '/api/v1/secrets/OK_NAME', { body: { value: '' }, headers: owner.headers });
  assert.is(empty.status, 422);
  assert.match(empty.body.error.message, /value/);
});

test('a secret can be deleted by name or by id, and then 404', async () => {
  const byName = await s.request('DELETE', '/api/v1/secrets/CRM_TOKEN', { headers: owner.headers });
  assert.is(byName.status, 204);
  const list = await s.request('GET', '/api/v1/secrets', { headers: owner.headers });
  const id = list.body.items[0].id;
  assert.is((await s.request('DELETE', `/api/v1/secrets/${id}`, { headers: owner.headers })).status, 204);
  assert.is((await s.request('DELETE', `/api/v1/secrets/${id}`, { headers: owner.headers })).status, 404);
  assert.equal((await s.request('GET', '/api/v1/secrets', { headers: owner.headers })).body.items, []);
});

test('a viewer may not see or set secrets', async () => {
  const viewer = await addMember(s, owner, 'viewer');
  assert.is((await s.request('GET', '/api/v1/secrets', { headers: viewer.headers })).status, 403);
  assert.is((await s.request('PUT', '/api/v1/secrets/X', { body: { value: 'v' }, headers: viewer.headers })).status, 403);
});

test.run();
