/**
 * PATCH semantics of the draft (bot-config.md, Conventions 3): objects deep-merge; arrays, null and
 * every other value replace. Validation is separate: merge, then parse the result.
 */
import { invalid } from '../../errors.js';
import { FORBIDDEN_KEYS, parseBotConfig } from './parse.js';
import type { BotConfig } from './schema.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A deep copy made only of own enumerable keys, so the result never shares objects with its inputs. */
function copy(value: unknown, path: string[]): unknown {
  if (Array.isArray(value)) return value.map((item, i) => copy(item, [...path, String(i)]));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) throw forbiddenKey([...path, key]);
    out[key] = copy(value[key], [...path, key]);
  }
  return out;
}

const forbiddenKey = (path: string[]) => {
  const where = path.join('.');
  return invalid(`patch.${where}: key not allowed`, [{ path: `patch.${where}`, message: 'key not allowed' }]);
};

function merge(base: unknown, patch: Record<string, unknown>, path: string[]): Record<string, unknown> {
  const out = (isPlainObject(base) ? copy(base, path) : {}) as Record<string, unknown>;
  for (const key of Object.keys(patch)) {
    const at = [...path, key];
    if (FORBIDDEN_KEYS.has(key)) throw forbiddenKey(at);
    const value = patch[key];
    if (value === undefined) continue;
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? merge(out[key], value, at) : copy(value, at);
  }
  return out;
}

/**
 * Deep-merges `patch` into `base` without changing either. Throws ApiError `invalid` when the patch is
 * not an object or holds a `__proto__`, `constructor` or `prototype` key at any depth.
 */
export function deepMergePatch<T extends object>(base: T, patch: unknown): Record<string, unknown> {
  if (!isPlainObject(patch)) throw invalid('patch: must be an object', [{ path: 'patch', message: 'must be an object' }]);
  return merge(base, patch, []);
}

/** The new draft after a PATCH: merge, then validate the whole result (defaults fill what is missing). */
export function applyConfigPatch(base: BotConfig, patch: unknown): BotConfig {
  return parseBotConfig(deepMergePatch(base, patch));
}
