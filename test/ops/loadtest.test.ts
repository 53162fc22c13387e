import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoadtest } from '../../src/loadtest/main.js';
import { createToken, setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Issue 26: the capacity test against the project's own server with a small N: it sets up its bot through the
// API, drives visitors through the widget protocol, reads the server's metrics, writes its reports and cleans up.

const METRICS = 'metrics-token-for-loadtest-0123';
let server: TestServer;
let owner: TestSession;
const outDir = mkdtempSync(join(tmpdir(), 'sc-loadtest-'));

test.before(async () => {
  server = await startTestServer({ env: { METRICS_TOKEN: METRICS } });
  owner = await setupOwner(server);
});

test.after(async () => {
  await server.stop();
  rmSync(outDir, { recursive: true, force: true });
});

test('wrong usage exits 2 and says what is missing', async () => {
  const err: string[] = [];
  const r = await runLoadtest(['--url', server.url], () => {}, (l) => err.push(l), {});
  assert.is(r.code, 2);
  assert.match(err.join('\n'), /--token/);
  assert.is((await runLoadtest(['--url', server.url, '--token', 'x', '--visitors', '0'], () => {}, () => {}, {})).code, 2);
});

test('a token without admin scopes is refused with a message naming the scopes', async () => {
  const weak = await createToken(server, owner, ['bots:read']);
  const err: string[] = [];
  const r = await runLoadtest(['--url', server.url, '--token', weak.value, '--out', join(outDir, 'weak')], () => {}, (l) => err.push(l), {});
  assert.is(r.code, 1);
  assert.match(err.join('\n'), /providers:write and bots:write/);
});

test('five visitors of two turns each: every turn is measured, the reports are written, and the bot is removed', async () => {
  const admin = await createToken(server, owner, ['providers:write', 'bots:write']);
  const lines: string[] = [];
  const dir = join(outDir, 'run');
  const r = await runLoadtest([
    '--url', server.url, '--token', admin.value, '--visitors', '5', '--turns', '2', '--ramp', '300', '--think', '50',
    '--duration', '40', '--chunks', '6', '--gap', '5', '--metrics-token', METRICS, '--out', dir,
  ], (l) => lines.push(l), (l) => lines.push(l), {});
  assert.is(r.code, 0, lines.join('\n'));
  const rep = r.report!;
  assert.is(rep.visitorsConnected, 5);
  assert.is(rep.turnsDone, 10);
  assert.equal(rep.errors, {});
  assert.ok(rep.firstDeltaMs.p50 > 0 && rep.firstDeltaMs.p50 <= rep.firstDeltaMs.p99, JSON.stringify(rep.firstDeltaMs));
  assert.ok(rep.turnMs.p50 >= rep.firstDeltaMs.p50);
  assert.ok(rep.turnsPerSec > 0);
  assert.is(rep.stoppedBy, 'done');
  const s = rep.server!.summary!;
  assert.ok(s, `server metrics: ${rep.server?.error}`);
  assert.is(s.providerRequests, 10, 'one simulated model call per turn');
  assert.is(s.providerErrors, 0);
  assert.ok(s.widgetSocketsMax <= 5);
  assert.match(lines.join('\n'), /first delta p50 \/ p95 \/ p99/);

  const json = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
  assert.is(json.turnsDone, 10);
  const html = readFileSync(join(dir, 'report.html'), 'utf8');
  assert.match(html, /uPlot/);
  assert.not.match(html, /<script src=|<link [^>]*href=/, 'self-contained');
  assert.ok(existsSync(join(dir, 'report.html')));

  const bots = await server.request('GET', '/api/v1/bots', { headers: owner.headers });
  assert.equal(bots.body.items, [], 'the test bot was removed');
  const providers = await server.request('GET', '/api/v1/providers', { headers: owner.headers });
  assert.is(providers.body.items.length, 0, 'and its provider connection');
});

test.run();
