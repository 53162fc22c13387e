/** chat-markdown.js: the Markdown lexer and renderer, loaded when a text with Markdown syntax is first drawn. */
export { bind } from '../chat/preact-bridge.js';
export { Markdown } from '../chat/markdown-render.js';
