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
  assert.is((await runLoadtest(['--url', server.url, '--token', 'x', '--voice', '1.5'], () => {}, () => {}, {})).code, 2);
  const none: string[] = [];
  assert.is((await runLoadtest(['--url', server.url, '--token', 'x', '--visitors', '5', '--voice', '0.1'], () => {}, (l) => none.push(l), {})).code, 2);
  assert.match(none.join('\n'), /is no one: raise --voice or --visitors/);
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

test('voice visitors talk through the widget socket to the simulated engine: spoken turns timed, frames counted, a cap refusal reported', async () => {
  const admin = await createToken(server, owner, ['providers:write', 'bots:write']);
  const lines: string[] = [];
  const dir = join(outDir, 'voice');
  // Six visitors, half of them talk (visitors 2, 4 and 6); the bot takes two voice sessions at once, so one talker is refused.
  const r = await runLoadtest([
    '--url', server.url, '--token', admin.value, '--visitors', '6', '--voice', '0.5', '--voice-cap', '2', '--turns', '2',
    '--ramp', '200', '--think', '50', '--speech', '600', '--voice-reply', '400', '--duration', '30', '--chunks', '4', '--gap', '5',
    '--metrics-token', METRICS, '--out', dir,
  ], (l) => lines.push(l), (l) => lines.push(l), {});
  assert.is(r.code, 0, lines.join('\n'));
  const rep = r.report!;
  assert.is(rep.visitorsConnected, 6);
  assert.is(rep.turnsDone, 6, 'three typing visitors, two turns each');
  assert.equal(rep.errors, {});
  const v = rep.voice!;
  assert.ok(v, 'voice figures reported');
  assert.is(v.visitors, 3);
  assert.is(v.sessionsStarted, 2);
  assert.equal(v.refused, { rate_limited: 1 }, 'the third talker is refused by security.caps.concurrentVoiceSessions');
  assert.is(v.spokenTurnsDone, 4);
  assert.equal(v.errors, {}, lines.join('\n'));
  // The engine waits 300 ms of quiet before it answers; frames come 20 ms apart, so the first audio is that and a little more.
  assert.ok(v.firstAudioMs.p50 >= 280 && v.firstAudioMs.p50 < 2000 && v.firstAudioMs.p50 <= v.firstAudioMs.p99, JSON.stringify(v.firstAudioMs));
  // Two spoken turns of 600 ms each, in 20 ms frames, plus the quiet between: at least 60 frames a session.
  assert.ok(v.perSession.framesSent >= 60, JSON.stringify(v.perSession));
  // Each reply is 400 ms of agent audio; all of it reaches the widget.
  assert.ok(v.audioSecondsReceived >= 1.5, `${v.audioSecondsReceived} s of agent audio`);
  assert.ok(v.framesReceived > 0);
  assert.is(rep.server!.summary!.voiceSessionsMax <= 2, true);
  const out = lines.join('\n');
  assert.match(out, /speech end to agent audio p50 \/ p95 \/ p99/);
  assert.match(out, /voice sessions refused\s+rate_limited: 1/);

  const json = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
  assert.is(json.voice.spokenTurnsDone, 4);
  assert.match(readFileSync(join(dir, 'report.html'), 'utf8'), /speech end to agent audio/);
  const providers = await server.request('GET', '/api/v1/providers', { headers: owner.headers });
  assert.is(providers.body.items.length, 0, 'both simulated connections are removed');
});

test.run();
