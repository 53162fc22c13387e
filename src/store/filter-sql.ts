import type { Cond, Filter } from './types.js';

/** Translates a store filter into a SQLite WHERE clause over the embedded adapter's (id, ws, doc) tables. */
const SAFE_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;
const OPS = new Set(['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$exists', '$has']);

export function fieldExpr(field: string): string {
  if (field === '_id') return 'id';
  if (field === 'workspaceId') return 'ws';
  if (!SAFE_PATH.test(field)) throw new Error(`bad field name in filter: ${field}`);
  return `json_extract(doc, '$.${field}')`;
}

function jsonPath(field: string): string {
  if (!SAFE_PATH.test(field)) throw new Error(`bad field name in filter: ${field}`);
  return `'$.${field}'`;
}

export function bindValue(v: unknown): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === undefined) return null;
  if (v !== null && typeof v === 'object') throw new Error('objects and arrays cannot be compared in a filter');
  return v;
}

const isCond = (v: unknown): v is Cond =>
  !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => OPS.has(k));

export function whereClause(filter: Filter, params: unknown[]): string {
  const parts: string[] = [];
  for (const [field, value] of Object.entries(filter)) {
    if (field === '$or') {
      const alts = (value as Filter[]).map((f) => `(${whereClause(f, params) || '1'})`);
      parts.push(alts.length ? `(${alts.join(' OR ')})` : '0');
      continue;
    }
    const expr = fieldExpr(field);
    if (!isCond(value)) { parts.push(eq(expr, value, params)); continue; }
    for (const [op, v] of Object.entries(value)) {
      switch (op) {
        case '$eq': parts.push(eq(expr, v, params)); break;
        case '$ne':
          if (v === null) parts.push(`${expr} IS NOT NULL`);
          else { params.push(bindValue(v)); parts.push(`(${expr} IS NULL OR ${expr} != ?)`); }
          break;
        case '$in': case '$nin': {
          const list = v as unknown[];
          if (!list.length) { parts.push(op === '$in' ? '0' : '1'); break; }
          params.push(...list.map(bindValue));
          const marks = list.map(() => '?').join(',');
          parts.push(op === '$in' ? `${expr} IN (${marks})` : `(${expr} IS NULL OR ${expr} NOT IN (${marks}))`);
          break;
        }
        case '$gt': case '$gte': case '$lt': case '$lte': {
          const sym = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[op];
          params.push(bindValue(v));
          parts.push(`${expr} ${sym} ?`);
          break;
        }
        case '$exists': {
          const t = field === '_id' || field === 'workspaceId' ? expr : `json_type(doc, ${jsonPath(field)})`;
          parts.push(`${t} IS ${v ? 'NOT ' : ''}NULL`);
          break;
        }
        case '$has':
          params.push(bindValue(v));
          parts.push(`EXISTS (SELECT 1 FROM json_each(doc, ${jsonPath(field)}) WHERE value = ?)`);
          break;
      }
    }
  }
  return parts.join(' AND ');
}

function eq(expr: string, value: unknown, params: unknown[]): string {
  if (value === null || value === undefined) return `${expr} IS NULL`;
  params.push(bindValue(value));
  return `${expr} = ?`;
}
