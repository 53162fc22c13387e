/**
 * `npx tsx bench/admin-size.ts`: what the admin panel downloads, gzipped (level 9, as the build's .gz copies).
 * First page: what a signed-in person's browser fetches before the default area (#/bots) shows: the page, the
 * entry script, its stylesheet, the chunks the entry imports statically, and the Bots area's chunk with its own
 * static imports. Then every other area: the chunks it adds on top of what is already loaded. Budget: first page
 * <= 150 KB gzipped (issue 22). Exits 1 over budget.
 */
import { build, type Metafile } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUDGET = 150 * 1024;
const root = fileURLToPath(new URL('../', import.meta.url));
const outdir = join(root, 'dist/bench-admin');
const r = await build({
  entryPoints: [join(root, 'admin/src/main.tsx')], outdir, entryNames: 'app', chunkNames: 'chunk.[hash]', splitting: true, bundle: true, minify: true,
  format: 'esm', target: ['es2020'], jsx: 'automatic', jsxImportSource: 'preact', legalComments: 'none', logLevel: 'error', write: false, metafile: true,
});
const meta: Metafile = r.metafile!;
const key = (p: string) => relative(root, p);
const gz = new Map(r.outputFiles.map((f) => [key(f.path), gzipSync(f.contents, { level: 9 }).length]));
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

/** A file and everything it imports statically (what the browser must fetch before it runs). */
function closure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const out = meta.outputs[file]!;
  if (out.cssBundle) seen.add(out.cssBundle);
  for (const imp of out.imports) if (imp.kind === 'import-statement') closure(imp.path, seen);
  return seen;
}
const sum = (files: Iterable<string>) => [...files].reduce((n, f) => n + (gz.get(f) ?? 0), 0);
/** The output chunk whose entry point is this source file (an area's lazily imported page). */
const chunkOf = (src: string) => Object.keys(meta.outputs).find((o) => meta.outputs[o]!.entryPoint === src);

const entry = Object.keys(meta.outputs).find((o) => o.endsWith('/app.js'))!;
const html = gzipSync(readFileSync(join(root, 'admin/index.html')), { level: 9 }).length;
const routes = readFileSync(join(root, 'admin/src/routes.ts'), 'utf8');
const areas = [...routes.matchAll(/path: '([\w-]+)'[^\n]*?import\('\.\/(pages\/[^']+)\.js'\)/g)].map((m) => ({ path: m[1]!, src: `admin/src/${m[2]}${existsTsx(m[2]!)}` }));
function existsTsx(p: string): string {
  try { readFileSync(join(root, `admin/src/${p}.tsx`)); return '.tsx'; } catch { return '.ts'; }
}

const shell = closure(entry);
const first = new Set(shell);
const bots = areas.find((a) => a.path === 'bots');
const botsChunk = bots && chunkOf(bots.src);
if (botsChunk) closure(botsChunk, first);
const firstTotal = sum(first) + html;
console.log(`admin panel, gzipped:`);
console.log(`  first page (shell + Bots): ${kb(firstTotal)} of a ${kb(BUDGET)} budget (${first.size} files + index.html; shell alone ${kb(sum(shell) + html)})`);
for (const a of areas) {
  const c = chunkOf(a.src);
  if (!c) { console.log(`  #/${a.path}: (no chunk: ${a.src})`); continue; }
  const adds = [...closure(c)].filter((f) => !shell.has(f));
  console.log(`  #/${a.path.padEnd(14)} loads ${kb(sum(adds)).padStart(8)} more (${adds.length} files)`);
}
process.exit(firstTotal > BUDGET ? 1 : 0);
