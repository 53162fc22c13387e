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

/** A field name checked for use inside a JSON path literal ('$.<field>'). */
export function fieldPath(field: string): string {
  if (!SAFE_PATH.test(field)) throw new Error(`bad field name in filter: ${field}`);
  return field;
}

const jsonPath = (field: string) => `'$.${fieldPath(field)}'`;

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
    if (!isCond(value)) { parts.push(eq(field, expr, value, params)); continue; }
    for (const [op, v] of Object.entries(value)) {
      switch (op) {
        case '$eq': parts.push(eq(field, expr, v, params)); break;
        case '$ne': parts.push(`NOT (${eqStrict(field, expr, v, params)})`); break;
        case '$in': parts.push(inList(field, expr, v as unknown[], params, false)); break;
        case '$nin': parts.push(`NOT ${inList(field, expr, v as unknown[], params, true)}`); break;
        case '$gt': case '$gte': case '$lt': case '$lte': {
          const sym = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[op];
          params.push(bindValue(v));
          parts.push(`${expr} ${sym} ?${typeGuard(field, expr, v)}`);
          break;
        }
        case '$exists': {
          const t = isColumn(field) ? expr : `json_type(doc, ${jsonPath(field)})`;
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

const isColumn = (field: string) => field === '_id' || field === 'workspaceId';

/** JSON type of the field: tells true/false apart from the numbers 1/0 that json_extract gives for them. */
function jsonType(field: string): string {
  return `json_type(doc, ${jsonPath(field)})`;
}

/**
 * Comparisons only match values of the same kind, as in MongoDB: `$gt: 5` never matches a string (SQLite
 * would order every string after every number) and `$lt: 'm'` never matches a number.
 */
function typeGuard(field: string, expr: string, v: unknown): string {
  if (typeof v === 'number') return isColumn(field) ? ' AND 0' : ` AND ${jsonType(field)} IN ('integer', 'real')`;
  if (typeof v === 'string') return isColumn(field) ? '' : ` AND ${jsonType(field)} = 'text'`;
  return '';
}

/** Equality, where null also matches a missing field (MongoDB semantics). May be NULL-valued in SQL. */
function eq(field: string, expr: string, value: unknown, params: unknown[]): string {
  if (value === null || value === undefined) return `${expr} IS NULL`;
  if (typeof value === 'boolean' && !isColumn(field)) {
    // The json_extract term keeps an index on the field usable; json_type rules out the numbers 1 and 0.
    params.push(bindValue(value));
    return `(${expr} = ? AND ${jsonType(field)} = '${value}')`;
  }
  params.push(bindValue(value));
  return `${expr} = ?`;
}

/** Equality that is always 0 or 1 (never NULL), so it can be negated. */
function eqStrict(field: string, expr: string, value: unknown, params: unknown[]): string {
  if (value === null || value === undefined) return `${expr} IS NULL`;
  if (typeof value === 'boolean' && !isColumn(field)) return `${jsonType(field)} IS '${value}'`;
  params.push(bindValue(value));
  return `${expr} IS ?`;
}

/** Membership; a null in the list matches a missing field. `strict` keeps the result 0/1 for NOT. */
function inList(field: string, expr: string, list: unknown[], params: unknown[], strict: boolean): string {
  if (!list.length) return '(0)';
  const alts: string[] = [];
  const plain = list.filter((x) => x !== null && x !== undefined && typeof x !== 'boolean');
  if (plain.length) {
    params.push(...plain.map(bindValue));
    const test = `${expr} IN (${plain.map(() => '?').join(',')})`;
    alts.push(strict ? `COALESCE(${test}, 0)` : test);
  }
  if (list.some((x) => x === null || x === undefined)) alts.push(`${expr} IS NULL`);
  for (const b of new Set(list.filter((x): x is boolean => typeof x === 'boolean'))) alts.push(eqStrict(field, expr, b, params));
  return `(${alts.join(' OR ')})`;
}
