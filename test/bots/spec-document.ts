/**
 * Reads the settings tables of the spec's bot-config.md into rows a test can check against the schema: path, what
 * the type column allows, and the default column as a value. The tables come from a checked-in copy
 * (test/fixtures/spec/bot-config-settings.json, refreshed by test/fixtures/spec/refresh.ts), so the suite never
 * reads files outside the repository.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SPEC_FILE = fileURLToPath(new URL('../fixtures/spec/bot-config-settings.json', import.meta.url));

export type SpecType =
  | { kind: 'bool' }
  | { kind: 'int' | 'num'; min?: number; max?: number; nullable: boolean }
  | { kind: 'str'; min: number; max?: number; nullable: boolean; pattern?: string; clock?: boolean }
  | { kind: 'enum'; values: string[] }
  | { kind: 'strings'; maxItems: number; itemMax?: number }
  | { kind: 'array'; maxItems: number }
  | { kind: 'other'; text: string };

/** The default column: a value, 'required' (an array item field without default), or 'described' (prose). */
export type SpecDefault = { value: unknown } | { required: true } | { unset: true } | { described: string };

export interface SpecRow { path: string; type: SpecType; def: SpecDefault; typeText: string; defText: string }

const numberOf = (s: string) => Number(s);

export function parseType(text: string): SpecType {
  const t = text.trim();
  if (t === 'boolean') return { kind: 'bool' };
  let m = /^(integer|number)( or null)?(?:, (?:(-?[\d.]+) to (-?[\d.]+)|at least (-?[\d.]+)))?$/.exec(t);
  if (m) {
    return { kind: m[1] === 'integer' ? 'int' : 'num', nullable: !!m[2], min: m[3] !== undefined ? numberOf(m[3]) : m[5] !== undefined ? numberOf(m[5]) : undefined, max: m[4] !== undefined ? numberOf(m[4]) : undefined };
  }
  m = /^string( or null)?, (?:up to (\d+)|(\d+) to (\d+))$/.exec(t);
  if (m) return { kind: 'str', nullable: !!m[1], min: m[3] ? numberOf(m[3]) : 0, max: numberOf(m[2] ?? m[4]) };
  m = /^string matching (\S+)$/.exec(t);
  if (m) return { kind: 'str', nullable: false, min: 1, pattern: m[1] };
  if (/^string, HH:MM/.test(t)) return { kind: 'str', nullable: false, min: 5, clock: true };
  m = /^array of strings, up to (\d+)(?: items)?(?:, each up to (\d+))?$/.exec(t);
  if (m) return { kind: 'strings', maxItems: numberOf(m[1]), itemMax: m[2] ? numberOf(m[2]) : undefined };
  m = /^array of .*, up to (\d+)$/.exec(t);
  if (m) return { kind: 'array', maxItems: numberOf(m[1]) };
  if (/^[a-z_-]+(, [a-z_-]+)+$/.test(t)) return { kind: 'enum', values: t.split(', ') };
  return { kind: 'other', text: t };
}

export function parseDefault(text: string, type: SpecType): SpecDefault {
  const t = text.trim();
  if (t === 'required') return { required: true };
  if (t === 'unset') return { unset: true };
  if (t === 'null') return { value: null };
  if (t === 'empty string') return { value: '' };
  if (t === 'empty array') return { value: [] };
  if (t === 'empty map') return { value: {} };
  if (t === 'true' || t === 'false') return { value: t === 'true' };
  if (t === "'*'") return { value: '*' };
  if ((type.kind === 'int' || type.kind === 'num') && /^-?[\d.]+$/.test(t)) return { value: Number(t) };
  if (type.kind === 'str' || type.kind === 'enum') return { value: t };
  return { described: t };
}

/** Every settings row of the spec, in the spec's order. */
export function readSpecRows(file = SPEC_FILE): SpecRow[] {
  const { settings } = JSON.parse(readFileSync(file, 'utf8')) as { settings: [string, string, string][] };
  return settings.map(([path, typeText, defText]) => {
    const type = parseType(typeText);
    return { path, type, def: parseDefault(defText, type), typeText, defText };
  });
}
