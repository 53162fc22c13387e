/**
 * Voice in the chat window: the microphone button (composer, or alone in a floating window without one)
 * and the voice bar shown while a session runs: its state in words (announced), a level meter (a static
 * dot under prefers-reduced-motion), mute, end, and in push-to-talk a hold-to-talk button (or Space).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { VoiceSnapshot } from '../voice.js';
import type { T } from './strings.js';
import type { VoiceLink } from './voice-link.js';

const icon = (d: string, size = 18) => <svg viewBox="0 0 24 24" width={size} height={size} fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d={d} /></svg>;
// Functions, not constants: this file is in chat-voice.js, whose preact is handed in after it is evaluated.
const MIC = () => icon('M12 3a3 3 0 0 1 3 3v6a3 3 0 0 1-6 0V6a3 3 0 0 1 3-3zM5 11a7 7 0 0 0 14 0M12 18v3');
const MIC_OFF = () => icon('M3 3l18 18M9 9v3a3 3 0 0 0 5 2.2M15 9.3V6a3 3 0 0 0-5.7-1.3M5 11a7 7 0 0 0 11.5 5.4M19 11a7 7 0 0 1-.6 2.8M12 18v3');
const HANG_UP = () => <svg viewBox="0 0 24 24" width="18" height="18" fill="currentColor" aria-hidden="true"><path d="M12 9c-3.2 0-6.2.9-8.6 2.6a1.6 1.6 0 0 0-.6 1.9l.8 2a1.3 1.3 0 0 0 1.6.7l3-1a1.3 1.3 0 0 0 .8-1.1l.2-1.6a10.3 10.3 0 0 1 5.6 0l.2 1.6a1.3 1.3 0 0 0 .8 1.1l3 1a1.3 1.3 0 0 0 1.6-.7l.8-2a1.6 1.6 0 0 0-.6-1.9A14.9 14.9 0 0 0 12 9z" /></svg>;

export function useVoice(v: VoiceLink): VoiceSnapshot | null {
  const [view, setView] = useState(v.view);
  useEffect(() => v.subscribe(() => setView(v.view)), [v]);
  return view;
}

export function MicButton({ t, onStart, solo }: { t: T; onStart(): void; solo?: boolean }) {
  return solo
    ? <button class="btn mic solo" onClick={onStart}>{MIC()}<span>{t('voice.start')}</span></button>
    : <button class="ib mic" aria-label={t('voice.start')} title={t('voice.start')} onClick={onStart}>{MIC()}</button>;
}

/** What the bar says: the session's state, with what the visitor hears first. */
function shown(s: VoiceSnapshot): string {
  if (s.state === 'starting' || s.state === 'connecting' || s.state === 'ended') return s.state === 'ended' ? 'ended' : 'connecting';
  if (s.playing || s.state === 'speaking') return 'speaking';
  if (s.state === 'thinking') return 'thinking';
  if (s.muted) return 'muted';
  return s.mode === 'ptt' && !s.talking ? 'ptt' : 'listening';
}

const WEIGHTS = [0.55, 0.8, 1, 0.8, 0.55];

export function VoiceBar({ v, s, t }: { v: VoiceLink; s: VoiceSnapshot; t: T }) {
  const meter = useRef<HTMLSpanElement>(null);
  const first = useRef<HTMLButtonElement>(null);
  const playing = useRef(s.playing);
  playing.current = s.playing;
  const state = shown(s);
  const live = s.state !== 'ended';
  const ptt = s.mode === 'ptt';

  useEffect(() => {
    // Moves focus into the bar when it appears (the microphone button that started it is gone).
    first.current?.focus();
    if (window.matchMedia?.('(prefers-reduced-motion: reduce)').matches) return;
    const levels = { input: 0, output: 0 };
    return v.onLevel((kind, level) => {
      levels[kind] = level;
      const l = playing.current ? levels.output : levels.input;
      const bars = meter.current?.children;
      if (bars) for (let i = 0; i < bars.length; i++) (bars[i] as HTMLElement).style.transform = `scaleY(${Math.max(0.15, l * WEIGHTS[i])})`;
    });
  }, [v]);

  const hold = (down: boolean) => (e: PointerEvent) => {
    e.preventDefault();
    // Captured, so sliding off the button while holding does not end the turn; lifting the finger does.
    if (down) try { (e.currentTarget as Element).setPointerCapture(e.pointerId); } catch { /* a synthetic event: no pointer to capture */ }
    v.ptt(down);
  };
  const space = (down: boolean) => (e: KeyboardEvent) => {
    // Space on the bar or the talk button is push-to-talk; on Mute or End it presses that button.
    if (!ptt || e.key !== ' ' || (e.target as Element).closest('.vm,.ve')) return;
    e.preventDefault();
    if (!e.repeat) v.ptt(down);
  };
  return (
    <div class={`vb ${state}`} data-playing={s.playing} role="group" aria-label={t('voice.bar')} tabIndex={-1} onKeyDown={space(true)} onKeyUp={space(false)}>
      {/* The state as a coloured light, not a microphone: the mute or talk button beside it is the microphone. */}
      <span class="vi" aria-hidden="true" />
      <span class="vs" role="status" aria-live="polite">{t(`voice.state.${state}` as 'voice.state.listening')}</span>
      <span class="lv" ref={meter} aria-hidden="true">{WEIGHTS.map(() => <i />)}</span>
      {live && ptt ? (
        <button ref={first} class={`talk${s.talking ? ' on' : ''}`} aria-pressed={s.talking} aria-label={t('voice.talk')} title={t('voice.talk')}
          onPointerDown={hold(true)} onPointerUp={hold(false)} onPointerCancel={hold(false)}
          onContextMenu={(e) => e.preventDefault()}>{MIC()}</button>
      ) : null}
      {live && !ptt ? (
        <button ref={first} class={`ib vm${s.muted ? ' on' : ''}`} aria-pressed={s.muted} aria-label={t('voice.mute')}
          title={t(s.muted ? 'voice.unmute' : 'voice.mute')} onClick={() => v.mute(!s.muted)}>{s.muted ? MIC_OFF() : MIC()}</button>
      ) : null}
      {live ? <button class="ib ve" aria-label={t('voice.end')} title={t('voice.end')} onClick={() => v.stop()}>{HANG_UP()}</button> : null}
    </div>
  );
}
