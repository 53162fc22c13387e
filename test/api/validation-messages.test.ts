import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import type { ApiError } from '../../src/kernel/errors.js';
import { validate } from '../../src/kernel/validation.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Every validation message reads "<field path>: <what is wrong and what is expected>", never the validator's own words.
let server: TestServer;
let owner: TestSession;
test.before(async () => {
  server = await startTestServer();
  owner = await setupOwner(server);
});
test.after(async () => { await server.stop(); });

const as = (method: string, path: string, body?: unknown) => server.request(method, path, { body, headers: owner.headers });
const refusal = async (method: string, path: string, body?: unknown) => {
  const r = await as(method, path, body);
  assert.is(r.status, 422, JSON.stringify(r.body));
  assert.is(r.body.error.code, 'invalid');
  return r.body.error.message as string;
};

test('a missing field is required, with what it takes', async () => {
  assert.is(await refusal('POST', '/api/v1/bots', {}), 'name: required (a string up to 80 characters)');
});

test('details list each problem with its path and the same words', async () => {
  const r = await as('POST', '/api/v1/bots', { nmae: 'Ava' });
  assert.equal(r.body.error.details, [
    { path: 'name', message: 'required (a string up to 80 characters)' },
    { path: 'nmae', message: 'unknown field; did you mean name? (accepted: name, templateId)' },
  ]);
  assert.is(r.body.error.message, 'name: required (a string up to 80 characters); nmae: unknown field; did you mean name? (accepted: name, templateId)');
});

test('lengths and numbers name their bounds and what was sent', async () => {
  assert.is(await refusal('POST', '/api/v1/bots', { name: 'x'.repeat(81) }), 'name: must be at most 80 characters long (it has 81)');
  assert.is(await refusal('POST', '/api/v1/bots', { name: '   ' }), 'name: must not be empty');
  assert.is(await refusal('POST', '/api/v1/tools/http', { name: 'crm', description: 'Customers', url: 'https://crm.example.com', timeoutMs: 500 }),
    'timeoutMs: must be at least 1000, not 500');
});

test('a wrong type says what is expected and what came, without echoing text', async () => {
  const bot = (await as('POST', '/api/v1/bots', { name: 'Typed' })).body;
  assert.is(await refusal('PATCH', `/api/v1/bots/${bot.id}`, { revision: 'sk-secret-value', name: 'x' }), 'revision: must be a whole number (at least 0), not a string');
  assert.is(await refusal('POST', '/api/v1/bots', [{ name: 'x' }]), 'body: must be an object, not a list');
});

test('a choice lists its options and the one refused', async () => {
  const bot = (await as('POST', '/api/v1/bots', { name: 'Choices' })).body;
  assert.is(await refusal('POST', `/api/v1/bots/${bot.id}/status`, { status: 'stopped' }), 'status: must be one of running or paused, not "stopped"');
  assert.is(await refusal('POST', '/api/v1/tokens', { name: 'CRM', scopes: ['leads:read', 'bots:rule'] }),
    'scopes.1: must be one of bots:read, bots:write, conversations:read, conversations:write, leads:read, leads:write, knowledge:write, '
    + 'analytics:read, providers:write, tools:write, webhooks:write, privacy:write or settings:read, not "bots:rule"');
  assert.is(await refusal('POST', '/api/v1/knowledge', { kind: 'pdf', url: 'https://example.com/a.pdf' }), 'kind: must be one of text, page, sitemap or crawl, not "pdf"');
});

test('formats say what they take', async () => {
  assert.is(await refusal('POST', '/api/v1/members/invite', { email: 'nobody', role: 'agent' }), 'email: must be an e-mail address');
});

test('query parameters are named under query', async () => {
  assert.is(await refusal('GET', '/api/v1/bots?limit=0'), 'query.limit: must be at least 1, not 0');
  assert.is(await refusal('GET', '/api/v1/bots?limit=many'), 'query.limit: must be a whole number from 1 to 200, not text that is not a number');
});

