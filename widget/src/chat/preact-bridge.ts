/**
 * The optional chat parts (widget/src/parts/: voice UI, spoken replies, camera) are bundles of their own, loaded
 * only for bots that turn them on, and must draw with chat.js's preact: hooks keep their state in the copy that
 * renders. Their build points 'preact/hooks' and 'preact/jsx-runtime' at this file (scripts/build.mjs),
 * and chat.js hands its own functions in with bind() before anything is drawn. So nothing in
 * a part may call them while the part is evaluated (icons are made on first use, not at the top of a file).
 */
import type * as Hooks from 'preact/hooks';
import type * as Runtime from 'preact/jsx-runtime';

export interface Preact {
  useState: typeof Hooks.useState;
  useEffect: typeof Hooks.useEffect;
  useRef: typeof Hooks.useRef;
  jsx: typeof Runtime.jsx;
  jsxs: typeof Runtime.jsxs;
  Fragment: typeof Runtime.Fragment;
}

// Live bindings: the part's code reads them when it runs, after bind().
export let useState: Preact['useState'];
export let useEffect: Preact['useEffect'];
export let useRef: Preact['useRef'];
export let jsx: Preact['jsx'];
export let jsxs: Preact['jsxs'];
export let Fragment: Preact['Fragment'];

export function bind(p: Preact): void {
  ({ useState, useEffect, useRef, jsx, jsxs, Fragment } = p);
}
