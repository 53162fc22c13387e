// The longest stretches of a V8 .cpuprofile in which the main thread never went idle (what a loop-delay max is made
// of), each with its garbage collection and the functions that held it (self time, and the project's own frames by
// inclusive time).
//   node bench/prof-stretches.mjs <file.cpuprofile> [stretches=8] [rows=8] [only=regex]
// `only`: just the stretches in which some frame's function or file matches (e.g. widget-socket: the connects).
import { readFileSync } from 'node:fs';

const prof = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const top = Number(process.argv[3]) || 8;
const rows = Number(process.argv[4]) || 8;
const only = process.argv[5] ? new RegExp(process.argv[5]) : null;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n) => {
  const cf = n.callFrame;
  const file = (cf.url || '').replace(/^.*node_modules\//, 'nm/').replace(/^file:\/\/\/work\/[^/]+(\/[^/]+)?\//, '');
  return `${cf.functionName || '(anon)'}${file ? ` ${file}:${cf.lineNumber + 1}` : ''}`;
};
const idle = (n) => n.callFrame.functionName === '(idle)';

// Stretches: consecutive samples that are not (idle); a sample's time is the delta to the next one.
const stretches = [];
let t = prof.startTime;
let cur = null;
for (let i = 0; i < prof.samples.length; i++) {
  t += prof.timeDeltas[i] ?? 0;
  const dt = prof.timeDeltas[i + 1] ?? 0;
  const n = byId.get(prof.samples[i]);
  if (idle(n)) { if (cur) { stretches.push(cur); cur = null; } continue; }
  cur ??= { start: t, us: 0, samples: [] };
  cur.us += dt;
  cur.samples.push([n.id, dt]);
}
if (cur) stretches.push(cur);

const matches = (s) => s.samples.some(([id]) => {
  for (let p = id; p !== undefined; p = parent.get(p)) if (only.test(name(byId.get(p)))) return true;
  return false;
});
if (only) stretches.splice(0, stretches.length, ...stretches.filter(matches));
stretches.sort((a, b) => b.us - a.us);
console.log(`profile ${((prof.endTime - prof.startTime) / 1e6).toFixed(1)} s, ${stretches.length} busy stretches; the longest:`);
for (const s of stretches.slice(0, top)) {
  const self = new Map();
  const own = new Map();
  let gc = 0;
  for (const [id, dt] of s.samples) {
    const n = byId.get(id);
    if (n.callFrame.functionName === '(garbage collector)') gc += dt;
    const k = name(n);
    self.set(k, (self.get(k) ?? 0) + dt);
    const seen = new Set();
    for (let p = id; p !== undefined; p = parent.get(p)) {
      const pn = byId.get(p);
      const url = pn.callFrame.url || '';
      if (!/\/(src|actors)\//.test(url) || url.includes('node_modules')) continue;
      const pk = name(pn);
      if (seen.has(pk)) continue;
      seen.add(pk);
      own.set(pk, (own.get(pk) ?? 0) + dt);
    }
  }
  console.log(`\n${(s.us / 1000).toFixed(1)} ms at +${((s.start - prof.startTime) / 1e6).toFixed(2)} s (gc ${(gc / 1000).toFixed(1)} ms)`);
  const show = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, rows).forEach(([k, us]) => console.log(`  ${(us / 1000).toFixed(1).padStart(7)} ms  ${k}`));
  console.log(' self:'); show(self);
  console.log(' project frames (inclusive):'); show(own);
}
