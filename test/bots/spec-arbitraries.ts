/** fast-check arbitraries and wrong values derived from the spec rows in spec-fields.ts. */
import fc from 'fast-check';
import { TEMPLATE_VARIABLES, type TemplateVariable } from '../../src/bots/config/template-vars.js';
import { type FieldSpec, type Wrong } from './spec-fields.js';

const w = (value: unknown, at = ''): Wrong => ({ value, at });
const many = (n: number, item: unknown) => Array.from({ length: n }, () => item);

/** Text of at most `max` characters mixing plain words with the variables the field accepts. */
function templatedText(max: number, vars: readonly TemplateVariable[]): fc.Arbitrary<string> {
  const plain = fc.string({ maxLength: 20 }).filter((s) => !s.includes('{') && !s.includes('}'));
  const piece = fc.oneof(plain, fc.constantFrom(...vars).map((v) => `{{${v}}}`));
  return fc.array(piece, { maxLength: 6 }).map((parts) => parts.join('').slice(0, max)).filter((s) => !/\{\{?$/.test(s) || s.endsWith('}}'));
}

/** Any valid value of the row. */
export function validValue(f: FieldSpec): fc.Arbitrary<unknown> {
  if (f.valid) return f.valid;
  const orNull = (a: fc.Arbitrary<unknown>) => (f.nullable ? fc.oneof(fc.constant(null), a) : a);
  switch (f.kind) {
    case 'int':
      return orNull(fc.oneof(fc.integer({ min: f.min!, max: f.max ?? Number.MAX_SAFE_INTEGER }), fc.constantFrom(f.min!, f.max ?? f.min!)));
    case 'num':
      return orNull(fc.oneof(fc.double({ min: f.min!, max: f.max ?? 1e12, noNaN: true }), fc.constantFrom(f.min!, f.max ?? f.min!)));
    case 'str': {
      const any = f.vars ? templatedText(f.max!, f.vars) : fc.string({ minLength: f.min ?? 0, maxLength: Math.min(f.max!, 40) });
      return orNull(fc.oneof(any, fc.constant('x'.repeat(f.max!))));
    }
    case 'bool':
      return fc.boolean();
    case 'enum':
      return fc.constantFrom(...f.values!);
    case 'list':
      return fc.array(fc.string({ maxLength: Math.min(f.itemMax!, 30) }), { maxLength: f.maxItems! });
    case 'special':
      throw new Error(`${f.path} needs a valid arbitrary`);
  }
}

/** Wrong values of the row, each with the path suffix its error must name. */
export function wrongValues(f: FieldSpec): Wrong[] {
  const nullWrong = f.nullable ? [] : [w(null)];
  switch (f.kind) {
    case 'int':
    case 'num': {
      const step = f.kind === 'int' ? 1 : 0.01;
      const out = [w(f.min! - step), w('7'), ...nullWrong];
      if (f.max !== undefined) out.push(w(f.max + step));
      if (f.kind === 'int') out.push(w(f.min! + 0.5));
      return out;
    }
    case 'str': {
      const out = [w('x'.repeat(f.max! + 1)), w(42), ...nullWrong];
      if (f.min) out.push(w(''));
      if (f.vars) {
        out.push(w('{{nope}}'));
        const refused = TEMPLATE_VARIABLES.find((v) => !f.vars!.includes(v));
        if (refused) out.push(w(`Hello {{${refused}}}`));
      }
      return out;
    }
    case 'bool':
      return [w('true'), w(1), w(null)];
    case 'enum':
      return [w('nope'), w(f.values![0].toUpperCase()), w(null)];
    case 'list':
      return [w(many(f.maxItems! + 1, 'a')), w(['x'.repeat(f.itemMax! + 1)], '.0'), w([3], '.0'), w('a')];
    case 'special':
      return [...f.invalid!];
  }
}

