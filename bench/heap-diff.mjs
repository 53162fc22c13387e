// Compares two V8 heap snapshots (.heapsnapshot): what the second holds more of, by constructor or type,
// in bytes of the objects' own size and in count.   node bench/heap-diff.mjs <before> <after> [rows=40] [divisor=1]
// With a divisor (e.g. the number of sockets opened in between) the figures are per unit.
import { readFileSync } from 'node:fs';

function summarise(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const f = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [T, N, S] = ['type', 'name', 'self_size'].map((k) => f.indexOf(k));
  const by = new Map();
  for (let i = 0; i < snap.nodes.length; i += f.length) {
    const type = types[snap.nodes[i + T]];
    const key = type === 'object' || type === 'closure' ? `${type} ${snap.strings[snap.nodes[i + N]]}` : `(${type})`;
    const e = by.get(key) ?? { n: 0, bytes: 0 };
    e.n++; e.bytes += snap.nodes[i + S];
    by.set(key, e);
  }
  return by;
}
const [a, b] = [process.argv[2], process.argv[3]].map(summarise);
const rows = Number(process.argv[4]) || 40;
const per = Number(process.argv[5]) || 1;
const diff = [...new Set([...a.keys(), ...b.keys()])].map((k) => {
  const x = a.get(k) ?? { n: 0, bytes: 0 }, y = b.get(k) ?? { n: 0, bytes: 0 };
  return { k, n: (y.n - x.n) / per, bytes: (y.bytes - x.bytes) / per };
}).sort((p, q) => q.bytes - p.bytes);
console.log(`total ${(diff.reduce((s, d) => s + d.bytes, 0)).toFixed(0)} bytes${per > 1 ? ` per unit (of ${per})` : ''}`);
for (const d of diff.slice(0, rows)) console.log(`${d.bytes.toFixed(1).padStart(10)} B ${d.n.toFixed(2).padStart(8)} x  ${d.k}`);
