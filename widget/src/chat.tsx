/**
 * The chat UI, loaded by the loader on first open (or at once for the inline layout). mount() draws the
 * window into the loader's shadow root and returns the handle the loader drives. The optional parts (voice UI,
 * spoken replies, camera: widget/src/parts/) are bundles of their own, which the loader fetches beside this one
 * only when the bot's config turns them on, and hands to mount(); they draw with this bundle's preact (bind).
 */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Fragment, jsx, jsxs } from 'preact/jsx-runtime';
import { Session } from './chat/session.js';
import { translator } from './chat/strings.js';
import { chatCss } from './chat/styles.js';
import { App, type Parts } from './chat/view.js';
import type { ChatHandle, Core } from './types.js';

export type { Parts };

export function mount(core: Core, given?: Parts): ChatHandle {
  const cfg = core.cfg;
  // The parts this bot's config turns on (the loader decides the same way which to fetch).
  const wanted = { voice: cfg.voice?.enabled, speak: cfg.appearance.face?.textReplies === 'speak', camera: cfg.webcam?.enabled };
  const parts: Parts = {};
  let gone = false;
  const use = (loaded: Parts) => {
    for (const [k, on] of Object.entries(wanted) as Array<[keyof Parts, boolean]>) if (on && loaded[k]) {
      loaded[k]!.bind({ useState, useEffect, useRef, jsx, jsxs, Fragment });
      parts[k] = loaded[k] as any;
    }
  };
  use(given ?? {});
  // A loader from before the parts were split off (cached before a deploy) gives none: they are loaded here, by
  // their plain names, and the window is drawn again with them.
  if (!given) {
    void Promise.all(Object.entries(wanted).filter(([, on]) => on).map(([k]) => import(/* @vite-ignore */ new URL(`chat-${k}.js`, import.meta.url).href).then((m) => [k, m], () => [k, null])))
      .then((ps) => {
        if (gone) return;
        use(Object.fromEntries(ps));
        unlink(false);
        style.textContent = chatCss(cfg.appearance, parts.voice?.voiceCss);
        [voice, speak] = links();
        // Drawn from scratch: the parts bring hooks of their own.
        render(null, box);
        draw();
      });
  }
  const style = document.createElement('style');
  style.textContent = chatCss(cfg.appearance, parts.voice?.voiceCss);
  const box = document.createElement('div');
  // Inline fills the target element; the other layouts position themselves (fixed).
  if (cfg.appearance.layout === 'inline') box.style.cssText = 'height:100%';
  core.root.append(style, box);
  // The language's strings (src/i18n.ts), then the bot's own texts.strings over them.
  const t = translator(core.strings, cfg.texts.strings ?? {}, core.lang);
  box.lang = core.lang;
  box.dir = core.dir;
  let session = new Session(core);
  const links = () => [parts.voice ? new parts.voice.VoiceLink(core, session, t) : null, parts.speak ? new parts.speak.SpeakLink(core, session) : null] as const;
  let [voice, speak] = links();
  // Browsers allow sound after a click or key in the page: the first one in the chat unlocks spoken replies.
  const gesture = () => speak?.gesture();
  box.addEventListener('pointerdown', gesture, true);
  box.addEventListener('keydown', gesture, true);
  let open = cfg.appearance.layout === 'inline';
  const draw = () => render(<App core={core} s={session} v={voice} sp={speak} parts={parts} t={t} open={open} />, box);
  const unlink = (all = true) => { voice?.destroy(); speak?.destroy(); if (all) session.destroy(); };
  draw();
  return {
    setOpen(v) { open = v; draw(); },
    identityChanged() {
      // A new identity is a different visitor: a fresh session, drawn from scratch.
      unlink();
      render(null, box);
      session = new Session(core);
      [voice, speak] = links();
      draw();
    },
    toolsChanged() { session.announceTools(); },
    // Without the voice part: voice is off for this bot, or its bundle could not be loaded.
    startVoice(opts) { if (voice) voice.start(opts); else core.emit('voice', { state: 'ended', reason: cfg.voice?.enabled ? 'load_failed' : 'disabled' }); },
    stopVoice() { voice?.stop(); },
    destroy() { gone = true; unlink(); render(null, box); box.remove(); style.remove(); },
  };
}
