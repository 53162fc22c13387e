/** Validating a config: one `invalid` (422) ApiError whose message names each field path, then the problem. */
import type { z } from 'zod';
import { fromZodIssues, invalid } from '../../errors.js';
import { BotConfigSchema, type BotConfig } from './schema.js';

/** Keys that could reach Object.prototype through a merge or a naive copy; never valid setting names. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Path of the first forbidden key anywhere in `value` (dotted, array indexes as numbers), or null. */
export function findForbiddenKey(value: unknown, path: string[] = []): string | null {
  if (value === null || typeof value !== 'object') return null;
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) return [...path, key].join('.');
    const found = findForbiddenKey((value as Record<string, unknown>)[key], [...path, key]);
    if (found) return found;
  }
  return null;
}

type Issue = { path: PropertyKey[]; message: string };

/** zod reports unknown keys on their parent object; name each key itself so typos point at the typo. */
function flattenIssues(issues: ReadonlyArray<z.core.$ZodIssue>): Issue[] {
  return issues.flatMap((issue): Issue[] =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: [...issue.path, key], message: 'unknown setting' }))
      : [{ path: [...issue.path], message: issue.message }],
  );
}

/** Parses and validates a whole (or partial) config, filling defaults. Throws ApiError `invalid` (422). */
export function parseBotConfig(input: unknown): BotConfig {
  const forbidden = findForbiddenKey(input);
  if (forbidden) throw invalid(`${forbidden}: key not allowed`, [{ path: forbidden, message: 'key not allowed' }]);
  const result = BotConfigSchema.safeParse(input);
  if (!result.success) throw fromZodIssues(flattenIssues(result.error.issues));
  return result.data;
}
