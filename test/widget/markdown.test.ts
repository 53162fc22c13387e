/**
 * Replies as Markdown (widget/src/chat/markdown-render.tsx, the chat-markdown.js bundle), checked on the element tree it builds: what is formatted,
 * that text never becomes markup, and that every prefix of a streamed reply renders without raw syntax.
 * The same rendering in Chromium, with hostile replies, is in markdown-browser.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { VNode } from 'preact';
import { Markdown, safeHref, settle } from '../../widget/src/chat/markdown-render.js';

/** The element tree as HTML-like text (text escaped), so tests can read what would be drawn. */
function html(node: unknown): string {
  if (node === null || node === undefined || typeof node === 'boolean') return '';
  if (Array.isArray(node)) return node.map(html).join('');
  if (typeof node === 'string' || typeof node === 'number') return String(node).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const v = node as VNode<any>;
  if (typeof v.type === 'function') return html((v.type as any)(v.props));
  const { children, ...props } = v.props;
  const attrs = Object.entries(props).filter(([, x]) => x !== undefined).map(([k, x]) => ` ${k}="${typeof x === 'object' ? JSON.stringify(x) : x}"`).join('');
  return `<${v.type}${attrs}>${html(children)}</${v.type}>`;
}
const md = (text: string, streaming = false) => html(Markdown({ text, streaming }));
/** Only the text a visitor reads. */
const shown = (text: string, streaming = false) => md(text, streaming).replace(/<[^>]*>/g, '');

test('paragraphs, emphasis, lists, code and line breaks become elements', () => {
  const out = md('Hello **world** and *you*.\nNext line.\n\n- one\n- two `x`\n\n1. first\n2. second\n\n```\nconst a = 1;\n```');
  assert.match(out, '<p>Hello <strong>world</strong> and <em>you</em>.<br></br>Next line.</p>');
  assert.match(out, '<ul><li>one</li><li>two <code dir="ltr">x</code></li></ul>');
  assert.match(out, '<ol start="1"><li>first</li><li>second</li></ol>');
  assert.match(out, '<pre tabIndex="0" dir="ltr"><code>const a = 1;</code></pre>');
});

test('links open in a new tab without access to the page, and only web, mail and phone addresses are links', () => {
  assert.match(md('See [the docs](https://example.com/a?b=1).'), '<a href="https://example.com/a?b=1" target="_blank" rel="noopener noreferrer">the docs</a>');
  assert.match(md('Write to <mailto:help@example.com>'), 'href="mailto:help@example.com"');
  for (const bad of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', ' javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:x', '//evil.example']) {
    const out = md(`[click](${bad})`);
    assert.not.match(out, '<a', `${bad} is not a link`);
    assert.match(out, 'click');
  }
  assert.is(safeHref('https://x.example'), 'https://x.example');
  assert.is(safeHref('javascript:x'), null);
});

test('tables are wrapped in a scrolling box the keyboard can reach', () => {
  const out = md('| Plan | Price |\n|---|--:|\n| Basic | 10 |\n| Pro | **20** |');
  assert.match(out, '<div class="tw" tabIndex="0" dir="auto"><table><thead><tr><th>Plan</th><th style="{&quot;textAlign&quot;:&quot;right&quot;}">'.replace(/&quot;/g, '"'));
  assert.match(out, '<td>Basic</td>');
  assert.match(out, '<strong>20</strong>');
});

test('HTML in a reply is shown as its characters and never becomes an element', () => {
  const hostile = [
    '<img src=x onerror="alert(1)">',
    '<script>alert(1)</script>',
    '<div onclick="x()">block</div>\n\nafter',
    '**<b>bold</b>**',
    '[<img src=x onerror=alert(1)>](https://ok.example)',
    '![pixel](https://tracker.example/p.gif)',
    '<a href="javascript:alert(1)">x</a>',
    '`<svg onload=alert(1)>`',
  ];
  for (const h of hostile) {
    const out = md(h);
    const tags = [...out.matchAll(/<([a-z]+)/g)].map((m) => m[1]);
    for (const tag of tags) assert.ok(['div', 'p', 'strong', 'em', 'a', 'code', 'pre', 'br'].includes(tag), `${h} made <${tag}>`);
    assert.not.match(out, /<(img|script|svg|b) /);
  }
  assert.match(shown('<img src=x onerror="alert(1)">'), '<img src=x onerror="alert(1)">'.replace(/</g, '&lt;').replace(/>/g, '&gt;'));
  // An image is a link to the picture, never loaded into the page.
  assert.match(md('![pixel](https://tracker.example/p.gif)'), '<a href="https://tracker.example/p.gif" target="_blank" rel="noopener noreferrer">pixel</a>');
});

const REPLY = [
  'Here is **what I found** about *your order* and `ORD-42`:',
  '',
  '- Shipped on **Monday**',
  '- See [tracking](https://track.example/42) for ~~old~~ details',
  '',
  '| Item | Qty |',
  '|------|-----|',
  '| Widget | 2 |',
  '',
  '```',
  'npm install **not bold**',
  '```',
  '',
  'Anything **else**?',
].join('\n');

test('every prefix of a streamed reply renders without raw Markdown syntax', () => {
  // The code block's own text may hold asterisks: that is code, shown as written.
  const prose = (text: string, streaming: boolean) => md(text, streaming).replace(/<pre.*?<\/pre>/gs, '').replace(/<[^>]*>/g, '');
  assert.not.match(prose(REPLY, false), /\*|~~|\]\(|\||`|\[/);
  assert.match(md(REPLY), '<pre tabIndex="0" dir="ltr"><code>npm install **not bold**</code></pre>');
  for (let i = 1; i <= REPLY.length; i++) {
    const outside = prose(REPLY.slice(0, i), true);
    assert.not.match(outside, /\*|~~|\]\(|\||`|\[/, `prefix ${i} (${JSON.stringify(REPLY.slice(Math.max(0, i - 20), i))}) shows ${JSON.stringify(outside.slice(-60))}`);
  }
});

test('a streamed prefix settles to the same Markdown the finished reply has', () => {
  assert.is(settle('Some **bol'), 'Some **bol**');
  assert.is(settle('Say `np'), 'Say `np`');
  assert.is(settle('Go to [the pa'), 'Go to');
  assert.is(settle('Go to [the page](https://exa'), 'Go to');
  assert.is(settle('Text\n\n| a | b |'), 'Text');
  assert.is(settle('```js\nlet a'), '```js\nlet a\n```');
  assert.is(settle('- a\n- '), '- a');
  assert.is(settle('snake_case stays'), 'snake_case stays');
});

test('plain text skips the lexer and draws the same paragraphs and line breaks', async () => {
  const { Lexer } = await import('marked');
  const original = Lexer.lex;
  let calls = 0;
  (Lexer as any).lex = (...a: Parameters<typeof Lexer.lex>) => { calls++; return original(...a); };
  try {
    for (const text of ['Hi! I am Ava. How can I help?', 'First line\nsecond line.\n\nNew paragraph, 42 items (really).']) {
      const fast = md(text);
      assert.is(calls, 0);
      assert.is(fast, html(Markdown({ text: `${text}\n\n**x**` })).replace('<p><strong>x</strong></p>', ''));
      calls = 0;
    }
    md('1. a list');
    md('a [link](https://x.example)');
    md('mail me@example.com');
    assert.is(calls, 3);
  } finally {
    (Lexer as any).lex = original;
  }
});

test.run();
