import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { SIGN_IN_LIMITS } from '../../src/auth/rate-limit.js';
import { DEFAULT_PASSWORD, setupOwner } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
const clock = new FakeClock();
// Behind a trusted proxy the client address comes from X-Forwarded-For, so one test can speak from many addresses.
test.before(async () => { s = await startTestServer({ clock, env: { TRUST_PROXY: 'true' } }); await setupOwner(s); });
test.after(async () => { await s.stop(); });

const OWNER = 'owner@example.com';
const login = (email: string, password: string, from = '198.51.100.1') =>
  s.request('POST', '/api/v1/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': from } });
/** Lets every window of the sign-in limits pass. */
const later = () => clock.advance(SIGN_IN_LIMITS.brake.windowMs + 1);

test('wrong passwords from one address do not lock the owner out: the right password from another address signs in', async () => {
  for (let i = 0; i < 10; i++) assert.is((await login(OWNER, 'wrong password', '203.0.113.7')).status, 401, `attempt ${i + 1}`);
  const owner = await login(OWNER, DEFAULT_PASSWORD, '198.51.100.20');
  assert.is(owner.status, 200, JSON.stringify(owner.body));
});

test('the guessing address itself is throttled with 429 and Retry-After, even for the right password', async () => {
  for (const password of ['wrong password', DEFAULT_PASSWORD]) {
    const r = await login(OWNER, password, '203.0.113.7');
    assert.is(r.status, 429);
    assert.is(r.body.error.code, 'rate_limited');
    assert.match(r.body.error.message, /Retry-After/);
    const retry = Number(r.headers.get('retry-after'));
    assert.ok(retry > 0 && retry <= 15 * 60, `Retry-After ${retry}`);
  }
  await clock.advance(SIGN_IN_LIMITS.pair.windowMs + 1);
  assert.is((await login(OWNER, DEFAULT_PASSWORD, '203.0.113.7')).status, 200, 'after the window the address may sign in again');
});

test('a guessing attack spread over many addresses is slowed to a few checked guesses per address', async () => {
  await later();
  const addresses = Array.from({ length: 25 }, (_, i) => `192.0.2.${i + 1}`);
  let checked = 0, refused = 0;
  for (let round = 0; round < 6; round++) {
    // Each round from every address at once, as a botnet would.
    for (const r of await Promise.all(addresses.map((from) => login(OWNER, `guess ${round}`, from)))) {
      if (r.status === 401) checked++;
      else if (r.status === 429) { refused++; assert.ok(Number(r.headers.get('retry-after')) > 0); }
      else assert.unreachable(`answered ${r.status}`);
    }
  }
  // Without the brake each address could try all 6 (under its own limit of 10): 150 guesses checked.
  assert.ok(checked <= addresses.length * SIGN_IN_LIMITS.brake.perAddress, `${checked} guesses were checked`);
  assert.is(checked + refused, 150);
  const owner = await login(OWNER, DEFAULT_PASSWORD, '198.51.100.99');
  assert.is(owner.status, 200, 'the owner, from an address that has not failed, still signs in during the attack');
  assert.is((await login(OWNER, 'guess 9', addresses[0])).status, 429, 'and that does not release the attackers');
});

test('one address guessing across many accounts is limited too', async () => {
  await later();
  const from = '203.0.113.50';
  const guesses = await Promise.all(Array.from({ length: SIGN_IN_LIMITS.address.limit }, (_, i) => login(`guess${i}@example.com`, 'wrong password', from)));
  assert.equal(guesses.map((r) => r.status), guesses.map(() => 401));
  const r = await login('someone-else@example.com', 'wrong password', from);
  assert.is(r.status, 429);
  assert.ok(r.headers.get('retry-after'));
});

test('behind the trusted proxy, addresses a client writes into X-Forwarded-For itself do not escape the limit', async () => {
  await later();
  // The proxy appends the address it saw (203.0.113.60); what the client sent comes before it, different each time.
  const spoofed = (i: number) => `10.9.${i}.1, 203.0.113.60`;
  const guesses = await Promise.all(Array.from({ length: SIGN_IN_LIMITS.address.limit }, (_, i) => login(`spoof${i}@example.com`, 'wrong password', spoofed(i))));
  assert.equal(guesses.map((r) => r.status), guesses.map(() => 401));
  assert.is((await login('spoof-more@example.com', 'wrong password', spoofed(99))).status, 429, 'counted for the address the proxy saw');
  assert.is((await login('spoof-more@example.com', 'wrong password', '203.0.113.60')).status, 429);
});

test('successful sign-ins do not count against the limit', async () => {
  await later();
  for (let i = 0; i < 12; i++) assert.is((await login(OWNER, DEFAULT_PASSWORD)).status, 200, `login ${i + 1}`);
});

test('a mistyped password, then the right one, from the same address signs in and clears that address', async () => {
  await later();
  for (let i = 0; i < 9; i++) assert.is((await login(OWNER, 'typo')).status, 401);
  assert.is((await login(OWNER, DEFAULT_PASSWORD)).status, 200);
  for (let i = 0; i < 9; i++) assert.is((await login(OWNER, 'typo')).status, 401, `typo ${i + 1} after signing in`);
});

test.run();
