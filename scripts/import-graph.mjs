#!/usr/bin/env node
// The server's import graph folder by folder, from dependency-cruiser's JSON (npm run deps -- -T json, or
// `npx depcruise src actors workers widget/src admin/src -T json`), read from a file or standard input:
//   node scripts/import-graph.mjs deps.json   |   npx depcruise … -T json | node scripts/import-graph.mjs
// A folder is src/<name> (files directly in src/ are "src"), actors/<name>, workers, widget, admin. Every import
// counts, type-only and dynamic ones too: a type import ties the folders' code together as much as a value one.
// Prints the folders, the largest strongly connected component, the mutually importing pairs and every
// folder-level cycle (strongly connected component); --json prints the same as one JSON object.
import { readFileSync } from 'node:fs';

export function folderOf(path) {
  const p = path.split('/');
  if (p[0] === 'src') return p.length > 2 ? `src/${p[1]}` : 'src';
  if (p[0] === 'actors') return p.length > 2 ? `actors/${p[1]}` : 'actors';
  if (['workers', 'widget', 'admin'].includes(p[0])) return p[0];
  return null;
}

/** Folder -> set of folders it imports, from depcruise's modules. */
export function folderGraph(cruise) {
  const graph = new Map();
  for (const m of cruise.modules) {
    const from = folderOf(m.source);
    if (!from) continue;
    if (!graph.has(from)) graph.set(from, new Set());
    for (const d of m.dependencies) {
      const to = d.resolved && folderOf(d.resolved);
      if (to && to !== from) graph.get(from).add(to);
    }
  }
  return graph;
}

/** Tarjan's strongly connected components, each sorted, largest first. */
export function components(graph) {
  let index = 0;
  const idx = new Map(), low = new Map(), stack = [], on = new Set(), out = [];
  const visit = (v) => {
    idx.set(v, index); low.set(v, index); index++; stack.push(v); on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const c = [];
      let w;
      do { w = stack.pop(); on.delete(w); c.push(w); } while (w !== v);
      out.push(c.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return out.sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]));
}

export function figures(cruise) {
  const graph = folderGraph(cruise);
  const sccs = components(graph);
  const pairs = [];
  for (const [a, tos] of graph) for (const b of tos) if (a < b && graph.get(b)?.has(a)) pairs.push([a, b]);
  pairs.sort((x, y) => x[0].localeCompare(y[0]) || x[1].localeCompare(y[1]));
  return {
    folders: graph.size,
    largestComponent: sccs[0]?.length ?? 0,
    foldersInCycles: sccs.filter((c) => c.length > 1).reduce((n, c) => n + c.length, 0),
    mutualPairs: pairs.length,
    cycles: sccs.filter((c) => c.length > 1),
    pairs,
  };
}

/** Folder edges that lie inside a cycle (both ends in one strongly connected component), as { from: [to…] }. */
export function cycleEdges(graph) {
  const comp = new Map();
  for (const c of components(graph)) for (const f of c) comp.set(f, c);
  const out = {};
  for (const [a, tos] of [...graph].sort()) {
    const inside = [...tos].filter((b) => comp.get(a).length > 1 && comp.get(a) === comp.get(b)).sort();
    if (inside.length) out[a] = inside;
  }
  return out;
}

/** Folder edges that close an import cycle between folders, as "a -> b": every one fails the build. */
export function folderCycleEdges(cruise) {
  return Object.entries(cycleEdges(folderGraph(cruise))).flatMap(([a, tos]) => tos.map((b) => `${a} -> ${b}`));
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith('--'));
  const cruise = JSON.parse(readFileSync(file ?? 0, 'utf8'));
  const f = figures(cruise);
  if (args.includes('--json')) console.log(JSON.stringify(f, null, 2));
  else {
    console.log(`folders: ${f.folders}`);
    console.log(`largest strongly connected component: ${f.largestComponent} folders`);
    console.log(`folders in any cycle: ${f.foldersInCycles}`);
    console.log(`mutually importing folder pairs: ${f.mutualPairs}`);
    for (const c of f.cycles) console.log(`cycle (${c.length}): ${c.join(' ')}`);
    for (const [a, b] of f.pairs) console.log(`pair: ${a} <-> ${b}`);
  }
}
