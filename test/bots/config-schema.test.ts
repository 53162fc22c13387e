import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import type { ApiError } from '../../src/kernel/errors.js';
import { BotConfigSchema, botConfigJsonSchema, parseBotConfig } from '../../src/bots/config/index.js';
import { rejectedPaths, parseOk } from './helpers.js';
import { FIELDS, getPath, setPath, type FieldSpec } from './spec-fields.js';
import { wrongValues } from './spec-arbitraries.js';

const accepts = (f: FieldSpec, value: unknown) => assert.equal(getPath(parseOk(setPath({}, f.path, value)), f.path), value, `${f.path} = ${JSON.stringify(value)}`);

test('the empty object gives every default the spec lists', () => {
  const config = parseBotConfig({});
  for (const f of FIELDS) assert.equal(getPath(config, f.path), f.def, f.path);
});

test('the empty object gives spec defaults in every section, spot-checked literally', () => {
  const c = BotConfigSchema.parse({});
  assert.is(c.schemaVersion, 1);
  assert.is(c.identity.agentName, 'Ava');
  assert.is(c.welcome.message, "Hi! I'm {{agent.name}}. How can I help you today?");
  assert.is(c.brain.maxOutputTokens, 4096);
  assert.is(c.brain.temperature, null);
  assert.is(c.voice.cascade.tts.speed, 1);
  assert.is(c.vision.webcam.maxFps, 1);
  assert.equal(c.face.config, { preset: 'cyan' });
  assert.is(c.appearance.theme.accent, '#6366f1');
  assert.is(c.appearance.zIndex, 2147483000);
  assert.is(c.texts.placeholder, 'Type a message...');
  assert.is(c.greeting.delayMs, 6000);
  assert.equal(c.behavior.hours.weekly.map((p) => p.day), [1, 2, 3, 4, 5]);
  assert.is(c.security.rateLimits.messagesPerMinute, 12);
  assert.is(c.knowledge.mode, 'both');
  assert.equal(c.tools.mcp, []);
  assert.is(c.tools.maxResultChars, 8000);
});

test('the table of spec fields covers every leaf of the default config', () => {
  const leaves: string[] = [];
  const walk = (v: unknown, path: string[]) => {
    if (v && typeof v === 'object' && !Array.isArray(v) && !['face.config', 'face.skin', 'texts.strings'].includes(path.join('.'))) {
      for (const [k, inner] of Object.entries(v)) walk(inner, [...path, k]);
    } else leaves.push(path.join('.'));
  };
  walk(parseBotConfig({}), []);
  assert.equal(leaves.sort(), FIELDS.map((f) => f.path).sort());
});

test('defaults are fresh objects, so changing one parsed config never changes the next', () => {
  const a = parseBotConfig({});
  a.behavior.leadCapture.fields[0].label = 'Changed';
  a.security.allowedOrigins.push('https://example.com');
  (a.face.skin as { id: string }).id = 'changed';
  const b = parseBotConfig({});
  assert.is(b.behavior.leadCapture.fields[0].label, 'Name');
  assert.equal(b.security.allowedOrigins, []);
  assert.equal(b.face.skin, { kind: 'catalogue', id: 'default' });
});

for (const f of FIELDS.filter((f) => f.kind === 'int' || f.kind === 'num')) {
  const ends = f.max === undefined ? `${f.min} and above` : `${f.min} to ${f.max}`;
  test(`${f.path} accepts ${ends} inclusive and rejects values just outside, naming the field`, () => {
    accepts(f, f.min);
    if (f.max !== undefined) accepts(f, f.max);
    const step = f.kind === 'int' ? 1 : 0.001;
    assert.equal(rejectedPaths(setPath({}, f.path, f.min! - step)), [f.path]);
    if (f.max !== undefined) assert.equal(rejectedPaths(setPath({}, f.path, f.max + step)), [f.path]);
    if (f.kind === 'int') assert.equal(rejectedPaths(setPath({}, f.path, f.min! + 0.5)), [f.path]);
    if (f.nullable) accepts(f, null);
  });
}

for (const f of FIELDS.filter((f) => f.kind === 'str')) {
  test(`${f.path} accepts ${f.max} characters and rejects ${f.max! + 1}`, () => {
    accepts(f, 'x'.repeat(f.max!));
    assert.equal(rejectedPaths(setPath({}, f.path, 'x'.repeat(f.max! + 1))), [f.path]);
    if (f.min) assert.equal(rejectedPaths(setPath({}, f.path, '')), [f.path]);
  });
}

for (const f of FIELDS.filter((f) => f.kind === 'enum')) {
  test(`${f.path} takes exactly ${f.values!.join(', ')}`, () => {
    for (const v of f.values!) accepts(f, v);
    assert.equal(rejectedPaths(setPath({}, f.path, 'nope')), [f.path]);
  });
}

for (const f of FIELDS.filter((f) => f.kind === 'list')) {
  test(`${f.path} holds up to ${f.maxItems} strings of up to ${f.itemMax} characters`, () => {
    accepts(f, Array.from({ length: f.maxItems! }, () => 'x'.repeat(f.itemMax!)));
    assert.equal(rejectedPaths(setPath({}, f.path, Array.from({ length: f.maxItems! + 1 }, () => 'a'))), [f.path]);
    assert.equal(rejectedPaths(setPath({}, f.path, ['ok', 'x'.repeat(f.itemMax! + 1)])), [`${f.path}.1`]);
  });
}

