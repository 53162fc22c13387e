#!/usr/bin/env node
/**
 * service-chat-loadtest (npm run loadtest): drives simulated visitors through the widget protocol of any
 * deployment and reports throughput, first-delta latency, errors and the server's own metrics (table, JSON,
 * HTML). Model tokens cost nothing: the tool runs a simulated OpenAI-compatible provider and, with an admin API
 * token, sets up a bot that uses it (removed afterwards). With --voice a share of the visitors talk, through the
 * widget's voice frames, to a simulated OpenAI Realtime engine on the same simulated provider. Bounded: --duration and --visitors have hard limits.
 * Exit codes: 0 done, 1 the run could not be made (set-up failed, no turn completed), 2 wrong usage.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startFakeProvider } from './fake-provider.js';
import { buildReport, reportHtml, reportTable, type Report } from './report.js';
import { MetricsWatcher } from './server-metrics.js';
import { SetupError, setUpBot } from './setup.js';
import { runVisitors, talks, type VisitorPlan } from './visitors.js';

/** The simulated engine ends a spoken turn after this much quiet (OpenAI's server_vad waits 500 ms by default). */
const END_OF_TURN_MS = 300;

const HELP = `service-chat-loadtest --url <server> --token <admin API token> [options]

  --url URL              the deployment, e.g. https://chat.example.com (required)
  --token TOKEN          an API token with providers:write and bots:write (or env LOADTEST_TOKEN); not needed with --bot
  --bot ID               use this published bot instead of setting one up (its brain is whatever it is: tokens may cost)
  --visitors N           simulated visitors (default 20, at most 5000)
  --turns N              questions per visitor (default 3)
  --ramp MS              visitors arrive spread over this many ms (default 10000)
  --think MS             mean pause between a reply and the next question, uniform 0..2x (default 2000)
  --duration S           hard time limit in seconds (default 120, at most 3600)
  --chunks N --gap MS    shape of each simulated reply: N pieces, MS apart (default 12 and 20)
  --voice SHARE          share of the visitors who talk instead of typing, 0 to 1 (default 0): voice.mode realtime on a
                         simulated OpenAI Realtime engine; each spoken turn is --speech ms of "speech" in 20 ms frames
  --speech MS            how long each spoken turn lasts (default 3000)
  --voice-reply MS       how long each spoken reply lasts (default 2000)
  --voice-cap N          the test bot's concurrentVoiceSessions (default: the number of visitors who talk)
  --provider-listen HOST where the simulated provider listens (default 127.0.0.1; 0.0.0.0 for a remote server)
  --provider-port PORT   its port (default: any free one)
  --provider-url URL     the address the SERVER uses to reach it, ending in /v1 (default http://<listen host>:<port>/v1)
  --metrics-url URL      the server's metrics (default <url>/metrics; http://host:METRICS_PORT/metrics for a metrics port);
                         once per process of a WORKERS group (METRICS_PORT + i): their figures are added up
  --metrics-token TOKEN  METRICS_TOKEN of the server (or env LOADTEST_METRICS_TOKEN)
  --out DIR              where report.json and report.html go (default ./loadtest-<time>)
  --keep                 keep the bot and provider connection afterwards
`;

