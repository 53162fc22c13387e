import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { botConfigJsonSchema, parseBotConfig } from '../../src/bots/config/index.js';
import { parseOk, rejectedPaths } from './helpers.js';
import { readSpecRows, type SpecRow, type SpecType } from './spec-document.js';
import { FIELDS, getPath, setPath } from './spec-fields.js';

const rows = readSpecRows();
const schema = botConfigJsonSchema() as Json;
type Json = Record<string, any>;

const branches = (node: Json): Json[] => node.anyOf ?? node.oneOf ?? [node];

/** The JSON Schema node of a spec path ('a.b[].c': the items of a.b, then c). */
function schemaAt(path: string): Json {
  let node = schema;
  for (const part of path.split('.')) {
    const [key, isItem] = part.endsWith('[]') ? [part.slice(0, -2), true] : [part, false];
    const parent = branches(node).find((b) => b.properties?.[key]);
    assert.ok(parent, `${path}: no property ${key} in the schema`);
    node = parent.properties[key];
    if (isItem) node = branches(node).find((b) => b.items)!.items;
  }
  return node;
}

/** A value the spec's type column allows, to build the required fields of an array item. */
function sample(type: SpecType): unknown {
  switch (type.kind) {
    case 'bool': return false;
    case 'int': case 'num': return type.min ?? 0;
    case 'str': return type.clock ? '09:00' : type.pattern ? 'a' : 'x';
    case 'enum': return type.values[0];
    default: return [];
  }
}

const itemOf = (path: string) => {
  const i = path.indexOf('[].');
  return i < 0 ? null : { array: path.slice(0, i), field: path.slice(i + 3) };
};

/** The smallest item of an array setting, made from the spec rows marked required. */
function baseItem(array: string): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const r of rows) {
    const at = itemOf(r.path);
    if (at?.array === array && 'required' in r.def) item[at.field] = sample(r.type);
  }
  return item;
}

function checkType(r: SpecRow) {
  const node = schemaAt(r.path);
  const all = branches(node);
  const t = r.type;
  const find = (type: string) => all.find((b) => b.type === type);
  const where = `${r.path} (${r.typeText})`;
  switch (t.kind) {
    case 'bool': assert.ok(find('boolean'), where); break;
    case 'int': case 'num': {
      // A fixed value (schemaVersion) is a constant equal to its default.
      if (all.some((x) => x.const !== undefined)) { assert.ok('value' in r.def && all.some((x) => x.const === (r.def as { value: unknown }).value), where); break; }
      const b = find(t.kind === 'int' ? 'integer' : 'number');
      assert.ok(b, where);
      if (t.min !== undefined) assert.is(b.minimum, t.min, where);
      if (t.max !== undefined) assert.is(b.maximum, t.max, where);
      else if (b.maximum !== undefined) assert.ok(b.maximum >= Number.MAX_SAFE_INTEGER, `${where}: no upper limit in the spec, ${b.maximum} in the schema`);
      assert.is(!!find('null'), t.nullable, `${where}: nullable`);
      break;
    }
    case 'str': {
      const b = find('string');
      assert.ok(b, where);
      if (t.max !== undefined) assert.is(b.maxLength, t.max, where);
      if (t.clock) {
        const re = new RegExp(b.pattern);
        assert.ok(re.test('09:00') && re.test('23:59') && !re.test('9:00') && !re.test('09:0'), `${where}: pattern ${b.pattern}`);
      } else if (t.min > 1) assert.is(b.minLength, t.min, where);
      if (t.pattern) assert.is(b.pattern, t.pattern, where);
      assert.is(!!find('null'), t.nullable, `${where}: nullable`);
      break;
    }
    case 'enum': assert.equal([...(all.find((b) => b.enum)?.enum ?? [])].sort(), [...t.values].sort(), where); break;
    case 'strings': case 'array': {
      const b = find('array');
      assert.ok(b, where);
      assert.is(b.maxItems, t.maxItems, where);
      if (t.kind === 'strings' && t.itemMax !== undefined) assert.is(b.items.maxLength, t.itemMax, where);
      break;
    }
    case 'other': break;
  }
}

