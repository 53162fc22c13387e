import { createHash } from 'node:crypto';
import type { VectorFilter } from './types.js';

/**
 * Pure translations for the Qdrant adapter: point ids and payload filters. Kept apart from the client calls
 * so they can be checked without a server (test/store/qdrant-filter.test.ts).
 */

/** Payload key holding our string id; Qdrant point ids must be unsigned integers or UUIDs. */
export const ID_KEY = '_id';

// A fixed namespace so the same string id always maps to the same point (idempotent upserts).
const NAMESPACE = Buffer.from('6f0c1f3e9d2a4b7c8e5f1a2b3c4d5e6f', 'hex');

/** A name-based (version 5 layout, SHA-1) UUID for one of our string ids. */
export function pointUuid(id: string): string {
  const h = createHash('sha1').update(NAMESPACE).update(id, 'utf8').digest().subarray(0, 16);
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

export type QdrantCondition = Record<string, unknown>;
export interface QdrantFilter { must: QdrantCondition[] }

/**
 * `{ field: value }` -> must match value; `{ field: [a, b] }` -> must match any. Qdrant matches integers,
 * strings and booleans exactly; a fractional number becomes a closed range on itself. Returns null when the
 * filter can match nothing (an empty "any of"), so callers skip the request.
 */
export function toQdrantFilter(filter: VectorFilter): QdrantFilter | null {
  if (typeof filter.workspaceId !== 'string') throw new Error('a vector filter needs workspaceId');
  const must: QdrantCondition[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      if (!value.length) return null;
      must.push(anyOf(key, value));
    } else must.push(one(key, value));
  }
  return { must };
}

function one(key: string, value: string | number | boolean): QdrantCondition {
  if (typeof value === 'number' && !Number.isInteger(value)) return { key, range: { gte: value, lte: value } };
  return { key, match: { value } };
}

function anyOf(key: string, values: Array<string | number>): QdrantCondition {
  const strings = values.filter((v): v is string => typeof v === 'string');
  const ints = values.filter((v): v is number => typeof v === 'number' && Number.isInteger(v));
  const fractions = values.filter((v): v is number => typeof v === 'number' && !Number.isInteger(v));
  const alts: QdrantCondition[] = [];
  if (strings.length) alts.push({ key, match: { any: strings } });
  if (ints.length) alts.push({ key, match: { any: ints } });
  for (const f of fractions) alts.push(one(key, f));
  // Qdrant's "any" takes one type of value; mixed lists become alternatives.
  return alts.length === 1 ? alts[0] : { should: alts };
}

/** The payload index type for a filter value, or null when none fits. */
export function indexSchemaFor(value: unknown): 'keyword' | 'integer' | 'float' | 'bool' | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (typeof v === 'string') return 'keyword';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'float';
  return null;
}
