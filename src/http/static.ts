import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { HttpRequest, HttpResponse } from './types.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.png': 'image/png', '.svg': 'image/svg+xml',
  '.map': 'application/json', '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};
/** Types worth compressing (images and fonts already are). */
const TEXT = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.svg', '.txt']);
/** A name with a content hash (scripts/build.mjs: chat.3f9a1c2b.js) never changes content: cached for a year. */
const HASHED = /\.[0-9A-Za-z_-]{8,}\.(js|css|mjs|json)$/;
const YEAR = 'public, max-age=31536000, immutable';

interface Cached { data: Buffer; br: Buffer | null; gz: Buffer | null; type: string; etag: string; cache: string }

/**
 * Serves files from one folder: read once, kept in memory with an ETag (the bundles are small). Text files are
 * sent brotli or gzip compressed when the browser accepts it: the build's precompressed `.br` / `.gz` copies when
 * they are there (best compression, no CPU per request), else compressed once here on first use.
 * Paths are normalised and must stay inside the folder.
 */
export function staticFolder(dir: string, opts: { maxAgeSec?: number; allow?: (name: string) => boolean } = {}) {
  const cache = new Map<string, Cached | null>();
  return (req: HttpRequest, name: string): HttpResponse => {
    const clean = normalize(name).replace(/^(\.\.[/\\])+/, '');
    if (clean.includes('..') || (opts.allow && !opts.allow(clean))) return notFound();
    let hit = cache.get(clean);
    if (hit === undefined) {
      const file = join(dir, clean);
      hit = existsSync(file) && !file.endsWith('/') ? load(file, clean, opts.maxAgeSec ?? 300) : null;
      cache.set(clean, hit);
    }
    if (!hit) return notFound();
    const enc = pickEncoding(req.headers['accept-encoding'], hit);
    const etag = enc ? `${hit.etag.slice(0, -1)}-${enc}"` : hit.etag;
    const headers: Record<string, string> = { ETag: etag, 'Cache-Control': hit.cache };
    if (hit.br || hit.gz) headers.Vary = 'Accept-Encoding';
    if (req.headers['if-none-match'] === etag) return { status: 304, headers };
    if (enc) headers['Content-Encoding'] = enc;
    headers['Content-Type'] = hit.type;
    return { status: 200, headers, body: enc === 'br' ? hit.br! : enc === 'gzip' ? hit.gz! : hit.data };
  };
}

/** br before gzip, unless the browser refused one with q=0 (other q values are not ranked: browsers send none). */
export function pickEncoding(accept: string | undefined, has: { br: unknown; gz: unknown }): 'br' | 'gzip' | null {
  if (!accept) return null;
  const ok = new Set<string>();
  for (const part of accept.toLowerCase().split(',')) {
    const [name, ...params] = part.split(';').map((x) => x.trim());
    const q = params.find((x) => x.startsWith('q='));
    if (!q || Number(q.slice(2)) > 0) ok.add(name);
  }
  if (has.br && ok.has('br')) return 'br';
  if (has.gz && (ok.has('gzip') || ok.has('x-gzip'))) return 'gzip';
  return null;
}

function load(file: string, name: string, maxAgeSec: number): Cached | null {
  try {
    const data = readFileSync(file);
    const ext = extname(file);
    const compress = TEXT.has(ext) && data.length > 256;
    const cache = HASHED.test(name) ? YEAR : ext === '.html' ? 'no-cache' : `public, max-age=${maxAgeSec}`;
    return {
      data,
      // Precompressed by the build; otherwise once, at a fast level (the swagger bundle is 1.5 MB).
      br: compress ? readIfThere(`${file}.br`, file) ?? brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } }) : null,
      gz: compress ? readIfThere(`${file}.gz`, file) ?? gzipSync(data, { level: 6 }) : null,
      type: TYPES[ext] ?? 'application/octet-stream',
      etag: `"${createHash('sha1').update(data).digest('base64url')}"`,
      cache,
    };
  } catch { return null; }
}

/** A precompressed copy, if there and not older than the file (a stale copy would serve old code). */
function readIfThere(file: string, source: string): Buffer | null {
  try { return statSync(file).mtimeMs >= statSync(source).mtimeMs ? readFileSync(file) : null; } catch { return null; }
}

const notFound = (): HttpResponse => ({ status: 404, body: { error: { code: 'not_found', message: 'file not found' } } });
