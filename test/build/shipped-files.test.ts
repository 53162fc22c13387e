/**
 * The files `npm run build` ships, as the server serves them: the admin page loads the panel's entry (app.<hash>.js,
 * built from admin/src/main.tsx, and its stylesheet), not one of the lazily loaded page chunks (a blank panel); the
 * widget's loader and bundles name only files that exist. Reads dist/public as built (test/helpers/built.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { adminDir, built, widgetDir } from '../helpers/built.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
test.before(async () => { built(); server = await startTestServer(); });
test.after(async () => { await server?.stop(); });

/** The files a built admin script loads: static imports and import() calls of ./<file>.js. */
const importsOf = (code: string): string[] => [...code.matchAll(/(?:from|import)\s*\(?\s*["']\.\/([\w.-]+\.js)["']/g)].map((m) => m[1]);

test('the admin page names app.<hash>.js and app.<hash>.css, and the server serves the page and both files', async () => {
  const { page, js, css } = built().admin;
  assert.match(js, /^app\.[A-Z0-9]{8}\.js$/, `the page loads ${js}`);
  assert.match(css, /^app\.[A-Z0-9]{8}\.css$/, `the page's stylesheet is ${css}`);
  assert.is([...page.matchAll(/<script\b/g)].length, 1, 'one script');
  assert.match(page, `<script type="module" src="/static/admin/${js}"></script>`);
  assert.match(page, `<link rel="stylesheet" href="/static/admin/${css}">`);

  const served = await server.fetch('/admin/');
  assert.is(served.status, 200);
  assert.is(await served.text(), page, 'the server sends the built page');
  for (const file of [js, css]) {
    const r = await server.fetch(`/static/admin/${file}`);
    assert.is(r.status, 200, file);
    assert.ok((await r.arrayBuffer()).byteLength > 1000, `${file} has content`);
  }
});

test("the page's script is the panel's entry: it draws into #app, and it loads every other script while none loads it", () => {
  const { js } = built().admin;
  const scripts = readdirSync(adminDir).filter((f) => f.endsWith('.js'));
  const code = new Map(scripts.map((f) => [f, readFileSync(join(adminDir, f), 'utf8')]));
  // main.tsx: render(<App />, document.getElementById('app')).
  assert.match(code.get(js)!, 'getElementById("app")');
  for (const [f, c] of code) assert.not.ok(importsOf(c).includes(js), `${f} imports the page's script ${js}`);
  const reached = new Set<string>([js]);
  for (const queue = [js]; queue.length;) {
    for (const next of importsOf(code.get(queue.pop()!) ?? '')) {
      assert.ok(code.has(next), `a script imports ${next}, which the build did not write`);
      if (!reached.has(next)) { reached.add(next); queue.push(next); }
    }
  }
  assert.equal(scripts.filter((f) => !reached.has(f)), [], 'every built script is loaded from the entry, at once or when its page opens');
  assert.ok(reached.size > 5, `the pages are chunks of their own (${reached.size} scripts)`);
});

test("the page's stylesheet is the only one written, and it holds every area's styles (no chunk.<hash>.css that nothing loads)", () => {
  const { css } = built().admin;
  assert.equal(readdirSync(adminDir).filter((f) => f.endsWith('.css')), [css]);
  const sheet = readFileSync(join(adminDir, css), 'utf8');
  // One rule from each stylesheet: inbox, workspace pages, knowledge/tools kit, charts, bot page, base.
  for (const rule of ['.inbox-list{', '.settings-form{', '.tabs{', '.uplot{', '.bot-head{', ':root{']) assert.ok(sheet.includes(rule), `${css} has ${rule}`);
});

test('the precompressed copies the server sends hold the same bytes as the files', () => {
  const { js, css } = built().admin;
  const files = [join(adminDir, js), join(adminDir, css), join(adminDir, 'index.html'), ...['loader.js', built().widget.chat.file].map((f) => join(widgetDir, f))];
  for (const file of files) {
    const bytes = readFileSync(file);
    assert.ok(brotliDecompressSync(readFileSync(`${file}.br`)).equals(bytes), `${file}.br`);
    assert.ok(gunzipSync(readFileSync(`${file}.gz`)).equals(bytes), `${file}.gz`);
  }
});

test('the widget names only files that exist: the loader its chat bundle, parts and languages, each bundle the next', async () => {
  const names = (file: string) => [...readFileSync(join(widgetDir, file), 'utf8').matchAll(/(?:i18n\/[a-z-]+|[a-z-]+)\.[0-9a-f]{10}\.(?:json|js)\b/g)].map((m) => m[0]);
  const { widget } = built();
  const fromLoader = names('loader.js');
  for (const b of ['chat', 'chat-voice', 'chat-speak', 'chat-camera', 'face-photo'] as const) assert.ok(fromLoader.includes(widget[b].file), `the loader names ${widget[b].file}`);
  assert.ok(fromLoader.some((n) => n.startsWith('i18n/')), 'the loader names the interface languages');
  assert.ok(names(widget.chat.file).includes(widget.face.file), 'chat names face');
  assert.ok(names(widget['chat-voice'].file).includes(widget.voice.file), 'the voice part names voice');
  const named = new Set(Object.values(widget).flatMap((b) => names(b.file)));
  for (const n of named) {
    assert.ok(existsSync(join(widgetDir, n)), `${n} is named but was not built`);
    const r = await server.fetch(`/static/widget/${n}`);
    assert.is(r.status, 200, n);
    await r.arrayBuffer();
  }
  assert.ok(named.size >= 15, `${named.size} files named`);
});

test.run();
