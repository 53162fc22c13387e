/**
 * PATCH semantics of the draft (bot-config.md, Conventions 3): objects deep-merge; arrays, null and
 * every other value replace. Validation is separate: merge, then parse the result.
 */
import { invalid } from '../../kernel/errors.js';
import { FORBIDDEN_KEYS, findUnsafeInput, parseBotConfig } from './parse.js';
import type { BotConfig } from './schema.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A deep copy of own enumerable keys (prototype keys dropped), so the result shares no objects with its inputs. */
function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (!FORBIDDEN_KEYS.has(key)) out[key] = copy(value[key]);
  return out;
}

/** A tagged object (face.skin) that changes its `kind` is replaced whole: its two shapes do not merge. */
const switchesKind = (base: Record<string, unknown>, patch: Record<string, unknown>) =>
  typeof patch.kind === 'string' && typeof base.kind === 'string' && patch.kind !== base.kind;

function merge(base: unknown, patch: Record<string, unknown>): Record<string, unknown> {
  const out = (isPlainObject(base) ? copy(base) : {}) as Record<string, unknown>;
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === undefined) continue;
    out[key] = isPlainObject(value) && isPlainObject(out[key]) && !switchesKind(out[key], value) ? merge(out[key], value) : copy(value);
  }
  return out;
}

/**
 * Deep-merges `patch` into `base` without changing either. Throws ApiError `invalid` when the patch is
 * not an object, holds a `__proto__`, `constructor` or `prototype` key at any depth, or nests absurdly deep.
 */
export function deepMergePatch(base: object, patch: unknown): Record<string, unknown> {
  if (!isPlainObject(patch)) throw invalid('patch: must be an object', [{ path: 'patch', message: 'must be an object' }]);
  const bad = findUnsafeInput(patch, ['patch']);
  if (bad) throw invalid(`${bad.path}: ${bad.message}`, [bad]);
  return merge(base, patch);
}

/** The new draft after a PATCH: merge, then validate the whole result (defaults fill what is missing). */
export function applyConfigPatch(base: BotConfig, patch: unknown): BotConfig {
  return parseBotConfig(deepMergePatch(base, patch));
}
