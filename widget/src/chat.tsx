/**
 * The chat UI, loaded by the loader on first open (or at once for the inline layout). mount() draws the
 * window into the loader's shadow root and returns the handle the loader drives.
 */
import { render } from 'preact';
import { Session } from './chat/session.js';
import { translator } from './chat/strings.js';
import { chatCss } from './chat/styles.js';
import { App } from './chat/view.js';
import { VoiceLink } from './chat/voice-link.js';
import { SpeakLink } from './chat/speak-link.js';
import type { ChatHandle, Core } from './types.js';

export function mount(core: Core): ChatHandle {
  const style = document.createElement('style');
  style.textContent = chatCss(core.cfg.appearance);
  const box = document.createElement('div');
  // Inline fills the target element; the other layouts position themselves (fixed).
  if (core.cfg.appearance.layout === 'inline') box.style.cssText = 'height:100%';
  core.root.append(style, box);
  // The language's strings (src/i18n.ts), then the bot's own texts.strings over them.
  const t = translator({ ...core.strings, ...(core.cfg.texts.strings ?? {}) });
  box.lang = core.lang;
  box.dir = core.dir;
  let session = new Session(core);
  let voice = new VoiceLink(core, session, t);
  let speak = new SpeakLink(core, session);
  // Browsers allow sound after a click or key in the page: the first one in the chat unlocks spoken replies.
  const gesture = () => speak.gesture();
  box.addEventListener('pointerdown', gesture, true);
  box.addEventListener('keydown', gesture, true);
  let open = core.cfg.appearance.layout === 'inline';
  const draw = () => render(<App core={core} s={session} v={voice} sp={speak} t={t} open={open} />, box);
  draw();
  return {
    setOpen(v) { open = v; draw(); },
    identityChanged() {
      // A new identity is a different visitor: a fresh session, drawn from scratch.
      voice.destroy();
      speak.destroy();
      session.destroy();
      render(null, box);
      session = new Session(core);
      voice = new VoiceLink(core, session, t);
      speak = new SpeakLink(core, session);
      draw();
    },
    toolsChanged() { session.announceTools(); },
    startVoice(opts) { voice.start(opts); },
    stopVoice() { voice.stop(); },
    destroy() { voice.destroy(); speak.destroy(); session.destroy(); render(null, box); box.remove(); style.remove(); },
  };
}
