/**
 * What a new password must not be (ASVS 5.0 V6.2): shorter than 8 characters, only whitespace, or one of the
 * passwords attackers try first (common-passwords.ts, their variants with digits or symbols around them, one
 * character repeated, a straight run). Used everywhere a password is set: setup, invitation, change, reset CLI.
 */
import { COMMON_PASSWORDS } from './common-passwords.js';

export const MIN_PASSWORD_LENGTH = 8;
const CHOOSE = 'choose a passphrase of three or four unrelated words, or a long random password from a password manager';

export const TOO_SHORT = `must be at least ${MIN_PASSWORD_LENGTH} characters: ${CHOOSE}`;

/** Why this password is refused, as a sentence that says what to choose; null when it is fine. */
export function passwordProblem(password: string): string | null {
  if (password.trim() === '') return `must not be only spaces: ${CHOOSE}`;
  if ([...password].length < MIN_PASSWORD_LENGTH) return TOO_SHORT;
  if (isCommon(password)) return `is one of the most common passwords, which attackers try first: ${CHOOSE}`;
  return null;
}

function isCommon(password: string): boolean {
  const plain = password.toLowerCase().replace(/\s+/g, '');
  if (COMMON_PASSWORDS.has(plain)) return true;
  // A common word with digits or symbols before or after it (Password2024!, !qwerty1).
  const core = plain.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
  if (core.length >= 3 && core !== plain && COMMON_PASSWORDS.has(core)) return true;
  return repeated(plain) || straightRun(plain);
}

/** One character, or one short group, over and over (aaaaaaaa, abababab, 123123123). */
function repeated(s: string): boolean {
  for (let size = 1; size <= 4; size++) {
    if (s.length >= size * 2 && s.length % size === 0 && s.slice(0, size).repeat(s.length / size) === s) return true;
  }
  return false;
}

/** Each character one after or one before the last (12345678, abcdefgh, 98765432). */
function straightRun(s: string): boolean {
  const codes = [...s].map((c) => c.codePointAt(0)!);
  const step = codes[1] - codes[0];
  if (Math.abs(step) !== 1) return false;
  return codes.every((c, i) => i === 0 || c - codes[i - 1] === step);
}
