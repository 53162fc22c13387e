#!/usr/bin/env node
// npm run deps: dependency-cruiser with .dependency-cruiser.cjs (package boundaries, layer order), then the folder
// cycle check of scripts/import-graph.mjs (no import cycle between folders). Exits 1 on any violation.
//   --json FILE     also keeps dependency-cruiser's JSON in FILE (for scripts/import-graph.mjs FILE)
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { folderCycleEdges, figures } from './import-graph.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const config = require(join(root, '.dependency-cruiser.cjs'));
const args = process.argv.slice(2);
const bin = join(root, 'node_modules', '.bin', 'depcruise');
const out = execFileSync(bin, ['src', 'actors', 'workers', 'protocol', 'widget/src', 'admin/src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
  { cwd: root, maxBuffer: 1 << 28, encoding: 'utf8' });
const cruise = JSON.parse(out);
const jsonAt = args.indexOf('--json');
if (jsonAt >= 0) writeFileSync(args[jsonAt + 1], out);

let failed = 0;
for (const v of cruise.summary.violations) {
  failed++;
  console.log(`${v.rule.name}: ${v.from} -> ${v.to}`);
  const rule = config.forbidden.find((r) => r.name === v.rule.name);
  if (rule?.comment) console.log(`  ${rule.comment}`);
}
for (const e of folderCycleEdges(cruise)) {
  failed++;
  console.log(`new folder cycle: ${e} closes an import cycle between folders. Import the other way (the lower layer must not`);
  console.log('  know the higher one), or move what both need into a module below them (docs/development.md, "Layers").');
}
const f = figures(cruise);
console.log(`${cruise.summary.totalCruised} modules, ${cruise.summary.totalDependenciesCruised} imports; folders ${f.folders}, largest cycle ${f.largestComponent} folders, ${f.mutualPairs} mutually importing pairs`);
console.log(failed ? `deps: ${failed} problem(s)` : 'deps: ok');
process.exit(failed ? 1 : 0);
