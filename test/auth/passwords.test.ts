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
  // Processor time, not wall time: scrypt runs on libuv's threads, counted in this process's usage, and a busy
  // machine does not stretch it (this file runs in its own process, with nothing else going on).
  const cpuMs = async (check: () => Promise<boolean>) => {
    const before = process.cpuUsage();
    assert.not.ok(await check());
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  };
  const unknown = await cpuMs(() => verifyPassword('anything', null));
  const known = await cpuMs(() => verifyPassword('anything', stored));
  // Same parameters, so the same work (loose bounds: this only guards against skipping the hash).
  assert.ok(unknown > known / 2, `unknown ${unknown.toFixed(1)} ms vs known ${known.toFixed(1)} ms of processor time`);
});

test('a malformed stored hash never verifies', async () => {
  assert.not.ok(await verifyPassword('x', 'plain-text-password'));
});

test.run();
