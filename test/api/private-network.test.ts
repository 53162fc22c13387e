import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sealSecret } from '../../src/security/secret-box.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ingestionIdle } from '../knowledge/helpers.js';

// A server as installed by default: private addresses refused. Every refusal a person reads says how to allow them.
let server: TestServer;
let owner: TestSession;
test.before(async () => {
  server = await startTestServer({ env: { ALLOW_PRIVATE_NETWORK: 'false' } });
  owner = await setupOwner(server);
});
test.after(async () => { await server.stop(); });

const as = (method: string, path: string, body?: unknown) => server.request(method, path, { body, headers: owner.headers });
const HOW = "if this server should reach private addresses (a model server on this machine, an intranet service), set ALLOW_PRIVATE_NETWORK=true in the server's environment and restart it";
const refused = (what: string) => `${what} is not on the public internet (private, loopback, link-local and reserved addresses are refused); ${HOW}`;
const OLLAMA = 'http://localhost:11434/v1';

test('connecting Ollama on localhost says the address is private and how to allow it', async () => {
  const r = await as('POST', '/api/v1/providers', { kind: 'openai_compatible', apiKey: 'ollama', baseUrl: OLLAMA });
  assert.is(r.status, 422);
  assert.is(r.body.error.code, 'invalid');
  assert.is(r.body.error.message, `baseUrl: ${OLLAMA} cannot be used: ${refused('localhost resolves to an address that')}`);
});

test('every kind of provider on a private address gets the same advice', async () => {
  for (const kind of ['openai', 'gemini', 'speech']) {
    const r = await as('POST', '/api/v1/providers', { kind, apiKey: 'k', baseUrl: 'http://10.0.0.7:8080' });
    assert.is(r.status, 422, kind);
    assert.is(r.body.error.message, `baseUrl: http://10.0.0.7:8080 cannot be used: ${refused('address 10.0.0.7')}`, kind);
  }
});

test('a stored connection whose address is now refused says so when tested and when listing models', async () => {
  // As after a restart with ALLOW_PRIVATE_NETWORK turned off: the connection was saved while it was allowed.
  const app = server.app;
  const _id = 'prv_private1';
  await app.store.collection('providers').insertOne({
    _id, workspaceId: owner.workspaceId, kind: 'openai_compatible', name: 'Ollama', baseUrl: OLLAMA,
    apiKeySealed: sealSecret('ollama', app.secretKey, _id), createdAt: 1, updatedAt: 1,
  } as never);
  const checked = await as('POST', `/api/v1/providers/${_id}/test`);
  assert.is(checked.status, 200);
  assert.is(checked.body.ok, false);
  assert.is(checked.body.message, `baseUrl: ${OLLAMA} cannot be used: ${refused('localhost resolves to an address that')}`);
  const models = await as('GET', `/api/v1/providers/${_id}/models`);
  assert.is(models.status, 502);
  assert.is(models.body.error.message, `the OpenAI-compatible provider at ${OLLAMA} cannot be used: ${refused('localhost resolves to an address that')}`);
});

test('a webhook to a private address says how to allow it', async () => {
  const r = await as('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:8080/hook', events: ['lead.captured'] });
  assert.is(r.status, 422);
  assert.is(r.body.error.message, `url: ${refused('address 127.0.0.1')}`);
});

test('an HTTP tool test against a private address says how to allow it', async () => {
  const tool = await as('POST', '/api/v1/tools/http', { name: 'crm', description: 'Looks up a customer', url: 'http://192.168.1.20/customers' });
  assert.is(tool.status, 201);
  const r = await as('POST', `/api/v1/tools/http/${tool.body.id}/test`, {});
  assert.is(r.status, 200);
  assert.equal(r.body.error, { code: 'blocked_address', message: refused('address 192.168.1.20') });
});

test('an MCP server on a private address says how to allow it', async () => {
  const r = await as('POST', '/api/v1/tools/mcp', { name: 'Local tools', url: 'http://127.0.0.1:3001/mcp' });
  assert.is(r.status, 422);
  assert.is(r.body.error.message, `could not connect to the MCP server: ${refused('address 127.0.0.1')}`);
});

test('a knowledge page on a private address fails with the advice on its source', async () => {
  const r = await as('POST', '/api/v1/knowledge', { kind: 'page', url: 'http://127.0.0.1:8080/handbook' });
  assert.is(r.status, 201);
  await ingestionIdle(server.app, r.body.id);
  const source = (await as('GET', '/api/v1/knowledge')).body.items.find((s: any) => s.id === r.body.id);
  assert.is(source.status, 'failed');
  assert.is(source.error, `1 page(s) failed; first: ${refused('address 127.0.0.1')}`);
});

test.run();
