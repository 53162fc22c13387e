/** Validating a config: one `invalid` (422) ApiError whose message names each field path, then the problem. */
import { invalid } from '../../kernel/errors.js';
import { validate } from '../../kernel/validation.js';
import { BotConfigSchema, type BotConfig } from './schema.js';

/** Keys that could reach Object.prototype through a merge or a naive copy; never valid setting names. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Deeper than any real config; stops hostile nesting before recursion (here or in zod) overflows the stack. */
const MAX_DEPTH = 32;

/**
 * The first problem with the shape of raw input before zod sees it: a forbidden key anywhere, or nesting
 * deeper than MAX_DEPTH. Returns its dotted path (array indexes as numbers) and message, or null.
 */
export function findUnsafeInput(value: unknown, path: string[] = []): { path: string; message: string } | null {
  if (value === null || typeof value !== 'object') return null;
  if (path.length >= MAX_DEPTH) return { path: path.join('.'), message: `nested more than ${MAX_DEPTH} levels deep` };
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) return { path: [...path, key].join('.'), message: 'key not allowed' };
    const found = findUnsafeInput((value as Record<string, unknown>)[key], [...path, key]);
    if (found) return found;
  }
  return null;
}

/** Parses and validates a whole (or partial) config, filling defaults. Throws ApiError `invalid` (422). */
export function parseBotConfig(input: unknown): BotConfig {
  const bad = findUnsafeInput(input);
  if (bad) throw invalid(`${bad.path}: ${bad.message}`, [bad]);
  // Unknown keys are named one by one (validate), so a typo points at the typo.
  return validate(BotConfigSchema, input, { root: 'config', noun: 'setting' });
}
