/**
 * Builds what a bench's server process runs: `npm run build` (dist/, the JavaScript `npm start` runs) plus the
 * bench's own server entry and the helpers it imports, transpiled into dist/ in the same layout, so
 * dist/bench/chat-server.js imports dist/src/... and runs under plain node with no TypeScript loader.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function buildServerForBench(entries = ['bench/chat-server.ts', 'bench/loop-delay.ts', 'test/helpers/auth.ts']): Promise<void> {
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
  await build({
    entryPoints: entries.map((e) => join(root, e)), outdir: join(root, 'dist'), outbase: root,
    platform: 'node', format: 'esm', target: 'node20', sourcemap: 'linked', logLevel: 'warning',
  });
}
