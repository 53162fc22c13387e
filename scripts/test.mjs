// Builds dist/ once (scripts/build.mjs, as `npm start` does), then runs every test/**/*.test.ts file in its own Node
// process (uvu + tsx), a few at a time, and prints the one closing line CI reads: "N passed, N failed[, N skipped]".
// Browser tests load the bundles from dist/public as built here and served by the server (test/helpers/built.ts).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { cpus } from 'node:os';

const root = new URL('..', import.meta.url).pathname;
const filter = process.argv.slice(2);

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) { if (name !== 'fakes' && name !== 'fixtures') out.push(...walk(p)); }
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const files = walk(join(root, 'test'))
  .map((f) => relative(root, f))
  .filter((f) => filter.length === 0 || filter.some((x) => f.includes(x)))
  .sort();

if (files.length) {
  const started = Date.now();
  const b = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, encoding: 'utf8' });
  if (b.status !== 0) {
    console.log(`${b.stdout ?? ''}${b.stderr ?? ''}${b.error ? String(b.error) : ''}`.trim());
    console.log('\nthe build failed (node scripts/build.mjs): no test ran\n0 passed, 1 failed');
    process.exit(1);
  }
  console.log(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)}s`);
}
const builtAt = String(Date.now());

const concurrency = Math.max(1, Math.min(Number(process.env.TEST_CONCURRENCY) || cpus().length, 4));
// A bound for a file that hangs, not a measure of speed: the slowest browser files take about 60 s alone and 140 s
// beside three others on a busy 2-core machine.
const fileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS) || 300_000;
let passed = 0, failed = 0, skipped = 0;
const failures = [];

/** uvu's `FAIL  "title"` lines, each with the message's first line, and the runner's own timeout line. */
function whyFailed(out) {
  const lines = out.split('\n');
  const why = [];
  lines.forEach((l, i) => {
    if (/^\s*FAIL\s+".*"\s*$/.test(l)) why.push(`${l.trim().slice(4).trim()}: ${(lines.slice(i + 1).find((m) => m.trim()) ?? '').trim().slice(0, 2000)}`);
    else if (l.startsWith('[runner]')) why.push(l);
  });
  return why;
}

function runFile(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', './test/helpers/before-failures.mjs', file], {
      cwd: root,
      // The suite's servers take thousands of API requests from one loopback address (the access matrix, fuzzing): the
      // REST rate limits are off for them unless a test sets them (test/api/rate-limits.test.ts).
      env: { API_RATE_PER_TOKEN: '0', API_RATE_PER_ADDRESS: '0', ...process.env, FORCE_COLOR: '0', NODE_ENV: 'test', TEST_BUILT_AT: builtAt },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => { out += `\n[runner] ${file} timed out after ${fileTimeoutMs} ms\n`; child.kill('SIGKILL'); }, fileTimeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const num = (label) => { const m = out.match(new RegExp(`${label}:\\s+(\\d+)`)); return m ? Number(m[1]) : null; };
      const total = num('Total'), ok = num('Passed'), skip = num('Skipped') ?? 0;
      let p = ok ?? 0, f = total !== null && ok !== null ? Math.max(0, total - ok) : 0;
      if (code !== 0 && f === 0) f = 1; // a crash or timeout counts as a failure
      passed += p; failed += f; skipped += skip;
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`${f ? 'FAIL' : 'ok  '} ${file} (${p} passed${f ? `, ${f} failed` : ''}${skip ? `, ${skip} skipped` : ''}) ${secs}s`);
      if (f) { failures.push({ file, why: whyFailed(out) }); console.log(out.split('\n').map((l) => '    ' + l).join('\n')); }
      resolve();
    });
  });
}

// Two kinds of file never run beside one of their own kind. A scale-out group (three server processes and a
// redis-server): two at once on a 2-core machine starve each other's leases and sockets. A browser (Chromium, the
// widget or the panel): two pages at once starved each other of the processor, and real-time work in them (audio
// played and recorded, the face's frames, a reply streamed while the test watches) came late, on CI and here; so
// the browser files run one after another, first, while the other files share the remaining slots.
const BROWSER = /from 'playwright-core'|start(Widget|Face)World\(|startAdminBrowser\(/;
const kindOf = (f) => (f.startsWith('test/scale/') ? 'scale' : BROWSER.test(readFileSync(join(root, f), 'utf8')) ? 'browser' : null);
const kinds = new Map(files.map((f) => [f, kindOf(f)]));
const running = new Set();
const queue = [...files].sort((a, b) => (kinds.get(b) === 'browser') - (kinds.get(a) === 'browser'));
const take = () => { const i = queue.findIndex((f) => !running.has(kinds.get(f))); return i < 0 ? null : queue.splice(i, 1)[0]; };
await Promise.all(Array.from({ length: concurrency }, async () => {
  while (queue.length) {
    const file = take();
    if (!file) { await new Promise((r) => setTimeout(r, 100)); continue; }
    const kind = kinds.get(file);
    if (kind) running.add(kind);
    try { await runFile(file); } finally { running.delete(kind); }
  }
}));
// Each failed test and its message's first line again here, at the end: a log shown in part keeps its tail.
if (failures.length) console.log(`\nFailed files:\n${failures.map((f) => ['  ' + f.file, ...f.why.map((w) => '    ' + w)].join('\n')).join('\n')}`);
if (files.length === 0) { console.log('no test files found'); failed = 1; }
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed ? 1 : 0);
