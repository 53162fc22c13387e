/**
 * Builds what a bench's server process runs: `npm run build` (dist/, the JavaScript `npm start` runs) plus the
 * bench's own server entry and the helpers it imports, transpiled into dist/ in the same layout, so
 * dist/bench/chat-server.js imports dist/src/... and runs under plain node with no TypeScript loader.
 *
 * `buildPrivately` does the same into a folder of its own (bench/.build/<pid>/, removed at exit): another
 * `npm run build` empties dist/ while a bench's server still loads modules from it.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const transpile = { outbase: root, platform: 'node', format: 'esm', target: 'node20', sourcemap: 'linked', logLevel: 'warning' } as const;

/** The chat bench server and what it imports from outside src/. */
export const SERVER_ENTRIES = ['bench/chat-server.ts', 'bench/seed-bot.ts', 'bench/loop-delay.ts', 'test/helpers/auth.ts'];

export async function buildServerForBench(entries = SERVER_ENTRIES): Promise<void> {
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
  await build({ ...transpile, entryPoints: entries.map((e) => join(root, e)), outdir: join(root, 'dist') });
}

/** The server's code (as scripts/build.mjs transpiles it, without the browser bundles) and `entries`; returns the folder. */
export async function buildPrivately(entries = SERVER_ENTRIES): Promise<string> {
  const out = join(root, 'bench/.build', String(process.pid));
  process.once('exit', () => rmSync(out, { recursive: true, force: true }));
  await build({ ...transpile, entryPoints: [...['src', 'actors', 'workers'].map((d) => join(root, d, '**/*.ts')), ...entries.map((e) => join(root, e))], outdir: out });
  return out;
}
