// Builds the server (TypeScript -> dist/, same layout) and the browser bundles (widget, admin -> dist/public).
// Type checking is separate (npm run typecheck); this only transpiles, so it takes about a second.
import { build } from 'esbuild';
import { copyFileSync, existsSync, readdirSync, statSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist');

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : /\.(ts|mts)$/.test(n) && !n.endsWith('.d.ts') ? [p] : [];
  });
}

rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: ['src', 'actors', 'workers'].flatMap((d) => walk(join(root, d))),
  outdir: out,
  outbase: root,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});

const browser = [
  { entry: 'widget/src/loader.ts', out: 'public/widget/loader.js' },
  { entry: 'widget/src/chat.tsx', out: 'public/widget/chat.js' },
  { entry: 'widget/src/voice.ts', out: 'public/widget/voice.js' },
  { entry: 'admin/src/main.tsx', out: 'public/admin/app.js' },
].filter((b) => existsSync(join(root, b.entry)));
for (const b of browser) {
  await build({
    entryPoints: [join(root, b.entry)],
    outfile: join(out, b.out),
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'warning',
  });
}
// The admin panel's page: the bundle above also wrote app.css next to app.js (main.tsx imports the stylesheet).
if (existsSync(join(root, 'admin/index.html'))) copyFileSync(join(root, 'admin/index.html'), join(out, 'public/admin/index.html'));
console.log(`built dist/ (${browser.length} browser bundles)`);
