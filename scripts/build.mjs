// Builds the server (TypeScript -> dist/, same layout) and the browser bundles (widget, admin -> dist/public).
// Type checking is separate (npm run typecheck); this only transpiles, so it takes about a second.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, rmSync, writeFileSync } from 'node:fs';
import zlib, { brotliCompressSync, gzipSync } from 'node:zlib';
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

// Browser bundles. voice.js is loaded by chat.js and chat.js by the loader: each is named by its content
// (chat.<hash>.js, served with a one-year cache) and built after the file it loads, whose name it is given. The
// loader (the URL pages embed) and plain-named copies keep stable names with a short cache.
// The chat's optional parts (chat-voice, chat-speak, chat-camera: widget/src/parts/) are loaded by the loader beside
// chat.js when a bot turns them on; they draw with chat.js's preact, handed in at mount (widget/src/chat/preact-bridge.ts).
const esb = { bundle: true, minify: true, format: 'esm', target: ['es2020'], jsx: 'automatic', jsxImportSource: 'preact', legalComments: 'none', logLevel: 'warning' };
const hashOf = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 10);
const widgetDir = join(out, 'public/widget');
const define = {};
// Interface languages other than English (widget/src/i18n.ts): minified JSON named by content; the loader is
// given their names.
const i18n = {};
const i18nDir = join(root, 'widget/i18n');
for (const f of existsSync(i18nDir) ? readdirSync(i18nDir).filter((n) => n.endsWith('.json')) : []) {
  const json = JSON.stringify(JSON.parse(readFileSync(join(i18nDir, f), 'utf8')));
  const name = `i18n/${f.slice(0, -5)}.${hashOf(json)}.json`;
  mkdirSync(join(widgetDir, 'i18n'), { recursive: true });
  writeFileSync(join(widgetDir, name), json);
  i18n[f.slice(0, -5)] = name;
}
define.__I18N__ = JSON.stringify(i18n);
const bridge = { name: 'preact-bridge', setup(b) { b.onResolve({ filter: /^preact\/(hooks|jsx-runtime)$/ }, () => ({ path: join(root, 'widget/src/chat/preact-bridge.ts') })); } };
const parts = {};
let bundles = 0;
for (const [name, entry, key] of [['voice', 'widget/src/voice.ts', '__VOICE_FILE__'], ['face', 'widget/src/face.ts', '__FACE_FILE__'], ['chat-voice', 'widget/src/parts/voice.ts', '__CHAT_PARTS__'], ['chat-speak', 'widget/src/parts/speak.ts', '__CHAT_PARTS__'], ['chat-camera', 'widget/src/parts/camera.ts', '__CHAT_PARTS__'], ['chat-markdown', 'widget/src/parts/markdown.ts', '__MARKDOWN_FILE__'], ['chat', 'widget/src/chat.tsx', '__CHAT_FILE__'], ['face-photo', 'widget/src/face-photo.ts', '__FACE_PHOTO_FILE__'], ['loader', 'widget/src/loader.ts', null]]) {
  if (!existsSync(join(root, entry))) continue;
  const part = key === '__CHAT_PARTS__';
  const bridged = part || key === '__MARKDOWN_FILE__';
  const r = await build({ ...esb, entryPoints: [join(root, entry)], outfile: join(widgetDir, `${name}.js`), define: { ...define }, plugins: bridged ? [bridge] : [], write: false });
  const code = r.outputFiles[0].contents;
  mkdirSync(widgetDir, { recursive: true });
  writeFileSync(join(widgetDir, `${name}.js`), code);
  if (key) {
    const file = `${name}.${hashOf(code)}.js`;
    writeFileSync(join(widgetDir, file), code);
    if (part) parts[name.slice(5)] = file;
    define[key] = JSON.stringify(part ? parts : file);
  }
  bundles++;
}
// The launcher's face pictures (widget/src/face/pictures.ts), drawn once here rather than by the loader.
if (existsSync(join(root, 'widget/src/face/pictures.ts'))) {
  const r = await build({ ...esb, entryPoints: [join(root, 'widget/src/face/pictures.ts')], platform: 'node', write: false });
  const { pictures } = await import(`data:text/javascript;base64,${Buffer.from(r.outputFiles[0].contents).toString('base64')}`);
  mkdirSync(join(widgetDir, 'faces'), { recursive: true });
  for (const [file, svgText] of pictures()) writeFileSync(join(widgetDir, 'faces', file), svgText);
}
// The admin panel: app.<hash>.js and app.<hash>.css, and its page pointing at them (main.tsx imports the stylesheet).
if (existsSync(join(root, 'admin/src/main.tsx'))) {
  const adminDir = join(out, 'public/admin');
  // Each area's pages are a chunk of their own (admin/src/routes.ts), loaded when the area is first opened.
  const r = await build({ ...esb, entryPoints: [join(root, 'admin/src/main.tsx')], outdir: adminDir, entryNames: 'app.[hash]', chunkNames: 'chunk.[hash]', splitting: true, metafile: true });
  // With splitting, every lazily loaded page is an entry point in the metafile too: the page must load the output
  // built from main.tsx itself, named app.<hash>.js (a chunk.<hash>.js there is a blank panel).
  const mains = Object.entries(r.metafile.outputs).filter(([, o]) => o.entryPoint && join(process.cwd(), o.entryPoint) === join(root, 'admin/src/main.tsx'));
  if (mains.length !== 1) throw new Error(`admin build: expected one output built from admin/src/main.tsx, found ${mains.length}`);
  const [jsPath, main] = mains[0];
  const js = jsPath.split('/').pop();
  const css = main.cssBundle?.split('/').pop();
  if (!/^app\.[A-Z0-9]+\.js$/i.test(js) || !css) throw new Error(`admin build: the panel's page would load ${js} (stylesheet ${css}), not the app entry app.<hash>.js`);
  // Pages import no CSS (admin/src/styles.css imports every stylesheet): the page loads app.<hash>.css alone, so a
  // CSS chunk would be written and never loaded.
  const strayCss = Object.keys(r.metafile.outputs).filter((o) => o.endsWith('.css') && o.split('/').pop() !== css);
  if (strayCss.length) throw new Error(`admin build: ${strayCss.join(', ')} would never be loaded; import the stylesheet from admin/src/styles.css, not from a page`);
  const page = readFileSync(join(root, 'admin/index.html'), 'utf8').replace('/static/admin/app.js', `/static/admin/${js}`).replace('/static/admin/app.css', `/static/admin/${css}`);
  if (!page.includes(`/static/admin/${js}`) || !page.includes(`/static/admin/${css}`)) throw new Error('admin build: admin/index.html no longer names /static/admin/app.js and app.css');
  writeFileSync(join(adminDir, 'index.html'), page);
  bundles++;
}
// Precompressed copies for the server to send by content negotiation (src/http/static.ts): best levels, once.
const sizes = [];
for (const file of walkAll(join(out, 'public'))) {
  if (!/\.(js|css|html|svg|json|map)$/.test(file)) continue;
  const data = readFileSync(file);
  if (data.length <= 256) continue;
  const br = brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length } });
  const gz = gzipSync(data, { level: 9 });
  writeFileSync(`${file}.br`, br);
  writeFileSync(`${file}.gz`, gz);
  if (/widget\/(loader|chat|chat-voice|chat-speak|chat-camera|chat-markdown|voice|face)\.js$|admin\/(app|chunk)\.[^/]+\.(js|css)$/.test(file)) sizes.push(`${file.slice(out.length + 8)} ${data.length} B, gzip ${gz.length}, br ${br.length}`);
}
console.log(`built dist/ (${bundles} browser bundles)\n  ${sizes.join('\n  ')}`);

function walkAll(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => { const p = join(dir, n); return statSync(p).isDirectory() ? walkAll(p) : [p]; });
}
