import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/kernel/errors.js';
import { applyConfigPatch, deepMergePatch, parseBotConfig } from '../../src/bots/config/index.js';
import { rejectedPaths } from './helpers.js';

test('objects deep-merge, keeping settings the patch does not name', () => {
  const base = { a: { b: 1, c: { d: 2, e: 3 } }, f: 'x' };
  assert.equal(deepMergePatch(base, { a: { c: { d: 9 } } }), { a: { b: 1, c: { d: 9, e: 3 } }, f: 'x' });
});

test('arrays replace instead of merging', () => {
  assert.equal(deepMergePatch({ list: [1, 2, 3], o: { l: [{ a: 1 }] } }, { list: [4], o: { l: [] } }), { list: [4], o: { l: [] } });
});

test('null replaces, even a whole object', () => {
  assert.equal(deepMergePatch({ a: { b: 1 }, c: 2 }, { a: null }), { a: null, c: 2 });
});

test('a patch object replaces a non-object value and undefined leaves a value alone', () => {
  assert.equal(deepMergePatch({ a: 1, b: 2 }, { a: { x: 1 }, b: undefined }), { a: { x: 1 }, b: 2 });
});

test('neither the base nor the patch is changed, and the result shares no objects with them', () => {
  const base = { a: { b: [1] } };
  const patch = { c: { d: [2] } };
  const out = deepMergePatch(base, patch) as { a: { b: number[] }; c: { d: number[] } };
  out.a.b.push(5);
  out.c.d.push(5);
  assert.equal(base, { a: { b: [1] } });
  assert.equal(patch, { c: { d: [2] } });
});

test('prototype keys anywhere in a patch are refused and nothing is polluted', () => {
  for (const raw of ['{"__proto__":{"polluted":1}}', '{"a":{"constructor":{"prototype":{"polluted":1}}}}', '{"a":[{"prototype":1}]}']) {
    assert.throws(() => deepMergePatch({ a: {} }, JSON.parse(raw)), (e: unknown) => e instanceof ApiError && e.code === 'invalid' && /key not allowed/.test(e.message));
  }
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

test('the error names the path of the refused key inside the patch', () => {
  assert.equal(rejectedPaths(JSON.parse('{"texts":{"strings":{"__proto__":"x"}}}'), (p) => deepMergePatch({}, p)), ['patch.texts.strings.__proto__']);
});

test('a patch that is not an object is refused', () => {
  for (const patch of [null, [], 'x', 3]) assert.equal(rejectedPaths(patch, (p) => deepMergePatch({}, p)), ['patch']);
});

test('applying a patch to a config merges, then validates the result', () => {
  const draft = parseBotConfig({ identity: { agentName: 'Max', role: 'Guide' }, welcome: { suggestedPrompts: ['a', 'b'] } });
  const next = applyConfigPatch(draft, { identity: { agentName: 'Mia' }, welcome: { suggestedPrompts: ['c'] }, face: { skin: null } });
  assert.is(next.identity.agentName, 'Mia');
  assert.is(next.identity.role, 'Guide');
  assert.equal(next.welcome.suggestedPrompts, ['c']);
  assert.is(next.face.skin, null);
  assert.is(draft.identity.agentName, 'Max');
});

test('a patch that makes the config invalid is refused with the field path', () => {
  const draft = parseBotConfig({});
  assert.equal(rejectedPaths({ appearance: { theme: { accent: 'blue' } } }, (p) => applyConfigPatch(draft, p)), ['appearance.theme.accent']);
  assert.equal(rejectedPaths({ identity: null }, (p) => applyConfigPatch(draft, p)), ['identity']);
  assert.equal(rejectedPaths({ identity: { agentNme: 'x' } }, (p) => applyConfigPatch(draft, p)), ['identity.agentNme']);
});

test('a patch that switches face.skin from a catalogue face to a custom face replaces it whole', () => {
  const draft = parseBotConfig({});
  const next = applyConfigPatch(draft, { face: { skin: { kind: 'custom', assetId: 'face_1' } } });
  assert.equal(next.face.skin, { kind: 'custom', assetId: 'face_1' });
  const back = applyConfigPatch(next, { face: { skin: { kind: 'catalogue', id: 'default' } } });
  assert.equal(back.face.skin, { kind: 'catalogue', id: 'default' });
});

test.run();
