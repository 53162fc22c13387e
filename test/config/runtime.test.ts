import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { currentRuntime, runtimeProblem, runtimeWarning, type RuntimeFacts } from '../../src/config/runtime.js';

/** The uwebsockets@3.0.6 builds for linux-x64: Node 22 and later were built against glibc 2.38. */
const GLIBC_BY_ABI: Record<string, string> = { '108': '2.27', '115': '2.27', '120': '2.27', '127': '2.38', '137': '2.38', '141': '2.38' };
const linux = (over: Partial<RuntimeFacts>): RuntimeFacts => ({
  nodeVersion: '20.19.0', platform: 'linux', arch: 'x64', abi: '115', glibc: '2.36',
  builds: Object.keys(GLIBC_BY_ABI), glibcNeeded: (abi) => GLIBC_BY_ABI[abi] ?? null,
  ...over,
});

test('Node 24 on glibc 2.36 is told it needs glibc 2.38 (naming systems that have it); Node 20 only as an end-of-life stopgap', () => {
  const message = runtimeProblem(linux({ nodeVersion: '24.11.1', abi: '137' }));
  assert.is(message,
    'Node 24.11.1 cannot run this server here: its uWebSockets.js build needs glibc 2.38 or later, and this system has glibc 2.36. ' +
    "Use a system with glibc 2.38+ (Debian 13, Ubuntu 24.04, Fedora 39 or later, or the project's Docker image); only until then, " +
    'Node 20 runs on this one, but it is past its end of life and gets no security fixes.');
  assert.not.match(message!, 'supports only Node.js versions');
});

test('Node 22 on an old glibc gets the same advice; on glibc 2.38 and later Node 22 and 24 are fine', () => {
  assert.match(runtimeProblem(linux({ nodeVersion: '22.12.0', abi: '127', glibc: '2.35' }))!, 'needs glibc 2.38 or later, and this system has glibc 2.35');
  assert.is(runtimeProblem(linux({ nodeVersion: '24.11.1', abi: '137', glibc: '2.38' })), null);
  assert.is(runtimeProblem(linux({ nodeVersion: '22.12.0', abi: '127', glibc: '2.41' })), null);
  assert.is(runtimeProblem(linux({ glibc: '2.31' })), null, 'Node 20 needs only glibc 2.27');
});

test('a Node version with no uWebSockets.js build is told which versions have one', () => {
  assert.is(runtimeProblem(linux({ nodeVersion: '23.3.0', abi: '131' })),
    'Node 23.3.0 cannot run this server: uWebSockets.js (its HTTP and WebSocket server) has no build for Node 23 on linux-x64. Use Node 22 or 24.');
});

test('Node 20 starts with a warning that it is past its end of life, naming what to move to; 22 and 24 with none', () => {
  assert.match(runtimeWarning({ nodeVersion: '20.19.0' })!, /^Node 20\.19\.0 is past its end of life \(April 2026\).*Move to Node 22 LTS/);
  assert.is(runtimeWarning({ nodeVersion: '22.12.0' }), null);
  assert.is(runtimeWarning({ nodeVersion: '24.11.1' }), null);
});

test('musl (Alpine) is told to use a glibc system; macOS and Windows need no glibc', () => {
  assert.match(runtimeProblem(linux({ glibc: null }))!, /no glibc \(musl, as on Alpine\?\).*Debian or Ubuntu/);
  assert.is(runtimeProblem(linux({ platform: 'darwin', arch: 'arm64', glibc: null, abi: '137' })), null);
});

test('this machine can run the server, and the facts are read from the installed uWebSockets.js', () => {
  const facts = currentRuntime();
  assert.ok(facts.builds.includes(facts.abi), `a build for ABI ${facts.abi}`);
  if (facts.platform === 'linux' && facts.glibc) assert.match(facts.glibcNeeded(facts.abi) ?? '', /^2\.\d+$/);
  assert.is(runtimeProblem(facts), null);
});

test.run();
