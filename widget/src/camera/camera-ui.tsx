/**
 * The camera in the chat window (vision.webcam): a button beside the message box; a consent card with the bot's
 * consentText and privacy link shown before the browser's own permission prompt; a small live preview while the
 * camera runs. Frames go per_turn (the latest with each message), continuous (a live view during a voice session,
 * otherwise per_turn) or on_demand (when the agent asks with camera_request).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Session } from '../chat/session.js';
import type { T } from '../chat/strings.js';
import type { Core } from '../types.js';
import { Camera } from './capture.js';

// A function, not a constant: this file is in chat-camera.js, whose preact is handed in after it is evaluated.
const ICON = () => <svg viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true"><path d="M3 7h3l2-3h8l2 3h3v13H3z" /><circle cx="12" cy="13" r="4" /></svg>;
const CSS = `.cam.on{color:var(--accent)}
.camc a{color:inherit;font-size:13px;display:inline-block;margin:0 0 10px}
.campv{position:relative;margin:0 14px 8px;display:flex;align-items:center;gap:10px;font-size:12px;color:var(--muted)}
.campv video{width:96px;height:72px;object-fit:cover;border-radius:8px;background:#000;transform:scaleX(-1)}
.campv .rec{display:inline-block;width:8px;height:8px;border-radius:50%;background:#dc2626;margin-right:6px}
.campv button{margin-left:auto;white-space:nowrap}`;

export interface CameraUi {
  /** The camera button for the composer. */
  button: preact.JSX.Element;
  /** The consent card or the live preview, or nothing. */
  panel: preact.JSX.Element | null;
  /** Call just before a message is sent: the latest frame goes first (per_turn; continuous outside voice). */
  beforeSend(): void;
}

export function useCamera(core: Core, s: Session, t: T, voiceLive: boolean, open: boolean): CameraUi | null {
  const w = core.cfg.webcam;
  const [, redraw] = useState(0);
  const ref = useRef<Camera | null>(null);
  const slot = useRef<HTMLDivElement>(null);
  const on = w?.enabled && ref.current?.status === 'on';
  // The live preview is the camera's own video element, moved into the panel.
  useEffect(() => { if (on && ref.current && slot.current && !slot.current.contains(ref.current.video)) slot.current.append(ref.current.video); });
  useEffect(() => () => ref.current?.stop(), []);
  // Closing the chat window turns the camera off: it never runs where the visitor cannot see that it does.
  useEffect(() => {
    if (open || ref.current?.status !== 'on') return;
    ref.current.stop();
    s.send({ t: 'camera', state: 'off' });
    redraw((n) => n + 1);
  }, [open]);
  // continuous during a voice session: the live view, at maxFps (the server holds it to one a second).
  useEffect(() => {
    if (!on || !voiceLive || !w?.liveVideo) return;
    const timer = setInterval(() => { const data = ref.current?.grab(); if (data) s.send({ t: 'camera_frame', data }); }, 1000 / (w.maxFps ?? 1));
    return () => clearInterval(timer);
  }, [on, voiceLive]);
  if (!w?.enabled) return null;
  const cam = (ref.current ??= new Camera(w.maxWidth ?? 640));
  const update = () => redraw((n) => n + 1);

  s.onCamera = (f) => {
    if (f.t !== 'camera_request') return;
    const data = cam.status === 'on' ? cam.grab() : null;
    s.send(data ? { t: 'camera_frame', data, requestId: f.requestId } : { t: 'camera_fail', requestId: f.requestId, message: cam.status === 'on' ? 'the camera showed no picture yet' : 'the camera is off' });
    // The visitor is told each time the agent looks.
    if (data) s.addLine('system_event', t('camera.taken', { name: core.cfg.identity.agentName }));
  };

  const allow = async () => {
    update();
    const r = await cam.start();
    s.send({ t: 'camera', state: r.status, ...(r.reason ? { message: r.reason } : {}) });
    if (r.status !== 'on') s.addLine('error', t(r.status === 'denied' ? 'camera.denied' : 'camera.failed'));
    update();
  };
  const stop = () => { cam.stop(); s.send({ t: 'camera', state: 'off' }); update(); };
  const toggle = () => {
    if (cam.status === 'on') return stop();
    cam.status = cam.status === 'asking' ? 'off' : 'asking';
    update();
  };

  const button = (
    <button class={`ib cam${cam.status === 'on' ? ' on' : ''}`} aria-pressed={cam.status === 'on'} aria-label={t(cam.status === 'on' ? 'camera.stop' : 'camera.start')}
      title={t(cam.status === 'on' ? 'camera.stop' : 'camera.start')} onClick={toggle}>{ICON()}</button>
  );
  let panel: preact.JSX.Element | null = null;
  if (cam.status === 'asking' || cam.status === 'starting') {
    panel = (
      <div class="card camc" role="dialog" aria-label={t('camera.title')}>
        <style>{CSS}</style>
        <p><b>{t('camera.title')}</b></p>
        <p>{w.consentText}</p>
        {w.privacyUrl ? <a href={w.privacyUrl} target="_blank" rel="noopener noreferrer">{t('camera.privacy')}</a> : null}
        <div class="row">
          <button class="btn" disabled={cam.status === 'starting'} onClick={allow}>{t('camera.allow')}</button>
          <button class="btn alt" onClick={() => { cam.status = 'off'; update(); }}>{t('camera.notNow')}</button>
        </div>
      </div>
    );
  } else if (cam.status === 'on') {
    panel = (
      <div class="campv" aria-live="polite">
        <style>{CSS}</style>
        <div class="vid" ref={slot} />
        {/* A live view goes only with voice: without it, continuous is a picture with each message. */}
        <span><span class="rec" />{t(w.mode === 'on_demand' ? 'camera.onDemand' : w.mode === 'continuous' && core.cfg.voice?.enabled ? 'camera.continuous' : 'camera.live')}</span>
        <button class="btn alt" aria-label={t('camera.stop')} onClick={stop}>{t('camera.off')}</button>
      </div>
    );
  } else panel = <style>{CSS}</style>;

  return {
    button,
    panel,
    beforeSend() {
      if (cam.status !== 'on' || w.mode === 'on_demand' || (w.liveVideo && voiceLive)) return;
      if (!cam.due(w.maxFps ?? 0.5)) return;
      const data = cam.grab();
      if (data) s.send({ t: 'camera_frame', data });
    },
  };
}
