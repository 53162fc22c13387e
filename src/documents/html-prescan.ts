/**
 * One linear pass over raw HTML before the DOM parser sees it. The parser (htmlparser2 under linkedom)
 * keeps its open elements in an array it shifts and unshifts, so 100,000 nested tags cost minutes, and
 * Readability's tree walks grow faster still with depth; the DOM costs ~100 bytes of heap per byte of
 * HTML. This pass removes what is never text (scripts, styles, comments, SVG, images), drops the tags
 * (not the text) of elements nested deeper than `maxDepth`, and refuses documents that stay too big,
 * so a hostile or bloated page costs one scan instead of a stalled worker.
 *
 * It follows htmlparser2's tree rules (void elements, the start tags that close an open one, end tags
 * that close up to their match), so the parser never nests deeper than this pass counted.
 */
export interface HtmlLimits {
  /** Bytes of HTML read at all; a bigger file is refused before it is decoded. */
  maxInputBytes: number;
  /** Elements nested deeper than this keep their text but lose their tags. */
  maxDepth: number;
  /** Characters of HTML left after cleaning; a document with more is refused. */
  maxChars: number;
  /** Elements left after cleaning; a document with more is refused. */
  maxElements: number;
}

export const HTML_LIMITS: Readonly<HtmlLimits> = Object.freeze({ maxInputBytes: 40 * 1024 * 1024, maxDepth: 256, maxChars: 2 * 1024 * 1024, maxElements: 100_000 });

export interface PrescannedHtml {
  html: string;
  /** Elements kept. */
  elements: number;
  /** Deepest nesting kept (at most maxDepth). */
  depth: number;
  /** Elements whose tags were dropped for being nested too deep. */
  flattened: number;
}

/** A document the limits refuse; the message says what to do and is shown on the knowledge source. */
export class DocumentTooLargeError extends Error {
  readonly code = 'document_too_large';
}

