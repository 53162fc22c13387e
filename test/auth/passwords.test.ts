import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hashPassword, verifyPassword } from '../../src/auth/passwords.js';

test('the same password hashes differently each time (a salt per password) and verifies', async () => {
  const a = await hashPassword('correct horse');
  const b = await hashPassword('correct horse');
  assert.is.not(a, b);
  assert.match(a, /^scrypt\$15\$8\$1\$[\w-]+\$[\w-]+$/);
  assert.ok(await verifyPassword('correct horse', a));
  assert.not.ok(await verifyPassword('correct horsE', a));
});

test('checking against no account does the same scrypt work and says no', async () => {
  const stored = await hashPassword('x');
  await verifyPassword('warm up', null);
  const t0 = performance.now();
  assert.not.ok(await verifyPassword('anything', null));
  const unknown = performance.now() - t0;
  const t1 = performance.now();
  await verifyPassword('anything', stored);
  const known = performance.now() - t1;
  // Same parameters, so the same order of time (loose bounds: this only guards against skipping the hash).
  assert.ok(unknown > known / 5, `unknown ${unknown.toFixed(1)} ms vs known ${known.toFixed(1)} ms`);
});

test('a malformed stored hash never verifies', async () => {
  assert.not.ok(await verifyPassword('x', 'plain-text-password'));
});

test.run();
