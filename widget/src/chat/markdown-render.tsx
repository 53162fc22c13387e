/**
 * Replies as Markdown, the lexer's half: a bundle of its own (chat-markdown.js, widget/src/parts/markdown.ts),
 * fetched only when a text with Markdown syntax is first drawn or the visitor starts typing (chat/markdown.tsx).
 * marked's lexer turns the text into tokens and this file builds Preact elements from them, so text always stays
 * text: HTML in a reply is shown as the characters it is (never parsed as markup), and a link is made only for
 * http(s), mailto and tel addresses. While a reply streams in, settle() completes or holds back what is half
 * received, so the visitor never sees raw syntax flicker into formatting.
 */
import type { ComponentChildren, VNode } from 'preact';
import { Lexer, type Token, type Tokens } from 'marked';
import { isPlain, Plain } from './markdown-plain.js';

const SAFE_URL = /^(https?:|mailto:|tel:)/i;

/** The address a link may open, or null: relative and scheme-less addresses and other schemes are not links. */
export function safeHref(href: string): string | null {
  const h = href.trim();
  return SAFE_URL.test(h) ? h : null;
}

/**
 * Streaming: the text so far, made safe to render. An open code fence is closed (the code shows as code), a table
 * whose divider row has not come yet and a half-written link are held back, and open ** * ~~ ` in the last
 * paragraph are closed, so a prefix renders as the finished reply will (only shorter).
 */
