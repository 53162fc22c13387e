import { createHash } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import type { HttpRequest, HttpResponse } from './types.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.png': 'image/png', '.svg': 'image/svg+xml',
  '.map': 'application/json', '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.txt': 'text/plain; charset=utf-8',
};

interface Cached { data: Buffer; type: string; etag: string }

/**
 * Serves files from one folder: read once, kept in memory with an ETag (the bundles are small).
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
      hit = existsSync(file) && !file.endsWith('/') ? load(file) : null;
      cache.set(clean, hit);
    }
    if (!hit) return notFound();
    if (req.headers['if-none-match'] === hit.etag) return { status: 304, headers: { ETag: hit.etag } };
    return {
      status: 200,
      headers: { 'Content-Type': hit.type, ETag: hit.etag, 'Cache-Control': `public, max-age=${opts.maxAgeSec ?? 300}` },
      body: hit.data,
    };
  };
}

function load(file: string): Cached | null {
  try {
    const data = readFileSync(file);
    return { data, type: TYPES[extname(file)] ?? 'application/octet-stream', etag: `"${createHash('sha1').update(data).digest('base64url')}"` };
  } catch { return null; }
}

const notFound = (): HttpResponse => ({ status: 404, body: { error: { code: 'not_found', message: 'file not found' } } });
