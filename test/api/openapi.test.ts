import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OPERATIONS } from '../../src/api/operations.js';
import { setupOwner } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let doc: any;

test.before(async () => {
  server = await startTestServer();
  doc = (await server.request('GET', '/api/openapi.json')).body;
});
test.after(async () => { await server.stop(); });

const operationOf = (method: string, path: string) => doc.paths[path]?.[method.toLowerCase()];
const successes = (op: any) => Object.entries(op.responses as Record<string, any>).filter(([s]) => /^2\d\d$/.test(s));

/** Every $ref value anywhere under v. */
function refs(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) v.forEach((x) => refs(x, out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) { if (k === '$ref' && typeof x === 'string') out.push(x); else refs(x, out); }
  return out;
}

test('the description is OpenAPI 3.1', () => {
  assert.match(doc.openapi, /^3\.1\./);
});

test('every one of the 101 spec operations is described, and the one the server adds (bot health)', () => {
  const spec = (JSON.parse(readFileSync(new URL('../fixtures/spec/service-api-operations.json', import.meta.url), 'utf8')) as { operations: [string, string][] })
    .operations.map(([method, path]) => `${method.toUpperCase()} ${path}`);
  assert.is(spec.length, 101);
  assert.equal(OPERATIONS.map((op) => `${op.method} ${op.path}`).filter((op) => !spec.includes(op)), ['GET /api/v1/bots/{id}/health']);
  const missing = OPERATIONS.filter((op) => !operationOf(op.method, op.path)).map((op) => `${op.method} ${op.path}`);
  assert.equal(missing, []);
});

test('every operation documents a success answer with a schema, a media type, or 204 no content', () => {
  const bad: string[] = [];
  for (const op of OPERATIONS) {
    const o = operationOf(op.method, op.path);
    const ok = successes(o);
    if (ok.length === 0) { if (!o.responses['501']) bad.push(`${op.method} ${op.path}: no success answer`); continue; }
    for (const [status, r] of ok) {
      if (status === '204') { if (r.content) bad.push(`${op.method} ${op.path}: 204 with content`); continue; }
      const content = Object.entries((r.content ?? {}) as Record<string, any>);
      if (content.length === 0) bad.push(`${op.method} ${op.path} ${status}: neither schema nor media type`);
      for (const [type, c] of content) if (!c.schema) bad.push(`${op.method} ${op.path} ${status} ${type}: no schema`);
    }
  }
  assert.equal(bad, []);
});

test('operations that answer nothing are documented as 204, not 200', () => {
  for (const [method, path] of [['DELETE', '/api/v1/bots/{id}'], ['DELETE', '/api/v1/tools/http/{id}'], ['DELETE', '/api/v1/secrets/{id}'], ['DELETE', '/api/v1/providers/{id}'], ['DELETE', '/api/v1/leads/{id}']]) {
    const o = operationOf(method, path);
    assert.equal(successes(o).map(([s]) => s), ['204'], `${method} ${path}`);
  }
});

test('non-JSON answers name their media types', () => {
  const types = (method: string, path: string) => Object.keys(successes(operationOf(method, path))[0][1].content);
  assert.equal(types('GET', '/api/v1/leads.csv'), ['text/csv']);
  assert.equal(types('GET', '/api/v1/conversations/{id}/export').sort(), ['application/json', 'text/markdown']);
  assert.equal(types('GET', '/api/v1/attachments/{id}'), ['image/*']);
  assert.equal(types('GET', '/api/v1/providers/{id}/voices/{voiceId}/preview'), ['audio/*']);
});

test('a secret that is set documents both 201 (created) and 200 (replaced)', () => {
  assert.equal(successes(operationOf('PUT', '/api/v1/secrets/{name}')).map(([s]) => s).sort(), ['200', '201']);
});

test('the bot PATCH body refers to the bot configuration for both patch and config', () => {
  const body = operationOf('PATCH', '/api/v1/bots/{id}').requestBody.content['application/json'].schema;
  const props = body.properties ?? doc.components.schemas[body.$ref.split('/').pop()].properties;
  assert.is(props.config.$ref, '#/components/schemas/BotConfigInput');
  assert.is(props.patch.$ref, '#/components/schemas/BotConfigInput');
  assert.match(props.patch.description, /deep-partial/);
});

test('every $ref resolves inside the document', () => {
  const unresolved = [...new Set(refs(doc))].filter((ref) => {
    if (!ref.startsWith('#/')) return true;
    let at: any = doc;
    for (const part of ref.slice(2).split('/')) at = at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    return at === undefined;
  });
  assert.equal(unresolved, []);
});

test('an answer that breaks its declared schema is reported with the field path', async () => {
  const { responseChecker } = await import('../../src/api/response-check.js');
  const { z } = await import('zod');
  const check = responseChecker(doc);
  const def = { response: z.object({}), handler: () => undefined };
  const { items } = (await server.request('GET', '/api/v1/providers/catalog', { headers: (await setupOwner(server)).headers })).body;
  assert.is(check('GET', '/api/v1/providers/catalog', def, { status: 200, body: { items } }), null);
  assert.match(check('GET', '/api/v1/providers/catalog', def, { status: 200, body: { items: [{ ...items[0], kind: 7 }] } }) ?? '', /^items\.0\.kind: /);
  assert.match(check('GET', '/api/v1/providers/catalog', def, { status: 200, body: { items: [{ ...items[0], extra: 1 }] } }) ?? '', /^items\.0\.extra: /);
  assert.match(check('GET', '/api/v1/providers/catalog', def, { status: 201, body: { items } }) ?? '', /status 201 is not documented/);
});

test.run();