for (const f of FIELDS.filter((f) => f.kind === 'special')) {
  test(`${f.path} rejects malformed values at the exact path`, () => {
    for (const wrong of wrongValues(f)) {
      const paths = [...new Set(rejectedPaths(setPath({}, f.path, wrong.value)))];
      assert.equal(paths, [f.path + wrong.at], `${f.path} = ${JSON.stringify(wrong.value).slice(0, 80)}`);
    }
  });
}

test('array limits accept exactly the maximum count', () => {
  const c = parseOk({
    behavior: {
      leadCapture: { fields: Array.from({ length: 12 }, (_, i) => ({ key: `f${i}`, label: 'L', type: 'select', options: Array(20).fill('x'.repeat(80)) })) },
      hours: { weekly: Array(21).fill({ day: 6, open: '00:00', close: '23:59' }), holidays: Array(100).fill('2024-02-29') },
    },
    security: { allowedOrigins: Array(100).fill(`${'a'.repeat(63)}.`.repeat(4) + 'b'.repeat(40) + '.com') },
    knowledge: { sourceIds: Array(200).fill('s'.repeat(64)) },
    tools: { http: Array(100).fill({ toolId: 't' }), mcp: Array(50).fill({ serverId: 's' }) },
  });
  assert.is(c.behavior.leadCapture.fields.length, 12);
  assert.is(c.tools.mcp[49].allow, '*');
  assert.is(c.tools.http[0].enabled, true);
});

test('accent, lead field key, HH:MM and YYYY-MM-DD follow their patterns', () => {
  for (const accent of ['#000000', '#FFFFFF', '#aBc123']) assert.is(parseOk({ appearance: { theme: { accent } } }).appearance.theme.accent, accent);
  for (const key of ['a', 'email', 'a_1', `a${'b'.repeat(31)}`]) parseOk({ behavior: { leadCapture: { fields: [{ key, label: 'L' }] } } });
  for (const [open, close] of [['00:00', '23:59'], ['09:30', '17:05']]) parseOk({ behavior: { hours: { weekly: [{ day: 0, open, close }] } } });
  for (const day of ['2024-02-29', '2025-12-31', '2025-01-01']) parseOk({ behavior: { hours: { holidays: [day] } } });
  assert.equal(rejectedPaths({ behavior: { hours: { holidays: ['2023-02-29'] } } }), ['behavior.hours.holidays.0']);
});

test('an unknown key is rejected with its own path, at any depth', () => {
  assert.equal(rejectedPaths({ apperance: {} }), ['apperance']);
  assert.equal(rejectedPaths({ appearance: { theme: { acent: '#000000' } } }), ['appearance.theme.acent']);
  assert.equal(rejectedPaths({ tools: { http: [{ toolId: 't', enabeld: true }] } }), ['tools.http.0.enabeld']);
});

test('the error message names the field path, then the problem', () => {
  try {
    parseBotConfig({ appearance: { theme: { accent: 'red' } }, brain: { maxToolRounds: 11 } });
    assert.unreachable('accepted');
  } catch (err) {
    const message = (err as ApiError).message;
    assert.is(message, 'brain.maxToolRounds: must be at most 10, not 11; appearance.theme.accent: must be a colour #rrggbb such as #6366f1');
  }
});

test('__proto__, constructor and prototype keys are refused anywhere in a config', () => {
  assert.equal(rejectedPaths(JSON.parse('{"texts":{"strings":{"__proto__":"x"}}}')), ['texts.strings.__proto__']);
  assert.equal(rejectedPaths({ face: { config: { constructor: 1 } } }), ['face.config.constructor']);
});

test('hostile nesting is refused as invalid instead of overflowing the stack', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100000; i++) deep = { a: deep };
  assert.equal(rejectedPaths({ face: { config: deep } }).length, 1);
});

test('face.config keeps extra face engine settings as JSON values', () => {
  const c = parseOk({ face: { config: { preset: 'violet', eyes: { blink: [1, 2] } } } });
  assert.equal(c.face.config, { preset: 'violet', eyes: { blink: [1, 2] } });
  assert.equal(parseBotConfig({ face: { config: { eyes: 1 } } }).face.config, { preset: 'cyan', eyes: 1 });
});

test('the schema converts to JSON Schema for OpenAPI, with defaults and limits', () => {
  const schema = botConfigJsonSchema() as any;
  assert.is(schema.additionalProperties, false);
  const accent = schema.properties.appearance.properties.theme.properties.accent;
  assert.is(accent.pattern, '^#[0-9a-fA-F]{6}$');
  assert.is(accent.default, '#6366f1');
  const tokens = schema.properties.brain.properties.maxOutputTokens;
  assert.equal([tokens.type, tokens.minimum, tokens.maximum, tokens.default], ['integer', 256, 128000, 4096]);
  assert.ok(JSON.stringify(z.toJSONSchema(BotConfigSchema, { io: 'output' })).length > 1000);
});

test.run();
