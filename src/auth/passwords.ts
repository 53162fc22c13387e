/**
 * Password hashing with scrypt (node:crypto): a random salt per password, parameters stored with the hash
 * so they can be raised later without breaking old hashes, and a timing-safe compare.
 * Stored form: `scrypt$<log2 N>$<r>$<p>$<salt b64url>$<hash b64url>`.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  // maxmem must exceed 128 * N * r bytes; leave headroom.
  const opts: ScryptOptions = { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFKC'), salt, KEY_BYTES, opts, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, LOG_N, R, P);
  return ['scrypt', LOG_N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

let dummyHash: Promise<string> | null = null;

/**
 * True when the password matches. With `stored` null (no such account) a hash is still computed against a
 * dummy, so an unknown e-mail takes as long as a wrong password and does not reveal which accounts exist.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const target = stored ?? await (dummyHash ??= hashPassword('dummy password for timing'));
  const parts = target.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [logN, r, p] = parts.slice(1, 4).map(Number);
  const expected = Buffer.from(parts[5], 'base64url');
  const key = await derive(password, Buffer.from(parts[4], 'base64url'), logN, r, p);
  return key.length === expected.length && timingSafeEqual(key, expected) && stored !== null;
}
