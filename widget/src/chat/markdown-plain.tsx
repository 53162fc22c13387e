/**
 * Text without Markdown syntax: paragraphs and line breaks only, drawn without the lexer (which lives in a bundle
 * of its own, chat-markdown.js, and whose first run compiles many expressions: slow on a slow phone). Shared by
 * chat.js and chat-markdown.js, so both draw plain text the same way.
 */
import type { VNode } from 'preact';

/** Characters that can start Markdown syntax (or an autolink). */
const SYNTAX = /[*_`~#[\]|<>&\\]|^ {0,3}([-+=]|\d+[.)])|^ {4}|:\/\/|www\.|@/m;

export const isPlain = (text: string): boolean => !SYNTAX.test(text);

export function Plain({ text }: { text: string }): VNode {
  const paras = text.trim().split(/\n\s*\n/).filter(Boolean);
  return <div class="md" dir="auto">{paras.map((p) => <p>{p.split('\n').flatMap((line, i) => (i ? [<br />, line] : [line]))}</p>)}</div>;
}
