/**
 * Builds the admin panel into dist/public/admin (app.js, app.css, index.html: what the server serves at
 * /admin and /static/admin/) with the same esbuild options as scripts/build.mjs, without rebuilding dist/.
 */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const adminOut = join(root, 'dist/public/admin');

/** Writes each file aside, then renames it: test files run in parallel and serve this folder. */
function put(file: string, data: Uint8Array | string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

export async function buildAdmin(): Promise<void> {
  const r = await build({
    entryPoints: [join(root, 'admin/src/main.tsx')], outdir: adminOut, entryNames: 'app', chunkNames: 'chunk.[hash]', splitting: true, bundle: true, minify: true, format: 'esm',
    target: ['es2020'], jsx: 'automatic', jsxImportSource: 'preact', legalComments: 'none', logLevel: 'warning', write: false,
  });
  mkdirSync(adminOut, { recursive: true });
  for (const f of r.outputFiles) put(join(adminOut, basename(f.path)), f.contents);
  put(join(adminOut, 'index.html'), readFileSync(join(root, 'admin/index.html')));
}
