/** Dotted setting paths over a config object: read, write (copy on write), list the leaves, compare two configs. */
type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

export function getAt(config: unknown, path: string): unknown {
  let v: unknown = config;
  for (const k of path.split('.')) v = isObj(v) ? v[k] : undefined;
  return v;
}

/** A copy of `config` with `path` set to `value` (objects on the way are copied, the rest shared). */
export function setAt<T>(config: T, path: string, value: unknown): T {
  const [head, ...rest] = path.split('.');
  const base = (isObj(config) ? config : {}) as Obj;
  return { ...base, [head]: rest.length ? setAt(base[head], rest.join('.'), value) : value } as T;
}

/**
 * Leaf paths with their values; arrays, null and scalars are leaves (a PATCH replaces them whole), and so are
 * tagged objects (face.skin), which the API replaces when their kind changes.
 */
/**
 * Settings that are maps with keys of their own choosing (texts.strings keys hold dots: composer.send): each is one
 * leaf, never split into dotted paths. A deep patch cannot take a key out of a map (null replaces, it does not
 * delete), so an edit that drops one is saved as the whole config (see dropsMapKeys).
 */
export const MAPS = ['texts.strings', 'face.config'];

export function leaves(config: unknown, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const walk = (v: unknown, p: string) => {
    if (isObj(v) && !('kind' in v) && Object.keys(v).length && !MAPS.includes(p)) for (const [k, x] of Object.entries(v)) walk(x, p ? `${p}.${k}` : k);
    else out.set(p, v);
  };
  walk(config, prefix);
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export interface Change { path: string; before: unknown; after: unknown }

/** Every setting whose value differs between two configs, in document order. */
export function diff(before: unknown, after: unknown): Change[] {
  const a = leaves(before);
  const b = leaves(after);
  const paths = [...new Set([...a.keys(), ...b.keys()])];
  return paths.filter((p) => !same(a.get(p), b.get(p))).map((p) => ({ path: p, before: a.get(p), after: b.get(p) }));
}

/** The smallest deep patch that turns `before` into `after` (changed leaves only). */
export function patchOf(changes: Change[]): Obj {
  let patch: Obj = {};
  for (const c of changes) patch = setAt(patch, c.path, c.after === undefined ? null : c.after);
  return patch;
}

/** True when a change takes a key out of one of the MAPS (then only a whole config says so). */
export function dropsMapKeys(changes: Change[]): boolean {
  return changes.some((c) => MAPS.includes(c.path) && isObj(c.before) && Object.keys(c.before).some((k) => !isObj(c.after) || !(k in c.after)));
}

/** A value as a person reads it in a diff. */
export function shown(v: unknown): string {
  if (v === undefined) return '—';
  if (v === null) return 'none';
  if (v === '') return 'empty';
  if (typeof v === 'boolean') return v ? 'on' : 'off';
  if (typeof v === 'string') return v.length > 120 ? `${v.slice(0, 117)}…` : v;
  const s = JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 117)}…` : s;
}
