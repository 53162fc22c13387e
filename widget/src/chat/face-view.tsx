/**
 * The face in the chat window (appearance.face; docs/faces.md). Loads face.js (a file of its own, next to
 * chat.js) when a face is first drawn and feeds it: the mood (face.defaultMood, then face frames), the level of
 * any audio the widget plays (spoken replies, voice) for lip sync, a silent mime while a typed reply streams
 * (textReplies mime, or speak before sound is allowed), the offline state, and prefers-reduced-motion.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { FaceHandle, FaceOptions } from '../face.js';
import type { Core } from '../types.js';
import type { State } from './session.js';
import type { SpeakLink } from './speak-link.js';
import type { T } from './strings.js';
import type { VoiceLink } from './voice-link.js';

type FaceModule = typeof import('../face.js');
/** The build names face.js with a content hash (esbuild define); absent, the plain name. */
declare const __FACE_FILE__: string | undefined;
let module: Promise<FaceModule> | null = null;

export function faceModule(): Promise<FaceModule> {
  const url = new URL(typeof __FACE_FILE__ == 'string' ? __FACE_FILE__ : 'face.js', import.meta.url).href;
  return module ??= (import(/* @vite-ignore */ url) as Promise<FaceModule>).catch((err) => { module = null; throw err; });
}

/** The bot has a face (face.skin not null). */
export const hasFace = (core: Core): boolean => !!core.cfg.face?.skin;

const reduced = () => !!window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;

export function Face({ core, st, sp, v, cls, open }: { core: Core; st: State; sp: SpeakLink | null; v: VoiceLink | null; cls: string; open: boolean }) {
  const el = useRef<HTMLDivElement>(null);
  const [face, setFace] = useState<FaceHandle | null>(null);
  const cfg = core.cfg;
  useEffect(() => {
    let handle: FaceHandle | null = null;
    let gone = false;
    const f = cfg.face!;
    const opts: FaceOptions = { skin: f.skin!, config: f.config, accent: cfg.appearance.theme.accent, mood: f.defaultMood, base: core.base, still: reduced() };
    faceModule().then((m) => {
      if (gone || !el.current) return;
      handle = m.createFace(el.current, opts);
      (el.current as any).face = handle;
      setFace(handle);
    }).catch((err) => console.error('ServiceChat: could not load the face', err));
    const mq = window.matchMedia?.('(prefers-reduced-motion: reduce)');
    const onMq = () => handle?.setStill(reduced());
    mq?.addEventListener?.('change', onMq);
    const offs = [
      sp?.onLevel((l) => handle?.setLevel(l)),
      v?.onLevel((kind, l) => { if (kind === 'output') handle?.setLevel(l); }),
    ];
    return () => { gone = true; offs.forEach((off) => off?.()); mq?.removeEventListener?.('change', onMq); handle?.destroy(); };
  }, [core]);
  const textReplies = cfg.appearance.face?.textReplies ?? 'mime';
  const streaming = st.messages.some((m) => m.streaming && m.role === 'assistant' && m.modality !== 'voice');
  const miming = streaming && textReplies !== 'still' && !sp?.playing;
  useEffect(() => { face?.setMiming(miming); }, [face, miming]);
  useEffect(() => { if (face && st.mood) face.setMood(st.mood); }, [face, st.mood, st.moodAt]);
  useEffect(() => { face?.setOffline(!!cfg.offline); }, [face, cfg.offline]);
  // A closed window's face costs nothing: no drawing, no timers (a face.js from before setPaused keeps going).
  useEffect(() => { face?.setPaused?.(!open); }, [face, open]);
  return <div class={`fc ${cls}`} ref={el} aria-hidden="true" />;
}

const FACE_ICON = <svg viewBox="0 0 24 24" width="18" height="18" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" aria-hidden="true"><circle cx="12" cy="12" r="9" /><path d="M8.5 14.5q3.5 3 7 0M9 9.5v.5M15 9.5v.5" /></svg>;

/** The header button that shows or hides the face (appearance.face.show sets the start; the visitor's choice is remembered per bot). */
export function useFaceShown(core: Core): [boolean, () => void] {
  const key = `sc:face:${core.botId}`;
  const [shown, setShown] = useState(() => {
    let stored: string | null = null;
    try { stored = localStorage.getItem(key); } catch { /* private mode */ }
    return stored === null ? core.cfg.appearance.face?.show !== false : stored === '1';
  });
  const toggle = () => setShown((s) => { try { localStorage.setItem(key, s ? '0' : '1'); } catch { /* not remembered */ } return !s; });
  return [shown, toggle];
}

export function FaceButton({ shown, onToggle, t }: { shown: boolean; onToggle(): void; t: T }) {
  const label = t(shown ? 'face.hide' : 'face.show');
  return <button class="ib facebtn" aria-pressed={shown} aria-label={label} title={label} onClick={onToggle}>{FACE_ICON}</button>;
}
