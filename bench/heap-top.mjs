// Summarises a sampling heap profile (from `npx tsx bench/chat.ts --heap-sample=all|survivors`): bytes by
// allocating function (self) and by file.   node bench/heap-top.mjs <file.heapprofile> [rows=40]
import { readFileSync } from 'node:fs';

const { head } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const rows = Number(process.argv[3]) || 40;
const self = new Map();
const files = new Map();
let total = 0;
const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v);
(function walk(n, parent) {
  const cf = n.callFrame;
  const file = (cf.url || '(native)').replace(/^.*node_modules\//, 'nm/').replace(/^file:\/\/\/work\/main\//, '');
  const key = `${cf.functionName || '(anon)'} ${file}:${cf.lineNumber + 1} <- ${parent}`;
  if (n.selfSize) { total += n.selfSize; add(self, key, n.selfSize); add(files, file.split('/').slice(0, 3).join('/'), n.selfSize); }
  for (const c of n.children) walk(c, `${cf.functionName || '(anon)'} ${file.split('/').pop()}:${cf.lineNumber + 1}`);
})(head, '');
const show = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k).forEach(([name, b]) => console.log(`${(b / 1e3).toFixed(0).padStart(7)} KB ${(100 * b / total).toFixed(1).padStart(5)}%  ${name}`));
console.log(`total ${(total / 1e6).toFixed(2)} MB sampled`);
show(self, rows);
console.log('--- by file');
show(files, 25);
