/**
 * Secrets at rest (provider keys, tool secrets, webhook signing secrets) and token hashing.
 * Sealed form: "v1:" + base64url(iv[12] | tag[16] | ciphertext), AES-256-GCM. The version prefix
 * lets a later key or algorithm change read old values.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

const VERSION = 'v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/**
 * Derives the 32-byte encryption key from the server secret (SECRET_KEY, at least 32 random
 * characters). HKDF is enough because the input is already high-entropy; a fixed salt and info
 * keep the key stable across restarts and separate from other uses of the same secret.
 */
export function deriveKey(serverSecret: string): Buffer {
  if (!serverSecret) throw new SecretBoxError('server secret is empty');
  return Buffer.from(hkdfSync('sha256', serverSecret, 'service-chat', 'secret-box v1 aes-256-gcm', KEY_BYTES));
}

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new SecretBoxError(`key must be ${KEY_BYTES} bytes (use deriveKey)`);
}

/**
 * Encrypts `plain`. `context` (optional, e.g. the record id) is bound as associated data, so a
 * sealed value copied onto another record does not open there.
 */
export function sealSecret(plain: string, key: Buffer, context = ''): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return VERSION + Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64url');
}

/** Decrypts a value made by sealSecret; a wrong key, context or any changed byte throws SecretBoxError. */
export function openSecret(sealed: string, key: Buffer, context = ''): string {
  checkKey(key);
  if (!sealed.startsWith(VERSION)) throw new SecretBoxError('sealed secret has an unknown format or version');
  const raw = Buffer.from(sealed.slice(VERSION.length), 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('sealed secret is too short');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretBoxError('sealed secret failed authentication (wrong key or tampered value)');
  }
}

/** True when a stored string is a sealed secret (for migrations that seal plain values once). */
export const isSealed = (value: string): boolean => value.startsWith(VERSION);

/** SHA-256 hex of a token value: what is stored for API tokens, invitation and session tokens. */
export function hashToken(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/**
 * Constant-time equality. Both sides are hashed first so unequal lengths take the same time and
 * timingSafeEqual always gets equal-length inputs.
 */
export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
