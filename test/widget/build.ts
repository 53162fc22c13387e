/**
 * Builds the widget bundles into dist/public/widget (what the server serves at /static/widget/) with the
 * same esbuild options as scripts/build.mjs, without rebuilding (and first deleting) the whole dist folder.
 */
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const widgetOut = join(root, 'dist/public/widget');

export interface BundleSize { bytes: number; gzip: number }

export type Bundle = 'loader' | 'chat' | 'voice';

export async function buildWidget(): Promise<Record<Bundle, BundleSize>> {
  const sizes = {} as Record<Bundle, BundleSize>;
  for (const [name, entry] of [['loader', 'widget/src/loader.ts'], ['chat', 'widget/src/chat.tsx'], ['voice', 'widget/src/voice.ts']] as const) {
    const outfile = join(widgetOut, `${name}.js`);
    const r = await build({
      entryPoints: [join(root, entry)], outfile, bundle: true, minify: true, format: 'esm', target: ['es2020'],
      jsx: 'automatic', jsxImportSource: 'preact', legalComments: 'none', logLevel: 'warning', write: false,
    });
    const code = r.outputFiles[0].contents;
    // Test files run in parallel and serve this folder: write aside, then rename (atomic on one file system).
    mkdirSync(widgetOut, { recursive: true });
    const tmp = `${outfile}.${process.pid}.tmp`;
    writeFileSync(tmp, code);
    renameSync(tmp, outfile);
    sizes[name] = { bytes: code.length, gzip: gzipSync(code).length };
  }
  return sizes;
}