test('bot settings name their path, options, and the setting a typo meant', async () => {
  const bot = (await as('POST', '/api/v1/bots', { name: 'Settings' })).body;
  assert.is(await refusal('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, patch: { voice: { mode: 'video' }, brain: { maxToolRounds: 11 } } }),
    'brain.maxToolRounds: must be at most 10, not 11; voice.mode: must be one of realtime, cascade or hosted_agent, not "video"');
  assert.is(await refusal('PATCH', `/api/v1/bots/${bot.id}`, { revision: bot.revision, patch: { brain: { modle: 'gpt-4o-mini' } } }),
    'brain.modle: unknown setting; did you mean model? (accepted: connectionId, model, effort, maxOutputTokens, maxToolRounds, temperature, compactAtTokens)');
});

/** The message validate() throws for `value`. */
function messageOf(schema: z.ZodType, value: unknown): string {
  try {
    validate(schema, value);
  } catch (err) {
    return (err as ApiError).message;
  }
  throw new Error('accepted');
}

test('less common problems read the same way', () => {
  const S = z.strictObject({
    choice: z.literal('yes').optional(),
    either: z.union([z.string(), z.number()]).optional(),
    shape: z.union([z.strictObject({ url: z.url() }), z.strictObject({ command: z.string() })]).optional(),
    kind: z.discriminatedUnion('type', [z.object({ type: z.literal('a') }), z.object({ type: z.literal('b') })]).optional(),
    headers: z.record(z.string().regex(/^[a-z-]+$/), z.string()).optional(),
    step: z.number().multipleOf(5).optional(),
    ratio: z.number().gt(0).lt(1).optional(),
    tags: z.array(z.string()).min(1).max(3).optional(),
    day: z.iso.date().optional(),
    code: z.string().startsWith('sct_').optional(),
  });
  assert.is(messageOf(S, { choice: 'no' }), 'choice: must be "yes", not "no"');
  assert.is(messageOf(S, { either: true }), 'either: must be a string or a number, not true');
  assert.is(messageOf(S, { shape: { url: 'nope' } }), 'shape.url: must be a URL such as https://example.com');
  assert.is(messageOf(S, { kind: {} }), 'kind.type: required (one of a or b)');
  assert.is(messageOf(S, { kind: { type: 'c' } }), 'kind.type: must be one of a or b, not "c"');
  assert.is(messageOf(S, { headers: { 'X-Bad': 'v' } }), 'headers.X-Bad: not accepted as a key: must match the pattern ^[a-z-]+$');
  assert.is(messageOf(S, { step: 7 }), 'step: must be a multiple of 5');
  assert.is(messageOf(S, { ratio: 1 }), 'ratio: must be less than 1, not 1');
  assert.is(messageOf(S, { ratio: 'half' }), 'ratio: must be a number (more than 0 and less than 1), not a string');
  assert.is(messageOf(S, { tags: [] }), 'tags: must not be empty');
  assert.is(messageOf(S, { tags: ['a', 'b', 'c', 'd'] }), 'tags: must have at most 3 entries (it has 4)');
  assert.is(messageOf(S, { day: '2025-02-30' }), 'day: must be a date YYYY-MM-DD');
  assert.is(messageOf(S, { code: 'abc' }), 'code: must start with "sct_"');
  assert.is(messageOf(S, { one: 1, two: 2 }), 'one: unknown field (accepted: choice, either, shape, kind, headers, step, ratio, tags, day, code); '
    + 'two: unknown field (accepted: choice, either, shape, kind, headers, step, ratio, tags, day, code)');
});

test('a message a schema gives itself is kept', () => {
  const S = z.strictObject({ accent: z.string().regex(/^#[0-9a-f]{6}$/i, 'must be a colour #rrggbb such as #6366f1') });
  assert.is(messageOf(S, { accent: 'red' }), 'accent: must be a colour #rrggbb such as #6366f1');
});

test.run();
