import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { API_RATE_DEFAULTS, loadConfig } from '../../src/config/index.js';
import { createToken, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Issue 40, item 5: the REST API had no rate limit at all (a leads:read token read 415 MB in 5 s).
const PER_TOKEN = 20;
const PER_ADDRESS = 50;
let s: TestServer;
let owner: TestSession;
const clock = new FakeClock();
// Behind a trusted proxy the client address comes from X-Forwarded-For, so one test can speak from many addresses.
test.before(async () => {
  s = await startTestServer({ clock, env: { TRUST_PROXY: 'true', API_RATE_PER_TOKEN: String(PER_TOKEN), API_RATE_PER_ADDRESS: String(PER_ADDRESS) } });
  owner = await setupOwner(s);
});
test.after(async () => { await s.stop(); });

let lastAddress = 0;
const freshAddress = () => `198.51.100.${++lastAddress}`;
const get = (path: string, headers: Record<string, string>, from: string) => s.request('GET', path, { headers: { ...headers, 'x-forwarded-for': from } });

test('the defaults: 600 requests a minute per token, 1,200 per address', () => {
  const prod = loadConfig({ NODE_ENV: 'production' });
  assert.is(prod.apiRatePerToken, API_RATE_DEFAULTS.perToken);
  assert.is(prod.apiRatePerAddress, API_RATE_DEFAULTS.perAddress);
  assert.equal(API_RATE_DEFAULTS, { perToken: 600, perAddress: 1200 });
  assert.is(loadConfig({ NODE_ENV: 'test' }).apiRatePerToken, 600, 'the same in every environment');
  assert.is(loadConfig({ NODE_ENV: 'production', API_RATE_PER_TOKEN: '0' }).apiRatePerToken, 0, '0 turns the limit off');
  assert.throws(() => loadConfig({ API_RATE_PER_ADDRESS: 'lots' }), /API_RATE_PER_ADDRESS/);
});

test('a token past its minute gets 429 rate_limited with Retry-After, from every address, until the minute has passed', async () => {
  const token = await createToken(s, owner, ['leads:read']);
  const answers = await Promise.all(Array.from({ length: PER_TOKEN }, (_, i) => get('/api/v1/leads', token.headers, `203.0.113.${i + 1}`)));
  assert.equal(answers.map((r) => r.status), answers.map(() => 200));
  await clock.advance(30_000);
  const r = await get('/api/v1/leads', token.headers, freshAddress());
  assert.is(r.status, 429);
  assert.is(r.body.error.code, 'rate_limited');
  assert.match(r.body.error.message, /API token: at most 20 a minute.*Retry-After/);
  assert.is(Number(r.headers.get('retry-after')), 30, 'the oldest request leaves the window in 30 s');
  // Another token of the same workspace is counted on its own.
  const other = await createToken(s, owner, ['leads:read']);
  assert.is((await get('/api/v1/leads', other.headers, freshAddress())).status, 200);
  await clock.advance(30_001);
  assert.is((await get('/api/v1/leads', token.headers, freshAddress())).status, 200, 'allowed again once the minute has passed');
});

test('one address past its minute gets 429 whoever it is, signed in, with a token or with none; other addresses go on', async () => {
  await clock.advance(60_001);
  const from = freshAddress();
  const token = await createToken(s, owner, ['bots:read']);
  const callers = [owner.headers, token.headers, {}];
  const answers = await Promise.all(Array.from({ length: PER_ADDRESS }, (_, i) => get('/api/v1/bots', callers[i % 3], from)));
  assert.equal([...new Set(answers.map((r) => r.status))].sort(), [200, 401]);
  for (const headers of callers) {
    const r = await get('/api/v1/bots', headers, from);
    assert.is(r.status, 429);
    assert.match(r.body.error.message, /from this address: at most 50 a minute/);
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
  }
  // Bad tokens are counted before they are looked up: a flood of guesses is slowed as well.
  assert.is((await get('/api/v1/bots', { authorization: 'Bearer sc_guess' }, from)).status, 429);
  assert.is((await get('/api/v1/bots', owner.headers, freshAddress())).status, 200, 'another address is not affected');
  assert.is((await s.request('GET', '/healthz', { headers: { 'x-forwarded-for': from } })).status, 200, 'health checks are not limited');
});

test.run();
