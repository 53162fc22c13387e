/**
 * `npx tsx bench/face.ts`: the face engine's main-thread cost per frame in headless Chromium (GPU compositing on
 * SwiftShader, as a machine without a GPU) with the CPU throttled 4x (CDP Emulation.setCPUThrottlingRate), at the
 * display's 60 fps. Each scenario draws a face (200 px) on a bare page for a few seconds while a trace records the
 * renderer's main thread; the thread time of all its tasks (script, style, layout, paint, commit) is divided by
 * the display frames. Baseline: the same page with only an empty requestAnimationFrame loop, in the same run.
 * Budget (issue 21): a face adds <= 4 ms a frame. Exits 1 over. FACE_BENCH_SECONDS, FACE_BENCH_RATE,
 * FACE_BENCH_NO_GPU=1 (--disable-gpu, as the widget tests run), FACE_BENCH_DETAIL=1 (time by trace event).
 */
import { build } from 'esbuild';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { paintPortrait, syntheticLandmarks } from '../test/widget/face-photo.js';

const BUDGET_MS = 4;
const RATE = Number(process.env.FACE_BENCH_RATE ?? 4);
const SECONDS = Number(process.env.FACE_BENCH_SECONDS ?? 4);
const root = fileURLToPath(new URL('../', import.meta.url));
const js = (await build({ entryPoints: [`${root}widget/src/face.ts`], bundle: true, minify: true, format: 'esm', target: ['es2020'], write: false, logLevel: 'error' })).outputFiles[0].text;

