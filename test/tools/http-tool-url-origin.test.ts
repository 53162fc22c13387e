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

const save = (url: string, name = 'lookup') => s.request('POST', '/api/v1/tools/http', {
  body: { name, description: 'Looks things up.', method: 'GET', url, parameters: { type: 'object', properties: { host: { type: 'string' } } } },
  headers: owner.headers,
});

test('placeholders in the scheme, host or port of an HTTP tool URL are refused with 422 naming url', async () => {
  for (const url of [
    'https://{{args.host}}/v1/items',
    'https://api.{{args.host}}/v1/items',
    'https://api.example.com{{args.host}}/v1',
    'https://api.example.com:{{args.host}}/v1',
    'http{{args.host}}://api.example.com/v1',
  ]) {
    const r = await save(url);
    assert.is(r.status, 422, `${url}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error.message, /^url: /, url);
    assert.match(r.body.error.message, /scheme, host or port|placeholder/, url);
  }
  const list = await s.request('GET', '/api/v1/tools/http', { headers: owner.headers });
  assert.is(list.body.items.length, 0, 'nothing was saved');
});

test('placeholders in the path and query are accepted, and a change cannot move one into the host', async () => {
  const ok = await save('https://api.example.com:8443/v1/{{args.host}}?q={{args.host}}&key={{secrets.KEY}}');
  assert.is(ok.status, 201, JSON.stringify(ok.body));
  const moved = await s.request('PATCH', `/api/v1/tools/http/${ok.body.id}`, { body: { url: 'https://{{args.host}}.example.com/v1' }, headers: owner.headers });
  assert.is(moved.status, 422, JSON.stringify(moved.body));
  assert.match(moved.body.error.message, /^url: placeholders may not be in the scheme, host or port/);
});

test.run();
