// Summarises a V8 .cpuprofile (from `npx tsx bench/chat.ts --prof`): top functions by self time, and files.
//   node bench/prof-top.mjs <file.cpuprofile> [rows=40] [--window=FROM,TO]
// --window: only the samples from FROM to TO seconds before the profile's end (an idle stretch before a shutdown).
import { readFileSync } from 'node:fs';

const prof = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const rows = Number(process.argv[3]) || 40;
const win = process.argv.find((a) => a.startsWith('--window='))?.slice(9).split(',').map(Number);
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const dt = new Map();
let t = prof.startTime;
for (let i = 0; i < prof.samples.length; i++) {
  t += prof.timeDeltas[i] ?? 0;
  if (win && (t < prof.endTime - win[0] * 1e6 || t > prof.endTime - win[1] * 1e6)) continue;
  dt.set(prof.samples[i], (dt.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0));
}
const total = [...dt.values()].reduce((a, b) => a + b, 0);
const self = new Map();
const files = new Map();
for (const [id, us] of dt) {
  const n = byId.get(id);
  const cf = n.callFrame;
  const file = (cf.url || '(native)').replace(/^.*node_modules\//, 'nm/').replace(/^file:\/\/\/work\/main\//, '');
  const key = `${cf.functionName || '(anon)'} ${file}:${cf.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + us);
  const fk = file.split('/').slice(0, 3).join('/');
  files.set(fk, (files.get(fk) ?? 0) + us);
}
const show = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k).forEach(([name, us]) => console.log(`${(us / 1000).toFixed(0).padStart(7)} ms ${(100 * us / total).toFixed(1).padStart(5)}%  ${name}`));
console.log(`total ${(total / 1000).toFixed(0)} ms`);
show(self, rows);
console.log('--- by file');
show(files, 25);
