import type { Filter, Update } from './types.js';

/** Applies a store update to a plain record in memory (embedded adapter; the Mongo adapter maps to $-operators). */
export function applyUpdate<T extends object>(doc: T, update: Update, inserting = false): T {
  const out = structuredClone(doc) as Record<string, unknown>;
  if (inserting) for (const [k, v] of Object.entries(update.$setOnInsert ?? {})) setPath(out, k, v);
  for (const [k, v] of Object.entries(update.$set ?? {})) setPath(out, k, v);
  for (const k of update.$unset ?? []) unsetPath(out, k);
  for (const [k, n] of Object.entries(update.$inc ?? {})) {
    const cur = getPath(out, k);
    setPath(out, k, (typeof cur === 'number' ? cur : 0) + n);
  }
  for (const [k, { value, slice }] of Object.entries(update.$push ?? {})) {
    const cur = getPath(out, k);
    const arr = Array.isArray(cur) ? [...cur, value] : [value];
    setPath(out, k, slice !== undefined && arr.length > slice ? arr.slice(arr.length - slice) : arr);
  }
  return out as T;
}

/** The plain equality fields of a filter, used as the base of an upserted record. */
export function equalityFields(filter: Filter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(filter)) {
    if (k.startsWith('$')) continue;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) continue;
    setPath(out, k, v);
  }
  return out;
}

const BLOCKED = new Set(['__proto__', 'constructor', 'prototype']);

export function getPath(obj: Record<string, unknown>, path: string): unknown {
  let cur: unknown = obj;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  if (keys.some((k) => BLOCKED.has(k))) throw new Error(`bad field name: ${path}`);
  let cur = obj;
  for (const key of keys.slice(0, -1)) {
    const next = cur[key];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) cur[key] = {};
    cur = cur[key] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]] = value;
}

function unsetPath(obj: Record<string, unknown>, path: string): void {
  const keys = path.split('.');
  let cur: unknown = obj;
  for (const key of keys.slice(0, -1)) {
    if (cur === null || typeof cur !== 'object') return;
    cur = (cur as Record<string, unknown>)[key];
  }
  if (cur && typeof cur === 'object') delete (cur as Record<string, unknown>)[keys[keys.length - 1]];
}