let photo: Buffer = Buffer.alloc(0);
const landmarks = JSON.stringify({ id: 'bench', landmarks: syntheticLandmarks() });
const server = createServer((req, res) => {
  const url = req.url ?? '/';
  if (url === '/face.js') { res.writeHead(200, { 'content-type': 'text/javascript' }); res.end(js); return; }
  if (url.endsWith('/image')) { res.writeHead(200, { 'content-type': 'image/png' }); res.end(photo); return; }
  if (url.endsWith('/landmarks')) { res.writeHead(200, { 'content-type': 'application/json' }); res.end(landmarks); return; }
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end('<!doctype html><html><body style="margin:0;background:#fff"><div id="f" style="width:200px;height:200px;margin:40px"></div></body></html>');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--no-first-run', ...(process.env.FACE_BENCH_NO_GPU ? ['--disable-gpu'] : ['--enable-unsafe-swiftshader', '--use-angle=swiftshader'])] });

interface Scenario { name: string; skin?: Record<string, string>; talk?: boolean; config?: Record<string, unknown>; noBreath?: boolean }
const scenarios: Scenario[] = [
  { name: 'baseline: empty rAF loop' },
  { name: 'orb (default), idle: blink, breathe, gaze', skin: { kind: 'catalogue', id: 'default' } },
  ...(process.env.FACE_BENCH_DETAIL ? [{ name: 'orb, idle, no breathing', skin: { kind: 'catalogue', id: 'default' }, noBreath: true }] : []),
  { name: 'orb (default), talking (lip sync)', skin: { kind: 'catalogue', id: 'default' }, talk: true },
  { name: 'friend, talking (most SVG parts)', skin: { kind: 'catalogue', id: 'friend' }, talk: true, config: { preset: 'sky' } },
  { name: 'visor, talking', skin: { kind: 'catalogue', id: 'visor' }, talk: true, config: { preset: 'violet' } },
  { name: 'custom face (WebGL mesh), talking', skin: { kind: 'custom', assetId: 'bench' }, talk: true },
];

const rows: Array<{ name: string; wall: number; cpu: number; fps: number }> = [];
const RUNS = Number(process.env.FACE_BENCH_RUNS ?? 2);
for (const s of scenarios.flatMap((x) => Array.from({ length: RUNS }, () => x))) {
  const page = await browser.newPage({ viewport: { width: 400, height: 400 } });
  await page.goto(base);
  if (!photo.length) photo = Buffer.from((await paintPortrait(page)).split(',')[1]!, 'base64');
  // A string, not a function: tsx would wrap named inner functions in a helper the page does not have.
  await page.evaluate(`(async (s, base) => {
    window.frames_ = 0;
    requestAnimationFrame(function count() { window.frames_++; requestAnimationFrame(count); });
    if (!s.skin) return;
    if (s.noBreath) document.head.append(Object.assign(document.createElement('style'), { textContent: '#f,#f>*{animation:none!important}' }));
    const m = await import(base + '/face.js');
    const face = m.createFace(document.getElementById('f'), { skin: s.skin, config: s.config, base });
    // Speech-like level changes at the player's rate (about 40 a second).
    if (s.talk) setInterval(() => face.setLevel(Math.abs(Math.sin(performance.now() / 90)) * 0.8), 25);
    if (s.skin.kind === 'custom') await new Promise((r) => { const t = setInterval(() => { if (face.kind === 'custom') { clearInterval(t); r(); } }, 20); });
  })(${JSON.stringify(s)}, ${JSON.stringify(base)})`);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: RATE });
  await page.waitForTimeout(500);
  // A trace of the renderer's main thread: each task's wall time (dur) and its CPU time (tdur), in microseconds.
  const events: any[] = [];
  cdp.on('Tracing.dataCollected', (e: { value: any[] }) => { events.push(...e.value); });
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['disabled-by-default-devtools.timeline', 'devtools.timeline'] }, transferMode: 'ReportEvents' });
  const f0 = await page.evaluate(() => (window as any).frames_ as number);
  await page.waitForTimeout(SECONDS * 1000);
  const f1 = await page.evaluate(() => (window as any).frames_ as number);
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.end');
  await done;
  const mains = events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`);
  const tasks = (key: string) => events.filter((e) => e.ph === 'X' && e.name === 'RunTask' && `${e.pid}:${e.tid}` === key);
  const main = mains.sort((a, b) => tasks(b).length - tasks(a).length)[0]!;
  const frames = f1 - f0;
  // Per frame at 60 fps: the thread's time per second over 60 (a starved renderer shows fewer frames, not less work).
  const wall = tasks(main).reduce((n, e) => n + (e.dur ?? 0), 0) / 1000 / SECONDS / 60;
  const cpu = tasks(main).reduce((n, e) => n + (e.tdur ?? 0), 0) / 1000 / SECONDS / 60;
  rows.push({ name: s.name, wall, cpu, fps: frames / SECONDS });
  if (process.env.FACE_BENCH_DETAIL) {
    const by = new Map<string, number>();
    for (const e of events) if (e.ph === 'X' && `${e.pid}:${e.tid}` === main && e.name !== 'RunTask') by.set(e.name, (by.get(e.name) ?? 0) + (e.tdur ?? 0) / 1000 / frames);
    console.log(s.name, [...by].sort((a, c) => c[1] - a[1]).slice(0, 8).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', '));
  }
  await page.close();
}
await browser.close();
server.close();

// Chromium throttles by making the main thread's tasks take RATE times as long, and the trace's thread time (cpu)
// includes that (a run with FACE_BENCH_RATE=1 shows about a quarter of it); wall time also holds time other
// processes took on a busy machine, so cpu is the figure. The face's own cost is what it adds to the baseline's.
// Each scenario ran RUNS times; the quietest run stands (other processes only ever add time).
const best = scenarios.map((x) => rows.filter((r) => r.name === x.name).sort((p, q) => p.cpu - q.cpu)[0]!);
rows.splice(0, rows.length, ...best);
const [b, ...faces] = rows;
console.log(`face engine: main-thread time per display frame, CPU throttled ${RATE}x, ${SECONDS} s each (budget ${BUDGET_MS} ms for the face)`);
console.log(`  ${'scenario'.padEnd(44)} ${'cpu'.padStart(7)} ${'face'.padStart(7)} ${'wall'.padStart(7)}   fps`);
let over = false;
for (const r of rows) {
  const own = r.cpu - b!.cpu;
  if (r !== b && own > BUDGET_MS) over = true;
  console.log(`  ${r.name.padEnd(44)} ${r.cpu.toFixed(2).padStart(7)} ${(r === b ? '' : own.toFixed(2)).padStart(7)} ${r.wall.toFixed(2).padStart(7)}  ${r.fps.toFixed(0).padStart(4)}`);
}
console.log(over ? `over budget: a face added more than ${BUDGET_MS} ms a frame` : `within budget: every face adds at most ${Math.max(...faces.map((r) => r.cpu - b!.cpu)).toFixed(2)} ms a frame`);
process.exit(over ? 1 : 0);
