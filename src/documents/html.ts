import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { HTML_LIMITS, prescanHtml, type HtmlLimits } from './html-prescan.js';

/**
 * HTML to structured text: a linear prescan bounds depth and size (html-prescan.ts), Readability picks
 * the main content of ordinary pages (dropping navigation, ads, footers), then the DOM is written out as
 * Markdown so the chunker sees headings, lists and tables.
 */
export interface ParsedHtml {
  title: string;
  markdown: string;
  /** Absolute http(s) links of the whole page (for crawling), fragment removed. */
  links: string[];
}

export interface HtmlReadLimits extends HtmlLimits {
  /**
   * Readability walks the tree many times over; past these sizes its cost grows into seconds while what
   * it removes matters less than on an article page, so the whole body is written out instead.
   */
  readabilityMaxElements: number;
  readabilityMaxDepth: number;
}

export const HTML_READ_LIMITS: Readonly<HtmlReadLimits> = Object.freeze({ ...HTML_LIMITS, readabilityMaxElements: 8_000, readabilityMaxDepth: 128 });

const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'iframe', 'nav', 'form', 'button', 'select']);
const BLOCK = new Set(['p', 'div', 'section', 'article', 'main', 'header', 'footer', 'aside', 'blockquote', 'figure', 'figcaption', 'dl', 'dt', 'dd', 'address', 'details', 'summary']);

type Node = { nodeType: number; nodeName: string; textContent: string | null; childNodes: ArrayLike<Node>; getAttribute?(n: string): string | null };

/** Throws DocumentTooLargeError (html-prescan.ts) for documents past `limits`. */
export function parseHtml(raw: string, baseUrl?: string, limits: HtmlReadLimits = HTML_READ_LIMITS): ParsedHtml {
  const { html, elements, depth } = prescanHtml(raw, limits);
  const { document } = parseHTML(html);
  const links = collectLinks(document, baseUrl);
  const pageTitle = (document.querySelector('title')?.textContent ?? '').trim();
  let root: Node = document.body ?? document.documentElement;
  let title = pageTitle;
  if (elements <= limits.readabilityMaxElements && depth <= limits.readabilityMaxDepth) {
    try {
      // Readability changes the document it reads, so it gets its own copy.
      const article = new Readability(parseHTML(html).document as unknown as Document, { charThreshold: 200 }).parse();
      if (article?.content && (article.textContent ?? '').trim().length >= 80) {
        root = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`).document.body as unknown as Node;
        title = (article.title || pageTitle).trim();
      }
    } catch { /* malformed pages fall back to the whole body */ }
  }
  const h1 = document.querySelector('h1')?.textContent?.trim();
  return { title: title || h1 || '', markdown: tidy(render(root)), links };
}

function collectLinks(document: { querySelectorAll(s: string): ArrayLike<{ getAttribute(n: string): string | null }> }, baseUrl?: string): string[] {
  const out = new Set<string>();
  for (const a of Array.from(document.querySelectorAll('a[href]'))) {
    try {
      const u = new URL(a.getAttribute('href') ?? '', baseUrl);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') continue;
      u.hash = '';
      out.add(u.href);
    } catch { /* not a URL */ }
  }
  return [...out];
}

const inline = (s: string) => s.replace(/\s+/g, ' ');

function render(node: Node, listDepth = 0): string {
  if (node.nodeType === 3) return inline(node.textContent ?? '');
  if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return '';
  const tag = node.nodeName.toLowerCase();
  if (SKIP.has(tag)) return '';
  const kids = () => Array.from(node.childNodes).map((c) => render(c, listDepth)).join('');
  if (/^h[1-6]$/.test(tag)) return `\n\n${'#'.repeat(Number(tag[1]))} ${inline(node.textContent ?? '').trim()}\n\n`;
  if (tag === 'br') return '\n';
  if (tag === 'hr') return '\n\n';
  if (tag === 'pre') return `\n\n\`\`\`\n${(node.textContent ?? '').replace(/\n+$/, '')}\n\`\`\`\n\n`;
  if (tag === 'code') return '`' + inline(node.textContent ?? '') + '`';
  if (tag === 'ul' || tag === 'ol') {
    const items = Array.from(node.childNodes).filter((c) => c.nodeName.toLowerCase() === 'li');
    const lines = items.map((li, i) => {
      const marker = tag === 'ol' ? `${i + 1}.` : '-';
      const body = Array.from(li.childNodes).map((c) => render(c, listDepth + 1)).join('').trim().replace(/\n{2,}/g, '\n');
      return `${'  '.repeat(listDepth)}${marker} ${body}`;
    });
    return `\n${listDepth ? '' : '\n'}${lines.join('\n')}\n${listDepth ? '' : '\n'}`;
  }
  if (tag === 'table') return `\n\n${renderTable(node)}\n\n`;
  if (BLOCK.has(tag)) return `\n\n${kids()}\n\n`;
  return kids();
}

function renderTable(table: Node): string {
  const rows: string[][] = [];
  const walk = (n: Node) => {
    for (const c of Array.from(n.childNodes)) {
      const t = c.nodeName.toLowerCase();
      if (t === 'tr') rows.push(Array.from(c.childNodes).filter((x) => /^t[hd]$/i.test(x.nodeName)).map((x) => inline(x.textContent ?? '').trim().replace(/\|/g, '\\|')));
      else if (t === 'thead' || t === 'tbody' || t === 'tfoot') walk(c);
    }
  };
  walk(table);
  if (rows.length === 0) return '';
  const width = Math.max(...rows.map((r) => r.length));
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => r[i] ?? '').join(' | ')} |`;
  return [line(rows[0]), `| ${Array(width).fill('---').join(' | ')} |`, ...rows.slice(1).map(line)].join('\n');
}

/** Trims each line and keeps at most one blank line between blocks. */
function tidy(md: string): string {
  return md.split('\n').map((l) => l.replace(/[ \t]+$/, '').replace(/^[ \t]+(?=[^ \t\-\d])/, '')).join('\n').replace(/\n{3,}/g, '\n\n').trim();
}
