/**
 * The browser bundles exactly as `npm run build` (scripts/build.mjs) wrote them into dist/public, which is what the
 * server serves at /static/ and /admin/. Tests never bundle a copy of their own: `npm test` builds once before any
 * test file; a test file run alone (`npx tsx test/x.test.ts`) uses the dist/ already there.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const publicDir = join(root, 'dist/public');
export const widgetDir = join(publicDir, 'widget');
export const adminDir = join(publicDir, 'admin');

export type Bundle = 'loader' | 'chat' | 'chat-voice' | 'chat-speak' | 'chat-camera' | 'chat-markdown' | 'voice' | 'face' | 'face-photo';
/** file: the name the server serves it under (content-hashed but for the loader); gzip: the precompressed copy's size. */
export interface BundleSize { bytes: number; gzip: number; file: string }
export interface Built {
  widget: Record<Bundle, BundleSize>;
  /** The admin page as served, and the script and stylesheet it names. */
  admin: { page: string; js: string; css: string };
}

const BUNDLES: Bundle[] = ['loader', 'chat', 'chat-voice', 'chat-speak', 'chat-camera', 'chat-markdown', 'voice', 'face', 'face-photo'];
const SOURCES = ['widget/src', 'widget/i18n', 'admin/src', 'admin/index.html', 'scripts/build.mjs'];

function newestSource(path: string): { file: string; mtime: number } {
  const s = statSync(path);
  if (!s.isDirectory()) return { file: path, mtime: s.mtimeMs };
  return readdirSync(path).map((n) => newestSource(join(path, n))).reduce((a, b) => (b.mtime > a.mtime ? b : a), { file: path, mtime: 0 });
}

let cached: Built | undefined;

/**
 * Reads dist/public; throws saying what to run when it is missing or older than the browser sources (and prints it:
 * uvu drops an error thrown in test.before without a word, reporting only the tests that did not pass).
 */
export function built(): Built {
  try { return (cached ??= read()); } catch (err) { console.error(`\n  ${(err as Error).message}\n`); throw err; }
}

function read(): Built {
  const page = join(adminDir, 'index.html');
  if (!existsSync(page) || !existsSync(join(widgetDir, 'loader.js'))) {
    throw new Error(`${relative(root, publicDir)} is missing: run \`npm run build\` first (npm test builds it before any test file)`);
  }
  // Run alone, a test must not pass on bundles older than the sources; under npm test (which sets TEST_BUILT_AT)
  // dist/ was built at the start of the run, and sources edited while it runs do not fail it.
  const newest = SOURCES.map((p) => join(root, p)).filter(existsSync).map(newestSource).reduce((a, b) => (b.mtime > a.mtime ? b : a));
  if (!process.env.TEST_BUILT_AT && newest.mtime > statSync(page).mtimeMs) throw new Error(`dist/ is older than ${relative(root, newest.file)}: run \`npm run build\` (npm test builds it before any test file)`);

  const files = readdirSync(widgetDir);
  const widget = {} as Record<Bundle, BundleSize>;
  for (const name of BUNDLES) {
    // The build writes each bundle under its plain name and, but for the loader, under its content-hashed name.
    const code = readFileSync(join(widgetDir, `${name}.js`));
    const hashed = files.filter((f) => new RegExp(`^${name}\\.[0-9a-f]{10}\\.js$`).test(f) && readFileSync(join(widgetDir, f)).equals(code));
    if (name !== 'loader' && hashed.length !== 1) throw new Error(`dist/public/widget: expected one ${name}.<hash>.js with ${name}.js's content, found ${hashed.length}: run \`npm run build\``);
    const file = name === 'loader' ? 'loader.js' : hashed[0];
    const gz = join(widgetDir, `${file}.gz`);
    widget[name] = { bytes: code.length, gzip: existsSync(gz) ? statSync(gz).size : gzipSync(code, { level: 9 }).length, file };
  }
  const html = readFileSync(page, 'utf8');
  const js = html.match(/\/static\/admin\/([^"'\s]+\.js)/)?.[1];
  const css = html.match(/\/static\/admin\/([^"'\s]+\.css)/)?.[1];
  if (!js || !css) throw new Error('dist/public/admin/index.html names no script or stylesheet: run `npm run build`');
  return { widget, admin: { page: html, js, css } };
}
