/**
 * Replies as Markdown in the chat window. Text without Markdown syntax (most welcomes, many replies) is drawn here;
 * the lexer and renderer are a bundle of their own (chat-markdown.js: chat/markdown-render.tsx), kept off the
 * bytes that opening the chat costs. It is fetched when the visitor starts typing (so it is there before the first
 * reply streams) or when a text with syntax is first drawn (a welcome, a restored conversation); until it arrives
 * such a text shows as plain paragraphs, the same characters.
 */
import type { VNode } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Fragment, jsx, jsxs } from 'preact/jsx-runtime';
import { isPlain, Plain } from './markdown-plain.js';

type Renderer = typeof import('../parts/markdown.js');
let renderer: Renderer | null = null;
let loading: Promise<void> | null = null;
const waiting = new Set<() => void>();

/** Fetches the lexer's bundle once (again after a failure); every Markdown waiting for it is drawn again. */
export function loadMarkdown(): Promise<void> {
  const url = new URL(typeof __MARKDOWN_FILE__ == 'string' ? __MARKDOWN_FILE__ : 'chat-markdown.js', import.meta.url).href;
  return loading ??= (import(/* @vite-ignore */ url) as Promise<Renderer>).then((m) => {
    m.bind({ useState, useEffect, useRef, jsx, jsxs, Fragment });
    renderer = m;
    for (const redraw of waiting) redraw();
  }, (err: Error) => {
    loading = null;
    console.warn('ServiceChat: the Markdown renderer could not be loaded; replies show as plain text:', err.message);
  });
}

/** The text's Markdown as elements (streaming: the text so far). */
export function Markdown({ text, streaming }: { text: string; streaming?: boolean }): VNode {
  const [, redraw] = useState(0);
  const plain = isPlain(text);
  useEffect(() => {
    if (plain || renderer) return;
    const again = () => redraw((n) => n + 1);
    waiting.add(again);
    void loadMarkdown();
    return () => { waiting.delete(again); };
  }, [plain]);
  return renderer && !plain ? <renderer.Markdown text={text} streaming={streaming} /> : <Plain text={text} />;
}
