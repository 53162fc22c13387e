import { Lexer, type Token, type Tokens } from 'marked';

/**
 * Structure-aware chunking of Markdown: the heading path is written at the top of every chunk (so an
 * excerpt says where it sits), sections start new chunks, lists are split between items and tables
 * between rows with the header row repeated, and a long run of prose carries a short overlap.
 */
export interface Chunk {
  /** The heading path, e.g. "Install > On Linux" (empty before the first heading). */
  heading: string;
  /** Heading path line plus the content: what is indexed and shown as the excerpt. */
  text: string;
}

export interface ChunkOptions {
  /** A chunk is closed once it passes this size. */
  targetChars?: number;
  /** A single block longer than this is split. */
  maxChars?: number;
  overlapChars?: number;
}

const DEFAULTS = { targetChars: 900, maxChars: 1200, overlapChars: 120 };
const MIN_PIECE = 200;

export function chunkMarkdown(markdown: string, opts: ChunkOptions = {}): Chunk[] {
  const o = { ...DEFAULTS, ...opts };
  const path: string[] = [];
  const chunks: Chunk[] = [];
  let body: string[] = [];
  let size = 0;
  // False while the body holds only the overlap carried from the previous chunk.
  let fresh = false;
  // Overlap repeats the end of running prose; a list item or table row fragment would only confuse.
  let lastProse = false;
  const heading = () => path.filter(Boolean).join(' > ');

  const flush = (overlap: boolean) => {
    const content = fresh ? body.join('\n\n').trim() : '';
    if (content) {
      const h = heading();
      chunks.push({ heading: h, text: h ? `${h}\n\n${content}` : content });
    }
    const tail = overlap && content && lastProse ? tailOf(content, o.overlapChars) : '';
    body = tail ? [tail] : [];
    size = tail.length;
    fresh = false;
  };
  const add = (piece: string, prose: boolean) => {
    if (size + piece.length > o.maxChars) {
      if (fresh) flush(true);
      else { body = []; size = 0; }
    }
    body.push(piece);
    size += piece.length + 2;
    fresh = true;
    lastProse = prose;
    if (size >= o.targetChars) flush(true);
  };

  for (const token of new Lexer().lex(markdown)) {
    if (token.type === 'heading') {
      flush(false);
      const t = token as Tokens.Heading;
      path.length = Math.min(path.length, t.depth - 1);
      while (path.length < t.depth - 1) path.push('');
      path.push(t.text.replace(/\s+/g, ' ').trim());
      continue;
    }
    if (token.type === 'space' || token.type === 'hr' || token.type === 'def') continue;
    const prose = token.type === 'paragraph' || token.type === 'text';
    for (const piece of splitBlock(token, o.maxChars, o.targetChars)) add(piece, prose);
  }
  flush(false);
  return chunks;
}

/** One block as pieces (of about maxChars when it is over limit), split where the structure allows. */
function splitBlock(token: Token, limit: number, maxChars: number): string[] {
  const raw = token.raw.trim();
  if (raw.length <= limit) return raw ? [raw] : [];
  if (token.type === 'list') return pack((token as Tokens.List).items.map((i) => i.raw.trim()), maxChars, '\n');
  if (token.type === 'table') {
    const lines = raw.split('\n');
    const head = lines.slice(0, 2).join('\n');
    return pack(lines.slice(2), maxChars - head.length - 1, '\n').map((rows) => `${head}\n${rows}`);
  }
  if (token.type === 'code') {
    const lines = raw.split('\n');
    const fence = lines[0].startsWith('```') || lines[0].startsWith('~~~');
    const inner = fence ? lines.slice(1, -1) : lines;
    return pack(inner, maxChars - 8, '\n').map((part) => (fence ? `${lines[0]}\n${part}\n${lines[lines.length - 1]}` : part));
  }
  return pack(raw.split(/(?<=[.!?])\s+/), maxChars, ' ');
}

/** Greedily joins parts up to maxChars; a part that is itself too long is cut at word boundaries. */
function pack(parts: string[], limit: number, sep: string): string[] {
  // A long table header or fence leaves little room; never pack into less than a useful size.
  const maxChars = Math.max(MIN_PIECE, limit);
  const out: string[] = [];
  let cur = '';
  for (const part of parts.flatMap((p) => (p.length > maxChars ? hardSplit(p, maxChars) : [p]))) {
    if (cur && cur.length + sep.length + part.length > maxChars) { out.push(cur); cur = ''; }
    cur = cur ? cur + sep + part : part;
  }
  if (cur) out.push(cur);
  return out;
}

function hardSplit(s: string, maxChars: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (rest.length > maxChars) {
    let cut = rest.lastIndexOf(' ', maxChars);
    if (cut < maxChars / 2) cut = maxChars;
    out.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) out.push(rest);
  return out;
}

/** The last ~n characters, starting at a word boundary. */
function tailOf(s: string, n: number): string {
  if (n <= 0 || s.length <= n) return '';
  const t = s.slice(-n);
  const space = t.indexOf(' ');
  return (space >= 0 ? t.slice(space + 1) : t).trim();
}
