/** The chat window's CSS, built from the appearance settings. It lives in the loader's shadow root. */
import { accentColours, FONTS, MOBILE_QUERY } from '../theme.js';
import type { Appearance } from '../types.js';

const LIGHT = '--bg:#fff;--fg:#111827;--muted:#4b5563;--line:#e5e7eb;--soft:#f3f4f6;--err:#b91c1c;--errbg:#fef2f2';
const DARK = '--bg:#111827;--fg:#f9fafb;--muted:#9ca3af;--line:#374151;--soft:#1f2937;--err:#fca5a5;--errbg:#3b1d1d';

/** Which side the drawer opens on: its own setting, else the launcher's side. */
export function drawerSide(a: Appearance): 'left' | 'right' {
  if (a.drawer.side !== 'auto') return a.drawer.side;
  if (a.launcher.type === 'tab' && a.launcher.edge !== 'bottom') return a.launcher.edge;
  return a.launcher.position.endsWith('left') ? 'left' : 'right';
}

/** extra: CSS of the optional parts loaded (the voice UI's). */
export function chatCss(a: Appearance, extra = ''): string {
  const t = a.theme;
  const l = a.launcher;
  const [v, h] = l.position.split('-');
  // Panel and floating windows sit by the launcher, clear of the bubble.
  const gap = l.type === 'bubble' ? l.offset.y + l.size + 14 : l.offset.y;
  const side = drawerSide(a);
  const z = a.zIndex;
  // A tab launcher stays visible beside the window: the window keeps TAB px clear of the tab's edge.
  const TAB = 48;
  let at = `${v}:${gap}px;${h}:${l.offset.x}px`;
  let vGap = gap;
  let hGap = 2 * l.offset.x;
  if (l.type === 'tab' && l.edge !== 'bottom') { at = `bottom:${l.offset.y}px;${l.edge}:${TAB}px`; vGap = l.offset.y; hGap = TAB + 16; }
  else if (l.type === 'tab') { at = `bottom:${TAB}px;${l.align === 'start' ? 'left' : 'right'}:${l.offset.x}px`; vGap = TAB; }
  const box = (w: number, hgt: number) => `${at};width:min(${w}px,calc(100vw - ${hGap}px));height:min(${hgt}px,calc(100vh - ${vGap + 16}px))`;
  return `
.w{${LIGHT};--accent:${accentColours(t.accent).fill};--on:${accentColours(t.accent).on};--r:${t.radius}px;font-family:${FONTS[t.font] ?? FONTS.system};font-size:14px;line-height:1.45;color:var(--fg);background:var(--bg);display:flex;flex-direction:column;overflow:hidden;z-index:${z}}
.w.dark{${DARK}}
@media (prefers-color-scheme: dark){.w.auto{${DARK}}}
.w[hidden]{display:none}
.panel,.floating{animation:sc-in .18s ease-out}.drawer{animation:sc-${side} .22s ease-out}.bd{animation:sc-fade .22s}
@keyframes sc-in{from{opacity:0;transform:translateY(10px) scale(.98)}}@keyframes sc-fade{from{opacity:0}}
@keyframes sc-left{from{transform:translateX(-100%)}}@keyframes sc-right{from{transform:translateX(100%)}}
.panel.closing,.floating.closing{animation:sc-in-out .14s ease-in forwards}.drawer.closing{animation:sc-${side}-out .18s ease-in forwards}
@keyframes sc-in-out{to{opacity:0;transform:translateY(10px) scale(.98)}}@keyframes sc-left-out{to{transform:translateX(-100%)}}@keyframes sc-right-out{to{transform:translateX(100%)}}
@media (prefers-reduced-motion: reduce){.w,.bd{animation:none}}
.w *{box-sizing:border-box;font-family:inherit}
.panel{position:fixed;${box(a.panel.width, a.panel.height)};border-radius:var(--r);box-shadow:0 12px 40px rgba(0,0,0,.25)}
.drawer{position:fixed;top:0;bottom:0;${side}:0;width:min(${a.drawer.width}px,100vw);box-shadow:0 0 40px rgba(0,0,0,.25)}
.bd{position:fixed;inset:0;background:rgba(0,0,0,.45);z-index:${Math.max(0, z - 1)}}
/* Transparent, so nothing to clip: the caption's and message box's shadows show whole. */
.floating{position:fixed;${box(a.floating.width, a.floating.height)};background:transparent;pointer-events:none;overflow:visible}
.fl>*{pointer-events:auto}
.inline{position:relative;width:100%;height:100%;border:1px solid var(--line);border-radius:var(--r)}
${a.mobile.fullscreen ? `@media ${MOBILE_QUERY}{.panel,.drawer,.floating{inset:0;width:auto;height:auto;border-radius:0}.floating{background:var(--bg)}.floating .fc.big{margin:auto;width:200px}.floating .fl{padding:12px}}` : ''}
.hd{display:flex;align-items:center;gap:10px;padding:12px 14px;background:var(--accent);color:var(--on)}
.av{flex:none;width:34px;height:34px;border-radius:50%;display:flex;align-items:center;justify-content:center;font-weight:700;background:rgba(255,255,255,.25);color:inherit}
.hd .tt{flex:1;min-width:0}.hd b{display:block;font-size:15px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}.hd small{display:block;font-size:12px}
.ib{border:0;background:none;color:inherit;cursor:pointer;width:32px;height:32px;border-radius:8px;font-size:18px;line-height:1;display:flex;align-items:center;justify-content:center}
.ib:hover{background:rgba(127,127,127,.18)}
.menu{position:absolute;right:10px;top:54px;background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:10px;box-shadow:0 8px 24px rgba(0,0,0,.18);padding:4px;z-index:2;min-width:200px}
.menu button{display:block;width:100%;text-align:start;border:0;background:none;color:inherit;padding:9px 12px;border-radius:6px;cursor:pointer;font-size:14px}
.menu button:hover{background:var(--soft)}
.ms{flex:1;overflow-y:auto;overscroll-behavior:contain;padding:14px;display:flex;flex-direction:column;gap:8px}
.m{max-width:85%;padding:9px 12px;border-radius:var(--r);white-space:pre-wrap;word-wrap:break-word}.md,.ut,.md pre,.tw{unicode-bidi:isolate}.md p{unicode-bidi:plaintext}[dir=rtl] .send svg{transform:scaleX(-1)}
.m.user{align-self:flex-end;background:var(--accent);color:var(--on);border-bottom-right-radius:4px}
.m.assistant,.m.human_agent{align-self:flex-start;background:var(--soft);border-bottom-left-radius:4px}
.m.pending{opacity:.7}.m.failed{outline:2px dashed var(--err);outline-offset:2px}.m.failed .who{font-weight:600}.m.user .who{color:inherit}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.ms:focus-visible{outline:2px solid var(--accent);outline-offset:-2px}
.int{display:flex;flex-wrap:wrap;align-items:center;gap:6px 10px;margin-top:8px;padding-top:8px;border-top:1px dashed var(--line);font-size:12.5px;color:var(--muted);white-space:normal}.int.only{margin-top:0;padding-top:0;border-top:0}.int .btn{padding:5px 12px;font-size:13px;background:var(--bg);color:var(--fg);border:1px solid var(--accent)}
.m .who{display:block;font-size:11px;color:var(--muted);margin-bottom:2px}
.m .ts{display:block;font-size:11px;margin-top:3px;color:var(--muted);text-align:end}.m.user .ts{color:inherit}
.md{white-space:normal}.md>:first-child{margin-top:0}.md>:last-child{margin-bottom:0}
.md p,.md ul,.md ol,.md pre,.md blockquote,.md .tw{margin:0 0 8px}.md ul,.md ol{padding-inline-start:20px}.md li+li{margin-top:2px}
.md a{color:inherit;text-decoration:underline}.md code{font-family:ui-monospace,Menlo,monospace;font-size:12.5px;background:rgba(127,127,127,.16);padding:1px 4px;border-radius:4px}
.md pre{background:rgba(127,127,127,.14);padding:8px 10px;border-radius:8px;overflow-x:auto;white-space:pre}.md pre code{background:none;padding:0}
.md blockquote{border-inline-start:3px solid var(--line);padding-inline-start:10px;color:var(--muted)}.md hr{border:0;border-top:1px solid var(--line)}
.tw{overflow-x:auto;max-width:100%}.md table{border-collapse:collapse;font-size:13px}.md th,.md td{border:1px solid var(--line);padding:4px 8px;text-align:start;white-space:nowrap}.md th{background:rgba(127,127,127,.1)}
.md pre:focus-visible,.tw:focus-visible{outline:2px solid var(--accent)}
.m img{display:block;max-width:100%;max-height:160px;border-radius:8px;margin-top:6px}
.line{align-self:center;text-align:center;font-size:12px;color:var(--muted);max-width:90%}
.line.error{color:var(--err);background:var(--errbg);padding:6px 10px;border-radius:8px}
.fb{display:flex;gap:4px;margin-top:4px}.fb button{border:1px solid var(--line);background:var(--bg);color:var(--muted);border-radius:6px;cursor:pointer;padding:1px 7px;font-size:13px}
.fb button{display:flex;align-items:center;padding:3px 7px}.fb .dn{display:flex;transform:rotate(180deg)}
.fb button.on{background:var(--accent);color:var(--on);border-color:var(--accent)}
.cit{font-size:12px;margin-top:6px;color:var(--muted)}.cit a{color:inherit}.cit ul{margin:2px 0 0;padding-left:16px}
.sp{display:flex;flex-wrap:wrap;gap:6px;padding:0 14px 10px}
.sp button{border:1px solid var(--accent);color:var(--fg);background:var(--bg);border-radius:999px;padding:6px 12px;cursor:pointer;font-size:13px}
.sp button:hover{background:var(--soft)}
.st{padding:0 16px 6px;font-size:12px;color:var(--muted);min-height:18px}
.dots span{display:inline-block;width:6px;height:6px;margin-inline-end:3px;border-radius:50%;background:var(--muted);animation:b 1s infinite}
.dots span:nth-child(2){animation-delay:.15s}.dots span:nth-child(3){animation-delay:.3s}
@keyframes b{0%,80%,100%{opacity:.3}40%{opacity:1}}
@media (prefers-reduced-motion: reduce){.dots span{animation:none}}
.card{margin:0 14px 10px;padding:12px;border:1px solid var(--line);border-radius:var(--r);background:var(--bg)}
.card p{margin:0 0 8px}
.card label{display:block;font-size:12px;color:var(--muted);margin:6px 0 2px}
.card input,.card select,.card textarea{width:100%;padding:7px 9px;border:1px solid var(--line);border-radius:8px;background:var(--bg);color:var(--fg);font-size:14px}
.btn{border:0;border-radius:8px;padding:8px 14px;cursor:pointer;background:var(--accent);color:var(--on);font-weight:600;font-size:14px}
.btn.alt{background:var(--soft);color:var(--fg)}
.row{display:flex;gap:8px;margin-top:10px}
.stars{display:flex;gap:6px}.stars button{flex:1;border:1px solid var(--line);background:var(--bg);color:var(--fg);border-radius:8px;padding:6px 0;cursor:pointer;font-size:15px}
.stars button:hover,.stars button.on{background:var(--accent);color:var(--on)}
.cp{border-top:1px solid var(--line);padding:8px 10px;display:flex;align-items:flex-end;gap:6px;background:var(--bg)}
.cp textarea{flex:1;resize:none;border:1px solid var(--line);border-radius:calc(var(--r) / 2 + 4px);padding:8px 10px;max-height:120px;min-height:38px;background:var(--bg);color:var(--fg);font-size:14px;outline:none}
.cp textarea:focus{border-color:var(--accent)}.cp textarea:disabled,.cp .ib:disabled{opacity:.55;cursor:not-allowed}
.cp .ib{color:var(--muted)}
.cp .ib.send{background:var(--accent);color:var(--on)}
.cnt{font-size:11px;color:var(--muted);text-align:end;padding:0 14px}.cnt.over{color:var(--err)}
.th{display:flex;gap:6px;padding:6px 10px 0;flex-wrap:wrap}.th div{position:relative}.th img{width:48px;height:48px;object-fit:cover;border-radius:6px;display:block}
.th button{position:absolute;top:-6px;inset-inline-end:-6px;width:18px;height:18px;border-radius:50%;border:0;background:#000;color:#fff;font-size:11px;cursor:pointer}
.th .up{opacity:.5}
.pw{text-align:center;font-size:11px;color:var(--muted);padding:4px 0 6px}
.fl{display:flex;flex-direction:column;height:100%;gap:8px;justify-content:flex-end;padding:4px}
.fl .top{display:flex;justify-content:flex-end;gap:6px}
.fl .top .ib{background:var(--bg);color:var(--fg);box-shadow:0 2px 8px rgba(0,0,0,.2)}
.fc{flex:none;align-self:center;aspect-ratio:1;transition:filter .6s}
.fc svg,.fc canvas{display:block;width:100%;height:100%}
.fc.small{width:64px;margin-top:8px}.fc.medium{width:104px;margin-top:10px}.fc.large{width:150px;margin-top:12px}
.fc.big{width:min(168px,56%);padding-bottom:10px;background:radial-gradient(closest-side,rgba(0,0,0,.22),transparent) bottom/64% 14px no-repeat}
/* A photo face is a circle with its shadow; drawn on the canvas, so nothing clips the ground shadow below it. */
.fc[data-kind=custom] canvas{width:auto;max-width:100%;aspect-ratio:1;margin:0 auto;border-radius:50%;box-shadow:0 6px 20px rgba(0,0,0,.2)}
.fc[data-mood=offline]{filter:grayscale(.8) opacity(.72)}
/* The face sits in a band of its own: messages scroll under a line below it, not up against its chin. */
.fc~.ms{border-top:1px solid var(--line)}.fc.small,.fc.medium,.fc.large{margin-bottom:8px}
.line.offline{margin:6px 14px 0;padding:8px 12px;border-radius:10px;background:var(--soft);color:var(--fg);align-self:stretch;max-width:none}
.fl .line.offline{background:var(--bg);box-shadow:0 6px 24px rgba(0,0,0,.18);margin:0}
.vk{display:inline-flex;vertical-align:-1px;margin-right:5px;opacity:.75}.cap.error{color:var(--err)}
/* The caption takes the height the face and the message box leave, and scrolls a reply longer than that. */
.cap{background:var(--bg);color:var(--fg);border-radius:var(--r);padding:10px 12px;box-shadow:0 6px 24px rgba(0,0,0,.18);flex:0 1 auto;min-height:0;overflow-y:auto;overscroll-behavior:contain;white-space:pre-wrap}
.fl .cp{border:0;border-radius:var(--r);box-shadow:0 6px 24px rgba(0,0,0,.18)}
.fl .sp{padding:0}
.fl .st{background:var(--bg);border-radius:8px;padding:4px 8px;align-self:flex-start}
.fl .st:empty{display:none}
${extra}`;
}