const VOID = new Set(['area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input', 'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
// Removed with everything inside: never text for the reader (html.ts skips them too).
const DROP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe']);
const DROP_VOID = new Set(['img', 'source', 'track', 'link', 'embed', 'area', 'param', 'input']);
// Their content is text up to the matching end tag, not markup.
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp']);

// htmlparser2's openImpliesClose: opening the key closes open elements of the set at the top of the stack.
const P = ['p'];
const FORM = ['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'];
const IMPLIES_CLOSE = new Map<string, Set<string>>(Object.entries({
  tr: ['tr', 'th', 'td'], th: ['th'], td: ['thead', 'th', 'td'], body: ['head', 'link', 'script'], li: ['li'],
  p: P, h1: P, h2: P, h3: P, h4: P, h5: P, h6: P, select: FORM, input: FORM, output: FORM, button: FORM, datalist: FORM, textarea: FORM,
  option: ['option'], optgroup: ['optgroup', 'option'], dd: ['dd', 'dt'], dt: ['dd', 'dt'], rt: ['rt', 'rp'], rp: ['rt', 'rp'],
  tbody: ['thead', 'tbody'], tfoot: ['thead', 'tbody'],
  ...Object.fromEntries(['address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'header', 'hr', 'main', 'nav', 'ol', 'pre', 'section', 'table', 'ul'].map((t) => [t, P])),
}).map(([k, v]) => [k, new Set(v)]));

interface Open { name: string; keepTag: boolean; keepContent: boolean }

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
export const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
export const ADVICE = 'split it into smaller files, or upload it as Markdown or plain text';

export function prescanHtml(src: string, limits: HtmlLimits = HTML_LIMITS): PrescannedHtml {
  const out: string[] = [];
  let outChars = 0;
  const stack: Open[] = [];
  const openCount = new Map<string, number>(); // open elements per name: end tags with no match skip the stack search
  let keptDepth = 0, depth = 0, elements = 0, flattened = 0;
  let i = 0, textFrom = 0;
  const content = () => stack.length === 0 || stack[stack.length - 1].keepContent;
  const emit = (from: number, to: number) => {
    if (to <= from) return;
    outChars += to - from;
    if (outChars > limits.maxChars) {
      throw new DocumentTooLargeError(`the HTML is ${mb(src.length)} and more than ${mb(limits.maxChars)} is left after removing scripts, styles and images (at most ${mb(limits.maxChars)} is read); ${ADVICE}`);
    }
    out.push(src.slice(from, to));
  };
  const flushText = (to: number) => { if (content()) emit(textFrom, to); };
  const pop = () => {
    const top = stack.pop()!;
    openCount.set(top.name, openCount.get(top.name)! - 1);
    if (top.keepTag) keptDepth--;
    return top;
  };
  const tagEnd = (from: number): number => {
    // The '>' that ends a start tag, skipping quoted attribute values; -1 when the document ends first.
    for (let j = from; j < src.length; j++) {
      const c = src.charCodeAt(j);
      if (c === 62) return j;
      if (c === 61) { // '=': a value follows, maybe quoted
        let k = j + 1;
        while (k < src.length && isSpace(src.charCodeAt(k))) k++;
        const q = src.charCodeAt(k);
        if (q === 34 || q === 39) { const close = src.indexOf(q === 34 ? '"' : "'", k + 1); if (close < 0) return -1; j = close; } else j = k - 1;
      }
    }
    return -1;
  };

  while (i < src.length) {
    const lt = src.indexOf('<', i);
    if (lt < 0) break;
    const c1 = src.charCodeAt(lt + 1);
    if (c1 === 33 || c1 === 63 || (c1 === 47 && !isLetter(src.charCodeAt(lt + 2)))) {
      // <!-- comment -->, <!doctype>, <?pi?>, </ bogus>: comments are dropped, declarations kept.
      const isComment = src.startsWith('<!--', lt);
      const end = isComment ? src.indexOf('-->', lt + 4) : src.indexOf('>', lt);
      const stop = end < 0 ? src.length : end + (isComment ? 3 : 1);
      flushText(lt);
      if (!isComment && content()) emit(lt, stop);
      i = textFrom = stop;
      continue;
    }
    const closing = c1 === 47;
    const nameFrom = lt + (closing ? 2 : 1);
    if (!isLetter(src.charCodeAt(nameFrom))) { i = lt + 1; continue; } // a '<' in text
    let nameTo = nameFrom;
    while (nameTo < src.length) { const c = src.charCodeAt(nameTo); if (isSpace(c) || c === 47 || c === 62) break; nameTo++; }
    const name = src.slice(nameFrom, nameTo).toLowerCase();
    const gt = closing ? src.indexOf('>', nameTo) : tagEnd(nameTo);
    flushText(lt);
    const stop = gt < 0 ? src.length : gt + 1;
    i = textFrom = stop;
    if (gt < 0) break; // an unterminated tag at the end: the parser drops it too

    if (closing) {
      if (VOID.has(name) || !openCount.get(name)) {
        // A stray </p> or </br> makes the parser add an empty element: kept only where one more level fits.
        if ((name === 'p' || name === 'br') && content() && keptDepth < limits.maxDepth) { elements++; emit(lt, stop); }
        continue;
      }
      let top: Open;
      do top = pop(); while (top.name !== name);
      if (top.keepTag) emit(lt, stop);
      continue;
    }

    const parentKeeps = content();
    const dropped = DROP.has(name) || DROP_VOID.has(name);
    // A tag the parser will not see closes nothing in its tree either.
    const implied = parentKeeps && dropped ? undefined : IMPLIES_CLOSE.get(name);
    if (implied) while (stack.length && implied.has(stack[stack.length - 1].name)) pop();
    const keepTag = parentKeeps && !dropped && keptDepth < limits.maxDepth;
    if (keepTag) {
      if (++elements > limits.maxElements) {
        throw new DocumentTooLargeError(`the HTML has more than ${limits.maxElements.toLocaleString('en')} elements after removing scripts, styles and images; ${ADVICE}`);
      }
      emit(lt, stop);
    } else if (parentKeeps && !dropped) flattened++;

    if (RAW_TEXT.has(name)) {
      // Text up to </name>; kept as one piece with its tags (title, textarea), or dropped (script, style).
      const re = new RegExp(`</${name}[\\s/>]`, 'ig');
      re.lastIndex = stop;
      const m = re.exec(src);
      const closeAt = m ? m.index : src.length;
      const closeEnd = m ? (src.indexOf('>', closeAt) + 1 || src.length) : src.length;
      if (keepTag) emit(stop, closeEnd);
      i = textFrom = closeEnd;
      continue;
    }
    if (VOID.has(name)) continue;
    stack.push({ name, keepTag, keepContent: parentKeeps && !DROP.has(name) });
    openCount.set(name, (openCount.get(name) ?? 0) + 1);
    if (keepTag && ++keptDepth > depth) depth = keptDepth;
  }
  flushText(src.length);
  return { html: out.join(''), elements, depth, flattened };
}
