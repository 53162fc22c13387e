/** The voice bar and microphone button: chat-voice.js hands it to the chat window's CSS (styles.ts). */
export const voiceCss = `
.vb{display:flex;align-items:center;gap:10px;margin:0 10px 8px;padding:7px 7px 7px 8px;border:1px solid var(--line);border-radius:calc(var(--r) / 2 + 14px);background:var(--soft);min-height:50px}
.vb:focus{outline:none}
.vi{flex:none;width:12px;height:12px;margin:0 4px 0 6px;border-radius:50%;background:var(--accent)}
.vb.connecting .vi,.vb.ended .vi{background:var(--muted)}
.vb.muted .vi{background:var(--err)}
.vs{flex:1;min-width:0;font-size:13px;font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.vb.ended .vs{color:var(--muted);font-weight:500}
.lv{flex:none;display:flex;align-items:center;gap:3px;height:24px}
.lv i{display:block;width:4px;height:100%;border-radius:2px;background:var(--accent);transform:scaleY(.15);transition:transform 70ms linear}
.vb.muted .lv i,.vb.connecting .lv i,.vb.thinking .lv i{background:var(--muted);opacity:.5}
.vb.ended .lv{display:none}
.vb .ib{flex:none;width:36px;height:36px;border-radius:50%}
.vb .vm{background:var(--bg);color:var(--fg);border:1px solid var(--line)}
.vb .vm.on{background:var(--errbg);color:var(--err);border-color:var(--err)}
.vb .ve{background:#dc2626;color:#fff}.vb .ve:hover{background:#b91c1c}
.talk{flex:none;width:44px;height:44px;border-radius:50%;border:0;cursor:pointer;display:flex;align-items:center;justify-content:center;background:var(--accent);color:var(--on);touch-action:none;user-select:none;-webkit-user-select:none;-webkit-touch-callout:none}
.talk.on{box-shadow:0 0 0 4px var(--bg),0 0 0 7px var(--accent)}
.btn.mic.solo{align-self:center;display:flex;align-items:center;gap:8px;border-radius:999px;padding:10px 18px;box-shadow:0 6px 24px rgba(0,0,0,.18)}
.fl .vb{background:var(--bg);box-shadow:0 6px 24px rgba(0,0,0,.18);margin:0}
@keyframes vp{0%,100%{opacity:1}50%{opacity:.45}}
.vb.connecting .vi{animation:vp 1.2s ease-in-out infinite}
@media (prefers-reduced-motion: reduce){.lv{display:none}.vb.connecting .vi{animation:none}.lv i{transition:none}}
`;
