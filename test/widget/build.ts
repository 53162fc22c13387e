/**
 * Builds the widget bundles into dist/public/widget (what the server serves at /static/widget/) with the
 * same esbuild options and content-hashed names as scripts/build.mjs, without rebuilding (and first deleting)
 * the whole dist folder. Plain-named copies (chat.js, voice.js) are written too, as the build does.
 */
import { build, type Plugin } from 'esbuild';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const widgetOut = join(root, 'dist/public/widget');

export interface BundleSize { bytes: number; gzip: number; file: string }

export type Bundle = 'loader' | 'chat' | 'chat-voice' | 'chat-speak' | 'chat-camera' | 'voice' | 'face' | 'face-photo';

/** The chat's optional parts draw with chat.js's preact, handed in at mount (widget/src/chat/preact-bridge.ts). */
const bridge: Plugin = { name: 'preact-bridge', setup(b) { b.onResolve({ filter: /^preact\/(hooks|jsx-runtime)$/ }, () => ({ path: join(root, 'widget/src/chat/preact-bridge.ts') })); } };

/** Test files run in parallel and serve this folder: write aside, then rename (atomic on one file system). */
function put(name: string, code: Uint8Array) {
  const outfile = join(widgetOut, name);
  const tmp = `${outfile}.${process.pid}.tmp`;
  writeFileSync(tmp, code);
  renameSync(tmp, outfile);
}

export async function buildWidget(): Promise<Record<Bundle, BundleSize>> {
  const sizes = {} as Record<Bundle, BundleSize>;
  const define: Record<string, string> = {};
  mkdirSync(widgetOut, { recursive: true });
  // Interface languages, named by content as the build does; the loader is given their names.
  const i18n: Record<string, string> = {};
  mkdirSync(join(widgetOut, 'i18n'), { recursive: true });
  for (const f of readdirSync(join(root, 'widget/i18n')).filter((n) => n.endsWith('.json'))) {
    const json = JSON.stringify(JSON.parse(readFileSync(join(root, 'widget/i18n', f), 'utf8')));
    const name = `i18n/${f.slice(0, -5)}.${createHash('sha256').update(json).digest('hex').slice(0, 10)}.json`;
    put(name, Buffer.from(json));
    i18n[f.slice(0, -5)] = name;
  }
  define.__I18N__ = JSON.stringify(i18n);
  // voice.js is loaded by chat.js, chat.js and its optional parts by the loader: each is built knowing the hashed
  // name of the next.
  const parts: Record<string, string> = {};
  for (const [name, entry, names] of [['voice', 'widget/src/voice.ts', '__VOICE_FILE__'], ['face', 'widget/src/face.ts', '__FACE_FILE__'], ['chat-voice', 'widget/src/parts/voice.ts', '__CHAT_PARTS__'], ['chat-speak', 'widget/src/parts/speak.ts', '__CHAT_PARTS__'], ['chat-camera', 'widget/src/parts/camera.ts', '__CHAT_PARTS__'], ['chat', 'widget/src/chat.tsx', '__CHAT_FILE__'], ['face-photo', 'widget/src/face-photo.ts', '__FACE_PHOTO_FILE__'], ['loader', 'widget/src/loader.ts', '']] as const) {
    const part = names === '__CHAT_PARTS__';
    const r = await build({
      entryPoints: [join(root, entry)], bundle: true, minify: true, format: 'esm', target: ['es2020'], define: { ...define },
      jsx: 'automatic', jsxImportSource: 'preact', legalComments: 'none', logLevel: 'warning', write: false, outfile: join(widgetOut, `${name}.js`),
      plugins: part ? [bridge] : [],
    });
    const code = r.outputFiles[0].contents;
    let file = `${name}.js`;
    if (names) {
      file = `${name}.${createHash('sha256').update(code).digest('hex').slice(0, 10)}.js`;
      if (part) parts[name.slice(5)] = file;
      define[names] = JSON.stringify(part ? parts : file);
      put(file, code);
    }
    put(`${name}.js`, code);
    sizes[name] = { bytes: code.length, gzip: gzipSync(code).length, file };
  }
  // The launcher's face pictures, as scripts/build.mjs draws them.
  const r = await build({ entryPoints: [join(root, 'widget/src/face/pictures.ts')], bundle: true, format: 'esm', platform: 'node', write: false, logLevel: 'warning' });
  const { pictures } = await import(`data:text/javascript;base64,${Buffer.from(r.outputFiles[0].contents).toString('base64')}`);
  mkdirSync(join(widgetOut, 'faces'), { recursive: true });
  for (const [file, svg] of pictures() as Array<[string, string]>) put(`faces/${file}`, new TextEncoder().encode(svg));
  return sizes;
}
