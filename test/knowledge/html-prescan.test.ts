import fc from 'fast-check';
import { parseHTML } from 'linkedom';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DocumentTooLargeError, HTML_LIMITS, prescanHtml } from '../../src/documents/html-prescan.js';
import { parseHtml } from '../../src/documents/html.js';
import { nestedDivs } from '../workers/hostile-html.js';

type El = { children: ArrayLike<El> };
/** Deepest element nesting of what linkedom builds, walked without recursion. */
function domDepth(html: string): number {
  const { document } = parseHTML(html);
  let max = 0;
  const todo: Array<[El, number]> = Array.from(document.children as ArrayLike<El>, (c) => [c, 1]);
  while (todo.length) {
    const [el, d] = todo.pop()!;
    max = Math.max(max, d);
    for (const c of Array.from(el.children)) todo.push([c, d + 1]);
  }
  return max;
}
const limits = (over: Partial<typeof HTML_LIMITS>) => ({ ...HTML_LIMITS, ...over });

test('scripts, styles, comments, SVG and images go; text, links and structure stay', () => {
  const out = prescanHtml(`<!doctype html><html><head><title>Hours</title><style>p { color: red }</style></head><body>
    <script>document.write("</div><div>")</script><!-- a <div> in a comment -->
    <svg><g><path d="M0 0"/></g></svg><img src="data:image/png;base64,AAAA">
    <h1>Opening hours</h1><p>Open at <a href="/nine">nine</a>.<noscript><p>Enable scripts</p></noscript></p></body></html>`);
  assert.not.match(out.html, /script|style|svg|path|img|comment|noscript|Enable/i);
  assert.match(out.html, '<title>Hours</title>');
  assert.match(out.html, '<h1>Opening hours</h1><p>Open at <a href="/nine">nine</a>.</p>');
  assert.is(out.flattened, 0);
});

test('tags nested past the limit are dropped, their text kept, and the parser never nests deeper', () => {
  const out = prescanHtml(nestedDivs(5000), limits({ maxDepth: 256 }));
  assert.is(out.depth, 256);
  assert.is(out.flattened, 5000 + 3 - 256);
  assert.match(out.html, 'The nested page says the greenhouse opens at nine.');
  assert.is(domDepth(out.html), 256);
  assert.ok(parseHtml(nestedDivs(5000)).markdown.includes('opens at nine'));
});

test('paragraphs, list items and cells the page never closes do not count as nesting', () => {
  const html = `<html><body><ul>${'<li>item '.repeat(400)}</ul>${'<p>para '.repeat(400)}<table>${'<tr><td>a<td>b'.repeat(400)}</table></body></html>`;
  const out = prescanHtml(html, limits({ maxDepth: 10 }));
  assert.is(out.flattened, 0);
  assert.is(out.html, html);
  assert.ok(domDepth(html) <= 10);
});

test('a million nested tags are scanned in seconds, linear in the length', () => {
  const started = performance.now();
  const out = prescanHtml(nestedDivs(1_000_000), limits({ maxChars: 20 * 1024 * 1024 }));
  const ms = performance.now() - started;
  console.log(`  ${(nestedDivs(1_000_000).length / 1024 / 1024).toFixed(1)} MB of nested divs scanned in ${ms.toFixed(0)} ms`);
  assert.is(out.depth, 256);
  assert.ok(ms < 10_000, `took ${ms} ms`);
});

test('documents past the size or element limits are refused with what to do', () => {
  const tooLong = () => prescanHtml(`<pre>${'x'.repeat(3 * 1024 * 1024)}</pre>`);
  assert.throws(tooLong, (e: Error) => e instanceof DocumentTooLargeError && /more than 2\.0 MB is left.*split it into smaller files, or upload it as Markdown or plain text/.test(e.message));
  const tooMany = () => prescanHtml('<i>a</i>'.repeat(101_000));
  assert.throws(tooMany, (e: Error) => e instanceof DocumentTooLargeError && /more than 100,000 elements/.test(e.message));
});

test('whatever the tag soup, the DOM built from the scan is no deeper than the limit', () => {
  const tags = ['div', 'p', 'li', 'ul', 'span', 'td', 'tr', 'table', 'b', 'option', 'select', 'h1', 'dd', 'dt', 'section', 'tbody'];
  const token = fc.oneof(
    fc.constantFrom(...tags).map((t) => `<${t}>`),
    fc.constantFrom(...tags).map((t) => `</${t}>`),
    fc.constantFrom('text ', '<br>', '</br>', '<img src=x>', '<!-- c -->', '<script>"</div>"</script>', '<svg><g></svg>', '<a href="/x>y">', '</a>',
      '<div/>', '<DIV class=\'a\'>', '</Div >', '<textarea><b></textarea>', '<title>t</title>', '<noscript><div>', '</noscript>', '< div>', '</ div>', '<!doctype html>'),
  );
  fc.assert(fc.property(fc.array(token, { maxLength: 300 }), fc.integer({ min: 1, max: 12 }), (tokens, maxDepth) => {
    const out = prescanHtml(tokens.join(''), limits({ maxDepth }));
    const depth = domDepth(out.html);
    return depth <= maxDepth && out.depth <= maxDepth;
  }), { numRuns: 500 });
});

test.run();
