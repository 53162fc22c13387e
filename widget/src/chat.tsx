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

export function mount(core: Core, loaded: Parts = {}): ChatHandle {
  const cfg = core.cfg;
  for (const p of [loaded.voice, loaded.speak, loaded.camera]) p?.bind({ useState, useEffect, useRef, jsx, jsxs, Fragment });
  // A part is used only while the config asks for it (a re-boot may bring another bot's config).
  const parts: Parts = {
    voice: cfg.voice?.enabled ? loaded.voice : null,
    speak: loaded.speak?.speaksReplies(core) ? loaded.speak : null,
    camera: cfg.webcam?.enabled ? loaded.camera : null,
  };
  const style = document.createElement('style');
  style.textContent = chatCss(cfg.appearance, parts.voice?.voiceCss);
  const box = document.createElement('div');
  // Inline fills the target element; the other layouts position themselves (fixed).
  if (cfg.appearance.layout === 'inline') box.style.cssText = 'height:100%';
  core.root.append(style, box);
  // The language's strings (src/i18n.ts), then the bot's own texts.strings over them.
  const t = translator({ ...core.strings, ...(cfg.texts.strings ?? {}) });
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
  const unlink = () => { voice?.destroy(); speak?.destroy(); session.destroy(); };
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
    destroy() { unlink(); render(null, box); box.remove(); style.remove(); },
  };
}