/** Boundary behaviour of numbers and strings: the inclusive ends pass, one step outside fails at the right path. */
function checkBounds(r: SpecRow) {
  const at = itemOf(r.path);
  const input = (value: unknown) => at
    ? setPath({}, at.array, [{ ...baseItem(at.array), [at.field]: value }])
    : setPath({}, r.path, value);
  const errorPath = at ? `${at.array}.0.${at.field}` : r.path;
  const t = r.type;
  if (t.kind === 'int' || t.kind === 'num') {
    if (t.min === undefined) return;
    const step = t.kind === 'int' ? 1 : 0.001;
    parseOk(input(t.min));
    assert.equal(rejectedPaths(input(t.min - step)), [errorPath], `${r.path} below ${t.min}`);
    if (t.max !== undefined) {
      parseOk(input(t.max));
      assert.equal(rejectedPaths(input(t.max + step)), [errorPath], `${r.path} above ${t.max}`);
    }
    if (t.nullable) parseOk(input(null));
  }
  if (t.kind === 'str' && t.max !== undefined && !t.pattern) {
    const ok = tryParse(input('x'.repeat(t.max)));
    // Formatted strings (time zones, language tags, URLs) are checked by their own tests; length only here.
    if (ok) assert.equal(rejectedPaths(input('x'.repeat(t.max + 1))), [errorPath], `${r.path} longer than ${t.max}`);
    if (t.min > 0) assert.equal(rejectedPaths(input('')), [errorPath], `${r.path} empty`);
  }
}

const tryParse = (input: unknown) => { try { parseBotConfig(input); return true; } catch { return false; } };

/** Defaults the spec states in words, read as values. */
const DESCRIBED: Record<string, { text: string; value: unknown }> = {
  'face.config': { text: '{ preset: cyan }', value: { preset: 'cyan' } },
  'face.skin': { text: 'a catalogue face chosen by the service', value: { kind: 'catalogue', id: 'default' } },
  'behavior.leadCapture.fields': {
    text: 'Name (type text) and Email (type email), both required',
    value: [{ key: 'name', label: 'Name', type: 'text', required: true }, { key: 'email', label: 'Email', type: 'email', required: true }],
  },
  'behavior.hours.weekly': { text: 'Monday to Friday, 09:00 to 17:00', value: [1, 2, 3, 4, 5].map((day) => ({ day, open: '09:00', close: '17:00' })) },
};

function checkDefault(r: SpecRow) {
  const at = itemOf(r.path);
  if (!at) {
    const actual = getPath(parseBotConfig({}), r.path);
    if ('value' in r.def) assert.equal(actual, r.def.value, `${r.path} default ${r.defText}`);
    if ('described' in r.def) {
      const known = DESCRIBED[r.path];
      assert.ok(known && known.text === r.def.described, `${r.path}: the default "${r.defText}" is new to this test; read it into DESCRIBED`);
      assert.equal(actual, known.value, `${r.path} default ${r.defText}`);
    }
    return;
  }
  const { [at.field]: _, ...without } = baseItem(at.array);
  if ('required' in r.def) {
    assert.equal(rejectedPaths(setPath({}, at.array, [without])), [`${at.array}.0.${at.field}`], `${r.path} is required`);
    return;
  }
  const item = (getPath(parseOk(setPath({}, at.array, [without])), at.array) as Record<string, unknown>[])[0];
  if ('value' in r.def) assert.equal(item[at.field], r.def.value, `${r.path} default ${r.defText}`);
  if ('unset' in r.def) assert.is(item[at.field], undefined, `${r.path} is unset by default`);
}

test('bot-config.md has a settings table row for every setting', () => {
  assert.ok(rows.length >= 150, `only ${rows.length} rows read`);
  const paths = new Set(rows.map((r) => r.path));
  const missing = FIELDS.map((f) => f.path).filter((p) => !paths.has(p));
  assert.equal(missing, [], 'settings in the schema table that the spec does not list');
});

test('every setting row of bot-config.md has its type and range in the schema', () => {
  for (const r of rows) checkType(r);
});

test('every inclusive range and length limit of bot-config.md holds at its ends', () => {
  for (const r of rows) checkBounds(r);
});

test('every default of bot-config.md is what an empty config or a minimal item gets', () => {
  for (const r of rows) checkDefault(r);
});

test('array items get their defaults: lead field type text and not required, MCP allow * and confirm, HTTP enabled', () => {
  const c = parseOk({
    behavior: { leadCapture: { fields: [{ key: 'company', label: 'Company' }] } },
    tools: { mcp: [{ serverId: 's1' }], http: [{ toolId: 't1' }] },
  });
  const field = c.behavior.leadCapture.fields[0];
  assert.is(field.type, 'text');
  assert.is(field.required, false);
  assert.is(c.tools.mcp[0].confirmDestructive, true);
  assert.is(c.tools.mcp[0].allow, '*');
  assert.is(c.tools.http[0].enabled, true);
});

test.run();
