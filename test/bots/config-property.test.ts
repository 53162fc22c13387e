import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { parseBotConfig } from '../../src/bots/config/index.js';
import { parseOk, rejectedPaths } from './helpers.js';
import { FIELDS, getPath, setPath } from './spec-fields.js';
import { validValue, wrongValues } from './spec-arbitraries.js';

const OMIT = Symbol('omit');

/** A random valid config: each setting from the spec either left out (default) or given a valid value. */
const validConfig = fc
  .tuple(...FIELDS.map((f) => fc.option(validValue(f), { nil: OMIT, freq: 2 })))
  .map((values) => {
    const config: Record<string, unknown> = {};
    const given: Record<string, unknown> = {};
    values.forEach((v, i) => {
      if (v === OMIT) return;
      setPath(config, FIELDS[i].path, v);
      given[FIELDS[i].path] = v;
    });
    return { config, given };
  });

/** One setting of a valid config made wrong (or a typo'd key next to it), with the path the error must name. */
const mutation = fc
  .tuple(validConfig, fc.integer({ min: 0, max: FIELDS.length - 1 }), fc.nat(), fc.boolean())
  .map(([{ config }, i, pick, typo]) => {
    const field = FIELDS[i];
    if (typo) {
      const key = `${field.path}Typo`;
      return { config: setPath(structuredClone(config), key, 1), path: key };
    }
    const wrongs = wrongValues(field);
    const wrong = wrongs[pick % wrongs.length];
    return { config: setPath(structuredClone(config), field.path, wrong.value), path: field.path + wrong.at };
  });

test('any valid config parses, keeps the given values, and parsing again changes nothing', () => {
  fc.assert(
    fc.property(validConfig, ({ config, given }) => {
      const parsed = parseOk(config);
      for (const f of FIELDS) if (f.kind !== 'special' && f.path in given) assert.equal(getPath(parsed, f.path), given[f.path], f.path);
      assert.equal(parseBotConfig(parsed), parsed);
    }),
    { numRuns: 200 },
  );
});

test('a parsed config survives a JSON round trip unchanged and still validates', () => {
  fc.assert(
    fc.property(validConfig, ({ config }) => {
      const parsed = parseOk(config);
      const again = JSON.parse(JSON.stringify(parsed));
      assert.equal(again, parsed);
      assert.equal(parseBotConfig(again), parsed);
    }),
    { numRuns: 200 },
  );
});

test('a single wrong setting is rejected naming exactly that setting', () => {
  fc.assert(
    fc.property(mutation, ({ config, path }) => {
      assert.equal([...new Set(rejectedPaths(config))], [path], path);
    }),
    { numRuns: 500 },
  );
});

test.run();
