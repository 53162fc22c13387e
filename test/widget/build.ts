/**
 * Builds the widget bundles into dist/public/widget (what the server serves at /static/widget/) with the
 * same esbuild options as scripts/build.mjs, without rebuilding (and first deleting) the whole dist folder.
 */
import { build } from 'esbuild';
import { statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const widgetOut = join(root, 'dist/public/widget');

export interface BundleSize { bytes: number; gzip: number }

export async function buildWidget(): Promise<Record<'loader' | 'chat', BundleSize>> {
  const sizes = {} as Record<'loader' | 'chat', BundleSize>;
  for (const [name, entry] of [['loader', 'widget/src/loader.ts'], ['chat', 'widget/src/chat.tsx']] as const) {
    const outfile = join(widgetOut, `${name}.js`);
    await build({
      entryPoints: [join(root, entry)], outfile, bundle: true, minify: true, format: 'esm', target: ['es2020'],
      jsx: 'automatic', jsxImportSource: 'preact', legalComments: 'none', logLevel: 'warning',
    });
    sizes[name] = { bytes: statSync(outfile).size, gzip: gzipSync(readFileSync(outfile)).length };
  }
  return sizes;
}
