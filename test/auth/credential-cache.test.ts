/** What the server keeps of credentials (src/auth/credential-cache.ts): reads racing a revocation, read-ahead. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AccessEndings } from '../../src/auth/access-ended.js';
import type { AppContext } from '../../src/app/context.js';
import { CREDENTIAL_TTL_MS, createCredentialCache, REFRESH_AHEAD_MS } from '../../src/auth/credential-cache.js';
import type { ApiTokenRecord } from '../../src/auth/records.js';
import { FakeClock } from '../../src/kernel/clock.js';

const world = () => {
  const clock = new FakeClock();
  const app = { clock, log: { error() {} } } as unknown as AppContext;
  return { clock, tokens: createCredentialCache(app, new AccessEndings(app)).tokens };
};
const record = { _id: 'tok_1', workspaceId: 'ws_1' } as ApiTokenRecord;

test('a token read from the store while it was revoked is not kept', () => {
  const { tokens } = world();
  const since = tokens.version; // a lookup begins
  tokens.delete('hash'); // the token is revoked meanwhile
  tokens.set('hash', record, since); // the lookup ends with what it read before
  assert.is(tokens.get('hash'), null);
  tokens.set('hash', record, tokens.version);
  assert.is(tokens.get('hash'), record);
});

test('a kept entry is due for a read-ahead once, in its last moments only', async () => {
  const { tokens, clock } = world();
  tokens.set('hash', record);
  assert.not.ok(tokens.refreshDue('hash'));
  await clock.advance(CREDENTIAL_TTL_MS - REFRESH_AHEAD_MS);
  assert.ok(tokens.refreshDue('hash'));
  assert.not.ok(tokens.refreshDue('hash'), 'one read at a time');
  tokens.set('hash', record);
  await clock.advance(CREDENTIAL_TTL_MS - 1);
  assert.is(tokens.get('hash'), record, 'the read-ahead gave it a new lifetime');
  await clock.advance(1);
  assert.is(tokens.get('hash'), null, 'never kept past its lifetime');
});

test.run();
