/** The shared panel pieces that are plain functions: errors at fields from API failures, relative times. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiFailure } from '../../admin/src/api.js';
import { errorAt, fieldErrors } from '../../admin/src/ui/fields.js';
import { relative } from '../../admin/src/ui/time.js';

test('a 422 with details puts each message at its field path', () => {
  const f = new ApiFailure(422, 'invalid', 'brain.model: choose a model; identity.agentName: required', [
    { path: 'brain.model', message: 'choose a model' }, { path: 'identity.agentName', message: 'required' },
  ]);
  assert.equal(fieldErrors(f), { 'brain.model': 'choose a model', 'identity.agentName': 'required' });
  assert.is(errorAt(fieldErrors(f), 'brain'), 'choose a model');
});

test('without details the message is split where a field path follows, keeping a message that holds "; "', () => {
  const f = new ApiFailure(422, 'invalid', 'baseUrl: 10.0.0.1 cannot be used; if this server should reach private addresses, set ALLOW_PRIVATE_NETWORK=true; apiKey: required');
  assert.equal(fieldErrors(f), { baseUrl: '10.0.0.1 cannot be used; if this server should reach private addresses, set ALLOW_PRIVATE_NETWORK=true', apiKey: 'required' });
  assert.equal(fieldErrors(new Error('baseUrl: nope')), {}, 'only API failures');
  assert.equal(fieldErrors(new ApiFailure(409, 'conflict', 'the draft changed')), {});
});

test('relative times read as people say them', () => {
  const now = Date.UTC(2026, 10, 24, 12, 0, 0);
  assert.is(relative(now - 10_000, now), 'just now');
  assert.match(relative(now - 5 * 60_000, now), /5 min/);
  assert.match(relative(now - 3 * 3600_000, now), /3 hr/);
  assert.match(relative(now + 2 * 86400_000, now), /in 2 days/);
});

test.run();
