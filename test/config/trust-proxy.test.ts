import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../src/config/index.js';
import { forwardedClient } from '../../src/http/request.js';

test('TRUST_PROXY: true is one proxy, false none, a number that many; anything else is refused with a clear message', () => {
  const hops = (v: string) => loadConfig({ TRUST_PROXY: v, NODE_ENV: 'test' }).trustProxy;
  assert.is(hops('true'), 1);
  assert.is(hops('false'), 0);
  assert.is(hops('2'), 2);
  assert.is(loadConfig({ NODE_ENV: 'test' }).trustProxy, 0);
  assert.throws(() => hops('maybe'), /TRUST_PROXY.*number of proxies in front of the server/);
});

test('the client address is the entry the outermost trusted proxy added, counted from the right', () => {
  // The client sent "1.1.1.1, 2.2.2.2" itself; the proxy it reached appended 203.0.113.9.
  assert.is(forwardedClient('1.1.1.1, 2.2.2.2, 203.0.113.9', 1), '203.0.113.9');
  // Two proxies: the outer one saw the client (203.0.113.9), the inner one saw the outer (10.0.0.2).
  assert.is(forwardedClient('1.1.1.1, 203.0.113.9, 10.0.0.2', 2), '203.0.113.9');
  assert.is(forwardedClient('203.0.113.9', 3), '203.0.113.9', 'fewer entries than trusted proxies: the leftmost');
  assert.is(forwardedClient('::ffff:198.51.100.4', 1), '198.51.100.4');
});

test.run();
