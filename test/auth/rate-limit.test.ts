import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/clock.js';
import { DEFAULT_PASSWORD, setupOwner } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
const clock = new FakeClock();
test.before(async () => { s = await startTestServer({ clock }); await setupOwner(s); });
test.after(async () => { await s.stop(); });

const login = (email: string, password: string) => s.request('POST', '/api/v1/auth/login', { body: { email, password } });

test('ten wrong passwords in 15 minutes lock the account with 429 and Retry-After, even for the right password', async () => {
  for (let i = 0; i < 10; i++) assert.is((await login('owner@example.com', 'wrong password')).status, 401, `attempt ${i + 1}`);
  const r = await login('owner@example.com', DEFAULT_PASSWORD);
  assert.is(r.status, 429);
  assert.is(r.body.error.code, 'rate_limited');
  const retry = Number(r.headers.get('retry-after'));
  assert.ok(retry > 0 && retry <= 15 * 60, `Retry-After ${retry}`);
});

test('after the window passes the right password works again', async () => {
  await clock.advance(15 * 60 * 1000 + 1);
  assert.is((await login('owner@example.com', DEFAULT_PASSWORD)).status, 200);
});

test('one IP guessing across many accounts is limited too', async () => {
  await clock.advance(15 * 60 * 1000 + 1);
  for (let i = 0; i < 10; i++) assert.is((await login(`guess${i}@example.com`, 'wrong password')).status, 401);
  const r = await login('someone-else@example.com', 'wrong password');
  assert.is(r.status, 429);
  assert.ok(r.headers.get('retry-after'));
});

test('successful sign-ins do not count against the limit', async () => {
  await clock.advance(15 * 60 * 1000 + 1);
  for (let i = 0; i < 12; i++) assert.is((await login('owner@example.com', DEFAULT_PASSWORD)).status, 200, `login ${i + 1}`);
});

test.run();
