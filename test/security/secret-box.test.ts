import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deriveKey, hashToken, isSealed, openSecret, safeEqual, sealSecret, SecretBoxError } from '../../src/security/secret-box.js';

const isBoxError = (e: unknown) => e instanceof SecretBoxError;
const key = deriveKey('0123456789abcdef0123456789abcdef-server-secret');

test('a sealed secret opens back to the same text', () => {
  for (const plain of ['sk-live-123', '', 'ünïcødé ✓ 🔑', 'x'.repeat(10_000)]) {
    assert.is(openSecret(sealSecret(plain, key), key), plain);
  }
});

test('the sealed form is versioned and never contains the plain text', () => {
  const sealed = sealSecret('sk-live-123', key);
  assert.ok(sealed.startsWith('v1:'));
  assert.ok(isSealed(sealed));
  assert.not.ok(isSealed('sk-live-123'));
  assert.not.match(sealed, /sk-live/);
});

test('sealing the same text twice gives different values (random IV)', () => {
  assert.is.not(sealSecret('same', key), sealSecret('same', key));
});

test('the same server secret always derives the same key; another secret another key', () => {
  assert.equal(deriveKey('0123456789abcdef0123456789abcdef-server-secret'), key);
  assert.is(key.length, 32);
  assert.not.equal(deriveKey('another-secret-another-secret-another'), key);
  assert.throws(() => deriveKey(''), isBoxError);
});

test('a changed byte anywhere in the sealed value is refused', () => {
  const sealed = sealSecret('webhook-secret', key);
  const raw = Buffer.from(sealed.slice(3), 'base64url');
  for (const at of [0, 11, 12, 27, 28, raw.length - 1]) {
    const bad = Buffer.from(raw);
    bad[at] ^= 1;
    assert.throws(() => openSecret('v1:' + bad.toString('base64url'), key), isBoxError, `byte ${at}`);
  }
});

test('the wrong key, the wrong context, a short or unversioned value are refused', () => {
  const sealed = sealSecret('provider-key', key, 'prov_1');
  assert.is(openSecret(sealed, key, 'prov_1'), 'provider-key');
  assert.throws(() => openSecret(sealed, deriveKey('a-different-server-secret-of-32-chars')), /failed authentication/);
  assert.throws(() => openSecret(sealed, key, 'prov_2'), /failed authentication/);
  assert.throws(() => openSecret(sealed, key), /failed authentication/);
  assert.throws(() => openSecret('v1:abc', key), /too short/);
  assert.throws(() => openSecret('v2:' + sealed.slice(3), key), /unknown format/);
  assert.throws(() => sealSecret('x', Buffer.alloc(16)), /32 bytes/);
});

test('hashToken gives the sha256 hex of the value', () => {
  assert.is(hashToken('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.is(hashToken('abc').length, 64);
});

test('safeEqual compares strings and buffers, including different lengths', () => {
  assert.ok(safeEqual('token-value', 'token-value'));
  assert.ok(safeEqual(Buffer.from('abc'), 'abc'));
  assert.not.ok(safeEqual('token-value', 'token-valuf'));
  assert.not.ok(safeEqual('short', 'a much longer value'));
  assert.not.ok(safeEqual('', 'x'));
});

test.run();