export async function runLoadtest(argv: string[], out: (l: string) => void = (l) => process.stdout.write(l + '\n'), err: (l: string) => void = (l) => process.stderr.write(l + '\n'), env: Record<string, string | undefined> = process.env): Promise<{ code: number; report?: Report; outDir?: string }> {
  let v;
  try {
    v = parseArgs({ args: argv, strict: true, options: {
      url: { type: 'string' }, token: { type: 'string' }, bot: { type: 'string' }, visitors: { type: 'string' }, turns: { type: 'string' },
      ramp: { type: 'string' }, think: { type: 'string' }, duration: { type: 'string' }, chunks: { type: 'string' }, gap: { type: 'string' },
      voice: { type: 'string' }, speech: { type: 'string' }, 'voice-reply': { type: 'string' }, 'voice-cap': { type: 'string' },
      'provider-listen': { type: 'string' }, 'provider-port': { type: 'string' }, 'provider-url': { type: 'string' },
      'metrics-url': { type: 'string', multiple: true }, 'metrics-token': { type: 'string' }, out: { type: 'string' }, keep: { type: 'boolean' }, help: { type: 'boolean' },
    } }).values;
  } catch (e) { err(`${(e as Error).message}\n\n${HELP}`); return { code: 2 }; }
  if (v.help) { out(HELP); return { code: 0 }; }
  const num = (name: string, raw: string | undefined, dflt: number, min: number, max: number) => {
    const n = raw === undefined ? dflt : Number(raw);
    if (!Number.isFinite(n) || n < min || n > max) throw new RangeError(`--${name} must be a number from ${min} to ${max}, got ${raw}`);
    return n;
  };
  let plan: VisitorPlan, chunks, gap, providerPort, voiceReplyMs, voiceCap;
  const token = v.token ?? env.LOADTEST_TOKEN;
  try {
    if (!v.url || !/^https?:\/\//.test(v.url)) throw new RangeError('--url must be the server\'s http(s) address, e.g. https://chat.example.com');
    if (!v.bot && !token) throw new RangeError('--token (an API token with providers:write and bots:write) is needed to set up the test bot; or pass --bot');
    plan = {
      wsBase: v.url.replace(/\/+$/, '').replace(/^http/, 'ws'), botId: v.bot ?? '',
      visitors: num('visitors', v.visitors, 20, 1, 5000), turns: num('turns', v.turns, 3, 1, 100), rampMs: num('ramp', v.ramp, 10_000, 0, 600_000),
      thinkMs: num('think', v.think, 2000, 0, 600_000), durationMs: 1000 * num('duration', v.duration, 120, 1, 3600), turnTimeoutMs: 60_000,
      voiceShare: num('voice', v.voice, 0, 0, 1), speechMs: num('speech', v.speech, 3000, 100, 60_000),
    };
    voiceReplyMs = num('voice-reply', v['voice-reply'], 2000, 20, 60_000);
    const talkers = talkerCount(plan);
    if (plan.voiceShare > 0 && !talkers) throw new RangeError(`--voice ${plan.voiceShare} of ${plan.visitors} visitors is no one: raise --voice or --visitors`);
    voiceCap = talkers ? num('voice-cap', v['voice-cap'], Math.min(1000, talkers), 0, 1000) : null;
    chunks = num('chunks', v.chunks, 12, 1, 1000);
    gap = num('gap', v.gap, 20, 0, 10_000);
    providerPort = num('provider-port', v['provider-port'], 0, 0, 65535);
  } catch (e) { err(`${(e as Error).message}\n\n${HELP}`); return { code: 2 }; }

  const base = v.url.replace(/\/+$/, '');
  const listen = v['provider-listen'] ?? '127.0.0.1';
  const key = `lt-${randomBytes(16).toString('hex')}`;
  const provider = v.bot ? null : await startFakeProvider({ host: listen, port: providerPort, apiKey: key, chunks, gapMs: gap,
    ...(voiceCap !== null ? { voice: { silenceMs: END_OF_TURN_MS, replyMs: voiceReplyMs } } : {}) });
  let bot = null;
  try {
    if (provider) {
      const providerUrl = v['provider-url'] ?? `http://${listen === '0.0.0.0' ? '127.0.0.1' : listen}:${provider.port}/v1`;
      out(`simulated provider on ${listen}:${provider.port}; the server reaches it at ${providerUrl}`);
      bot = await setUpBot(base, token!, providerUrl, key, Math.min(600, Math.max(12, plan.turns * 4)), voiceCap);
      plan.botId = bot.botId;
      out(`bot ${bot.botId} set up and published${voiceCap !== null ? `, voice on (realtime, at most ${voiceCap} sessions at once)` : ''}`);
    }
    const watcher = new MetricsWatcher(v['metrics-url'] ?? [`${base}/metrics`], v['metrics-token'] ?? env.LOADTEST_METRICS_TOKEN ?? null);
    await watcher.start(Math.max(1000, Math.min(5000, plan.durationMs / 10)));
    out(`${plan.visitors} visitors${voiceCap !== null ? ` (${talkerCount(plan)} talk)` : ''}, ${plan.turns} turns each, ramp ${plan.rampMs} ms, think ${plan.thinkMs} ms, at most ${plan.durationMs / 1000} s`);
    const results = await runVisitors(plan, (r) => { if (r.ticks.length % 10 === 0) out(`  ${r.ticks.length} s: ${r.connected} connected, ${r.turnsDone} turns${r.voice ? `, ${r.ticks.at(-1)?.voice ?? 0} talking, ${r.voice.turnsDone} spoken turns` : ''}`); });
    const server = await watcher.stop();
    const { wsBase: _w, botId: _b, ...shown } = plan;
    const report = buildReport(base, { ...shown, providerChunks: chunks, providerGapMs: gap, ...(voiceCap !== null ? { voiceReplyMs, voiceCap, voiceEndOfTurnMs: END_OF_TURN_MS } : {}) }, results, server);
    const outDir = resolve(v.out ?? `loadtest-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'report.json'), JSON.stringify(report, null, 2) + '\n');
    writeFileSync(join(outDir, 'report.html'), reportHtml(report));
    out('');
    out(reportTable(report));
    out(`\nreport: ${join(outDir, 'report.html')} and report.json`);
    if (report.errors['connect 429']) out('connect 429: the server allows 30 chat connections a minute per address. All visitors come from this machine: set TRUST_PROXY=true on the server (each visitor then sends its own X-Forwarded-For) or run the test from several machines (docs/operations.md).');
    if (!report.turnsDone && !report.voice?.spokenTurnsDone) { err('no turn completed: see the errors above'); return { code: 1, report, outDir }; }
    return { code: 0, report, outDir };
  } catch (e) {
    if (e instanceof SetupError) { err(e.message); return { code: 1 }; }
    throw e;
  } finally {
    if (bot && !v.keep) await bot.remove();
    await provider?.close();
  }
}

const talkerCount = (plan: { visitors: number; voiceShare: number }) => Array.from({ length: plan.visitors }, (_, i) => talks(i, plan.voiceShare)).filter(Boolean).length;

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = (await runLoadtest(process.argv.slice(2))).code;
}