export function settle(text: string): string {
  const fences = text.match(/^ {0,3}(```|~~~)/gm)?.length ?? 0;
  if (fences % 2) return `${text}\n\`\`\``;
  const para = text.lastIndexOf('\n\n');
  const cut = para < 0 ? 0 : para + 2;
  const head = text.slice(0, cut);
  let last = text.slice(cut);
  // A table is a table only once its whole |---| row arrived.
  if (/^\s*\|/.test(last) && !/\n\s*\|?\s*:?-+:?\s*\|[^\n]*\n/.test(last)) return head.trimEnd();
  const lines = last.split('\n');
  let tail = lines.pop() ?? '';
  // Half a link: "[text", "[text]" or "[text](http..." until its closing parenthesis.
  tail = tail.replace(/!?\[[^\]]*(\](\([^)]*)?)?$/, '');
  // A lone marker at the very end may start a list, emphasis or code: wait for the next characters.
  tail = tail.replace(/[*_~`#|>-]+\s*$/, '').replace(/^\s*(\d+[.)])\s*$/, '');
  last = [...lines, tail].join('\n').trimEnd();
  // Count markers outside inline code, ignoring list bullets.
  const plain = last.replace(/^\s*[*+-]\s+/gm, '');
  const ticks = (plain.match(/`/g)?.length ?? 0) % 2;
  const bare = plain.replace(/`[^`]*`?/g, '');
  const strong = (bare.match(/\*\*/g)?.length ?? 0) % 2;
  const em = (bare.replace(/\*\*/g, '').match(/\*/g)?.length ?? 0) % 2;
  const del = (bare.match(/~~/g)?.length ?? 0) % 2;
  return head + last + (ticks ? '`' : '') + (em ? '*' : '') + (strong ? '**' : '') + (del ? '~~' : '');
}

const lex = (text: string) => Lexer.lex(text, { gfm: true, breaks: true });

/** The text's Markdown as elements (streaming: the text so far); text without Markdown syntax skips the lexer. */
export function Markdown({ text, streaming }: { text: string; streaming?: boolean }): VNode {
  if (isPlain(text)) return <Plain text={text} />;
  return <div class="md" dir="auto">{blocks(lex(streaming ? settle(text) : text))}</div>;
}

function blocks(tokens: Token[]): ComponentChildren[] {
  return tokens.map((tok) => block(tok));
}

function block(tok: Token): ComponentChildren {
  const t = tok as Tokens.Generic;
  switch (t.type) {
    case 'paragraph': return <p>{inline(t.tokens ?? [])}</p>;
    case 'heading': return <p class="h"><strong>{inline(t.tokens ?? [])}</strong></p>;
    // Code reads left to right in every language (an RTL window would mirror its brackets and indents).
    case 'code': return <pre tabIndex={0} dir="ltr"><code>{t.text}</code></pre>;
    case 'blockquote': return <blockquote>{blocks(t.tokens ?? [])}</blockquote>;
    case 'hr': return <hr />;
    case 'list': {
      const items = (t as Tokens.List).items.map((it) => (
        <li>{it.task ? (it.checked ? '☑ ' : '☐ ') : null}{it.tokens.map((c) => (c.type === 'text' ? inline((c as Tokens.Text).tokens ?? [c]) : c.type === 'checkbox' ? null : block(c)))}</li>
      ));
      return t.ordered ? <ol start={typeof t.start === 'number' ? t.start : undefined}>{items}</ol> : <ul>{items}</ul>;
    }
    case 'table': {
      const tb = t as Tokens.Table;
      const cell = (c: Tokens.TableCell, Tag: 'th' | 'td') => <Tag style={c.align ? { textAlign: c.align } : undefined}>{inline(c.tokens)}</Tag>;
      // The wrapper scrolls sideways; tabIndex lets a keyboard user scroll it.
      return (
        <div class="tw" tabIndex={0} dir="auto"><table>
          <thead><tr>{tb.header.map((c) => cell(c, 'th'))}</tr></thead>
          <tbody>{tb.rows.map((r) => <tr>{r.map((c) => cell(c, 'td'))}</tr>)}</tbody>
        </table></div>
      );
    }
    case 'space': case 'def': return null;
    // html and anything unknown: shown as the text it is.
    default: return <p>{t.tokens ? inline(t.tokens) : t.raw}</p>;
  }
}

function inline(tokens: Token[]): ComponentChildren[] {
  return tokens.map((tok) => {
    const t = tok as Tokens.Generic;
    switch (t.type) {
      case 'strong': return <strong>{inline(t.tokens ?? [])}</strong>;
      case 'em': return <em>{inline(t.tokens ?? [])}</em>;
      case 'del': return <del>{inline(t.tokens ?? [])}</del>;
      case 'codespan': return <code dir="ltr">{t.text}</code>;
      case 'br': return <br />;
      case 'escape': return t.text;
      case 'link': case 'image': {
        // Images are links too: a reply cannot load pictures (or tracking pixels) into the page.
        const href = safeHref(t.href);
        const label = t.type === 'image' ? t.text || t.href : inline(t.tokens ?? []);
        return href ? <a href={href} target="_blank" rel="noopener noreferrer">{label}</a> : label;
      }
      case 'text': return t.tokens ? inline(t.tokens) : t.text;
      // html tags and anything unknown: their characters.
      default: return t.raw;
    }
  });
}

/**
 * The reply's words without Markdown syntax, on one line (a list preview): emphasis, links, code and headings give
 * their text, paragraphs, list items and table cells are separated by a space, images give their alt text.
 */
export function plainText(text: string): string {
  if (isPlain(text)) return text.replace(/\s+/g, ' ').trim();
  const BLOCK = new Set(['paragraph', 'heading', 'code', 'blockquote', 'space', 'hr', 'def']);
  const words = (tokens: Token[]): string => tokens.map((tok) => {
    const t = tok as Tokens.Generic;
    if (t.type === 'list') return ` ${(t as Tokens.List).items.map((it) => words(it.tokens)).join(' ')} `;
    if (t.type === 'table') { const tb = t as Tokens.Table; return ` ${[tb.header, ...tb.rows].flat().map((c) => words(c.tokens)).join(' ')} `; }
    if (t.type === 'checkbox' || t.type === 'def' || t.type === 'hr' || t.type === 'br') return ' ';
    const own = t.type === 'image' ? t.text || '' : t.tokens ? words(t.tokens) : typeof t.text === 'string' ? t.text : t.raw;
    return BLOCK.has(t.type) ? ` ${own} ` : own;
  }).join('');
  return words(lex(text)).replace(/\s+/g, ' ').trim();
}
