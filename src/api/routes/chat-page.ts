/**
 * The shareable full-page chat (`/chat/{botId}`) and `/` (to the admin panel). The chat page is an ordinary embed
 * of the widget on this server's own origin: the same widget endpoints, origin check (security.allowedOrigins)
 * and rate limits as any site. The admin panel's try-it page frames it with `?layout=` and a preview token in the
 * hash (`#preview=…`, never sent to the server in the page request).
 */
import { extraRoute, reply, type RouteDef } from '../define.js';

/** Scripts and styles from this server only; blob: and wasm for the widget's voice worklets and face mesh. */
const CHAT_CSP = "default-src 'self'; script-src 'self' blob: 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' blob: data:; "
  + "connect-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (botId: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Chat</title><meta name="robots" content="noindex"><link rel="stylesheet" href="/chat/assets/page.css"></head>
<body data-bot-id="${esc(botId)}">
<main id="site" class="site" hidden><div class="bar"></div><h1>Your website</h1><p>This is how the chat sits on a page of your site. Open it with the launcher.</p>
<div class="lines"><span></span><span></span><span></span><span class="short"></span></div></main>
<div id="chat" class="chat"></div>
<p id="problem" class="problem" role="alert" hidden></p>
<script src="/chat/assets/page.js"></script>
</body></html>`;

const CSS = `html,body{margin:0;height:100%;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f5f6f8;color:#17202c}
.chat{height:100%}.site{max-width:46rem;margin:0 auto;padding:2rem 1.5rem}.site h1{margin:.5rem 0}.bar{height:.6rem;width:30%;background:#d7dce4;border-radius:4px}
.lines span{display:block;height:.8rem;background:#e4e8ee;border-radius:4px;margin:.9rem 0}.lines .short{width:60%}
.problem{max-width:32rem;margin:3rem auto;padding:1rem 1.25rem;background:#fff;border:1px solid #dde1e7;border-radius:10px}
@media (prefers-color-scheme:dark){html,body{background:#0f1318;color:#e6e9ef}.problem{background:#181d24;border-color:#2c3440}.bar,.lines span{background:#262d38}}`;

/**
 * Loads and boots the widget: inline filling the page by default; another layout (?layout=floating|panel|drawer) over a
 * sketch of a website. The config is asked for first so a bot that cannot chat here says why in words.
 */
const JS = `(function () {
  var botId = document.body.getAttribute('data-bot-id');
  var layout = new URLSearchParams(location.search).get('layout') || 'inline';
  var preview = new URLSearchParams(location.hash.slice(1)).get('preview');
  var opts = { botId: botId, layout: layout, open: true };
  if (layout === 'inline') opts.target = '#chat'; else { document.getElementById('site').hidden = false; document.getElementById('chat').hidden = true; }
  if (preview) opts.previewToken = preview;
  var show = function (text) { var p = document.getElementById('problem'); p.textContent = text; p.hidden = false; document.getElementById('chat').hidden = true; };
  (window.ServiceChat = window.ServiceChat || { q: [] });
  fetch('/widget/v1/bots/' + encodeURIComponent(botId) + '/config' + (preview ? '?preview=' + encodeURIComponent(preview) : ''))
    .then(function (r) {
      if (r.ok) {
        // The title before the loader: it keeps the page's title to restore after its unread notices.
        return r.json().catch(function () { return null; }).then(function (c) {
          if (c && c.identity && c.identity.agentName) document.title = 'Chat with ' + c.identity.agentName;
          window.ServiceChat.q.push(['boot', opts]);
          var s = document.createElement('script');
          s.src = '/static/widget/loader.js';
          document.body.appendChild(s);
        });
      }
      return r.json().then(function (b) {
        var m = b && b.error ? b.error.message : '';
        show(r.status === 404 ? 'This chat is not available: the bot does not exist or is not published yet.' : 'This chat is not available here: ' + m);
      });
    })
    .catch(function () { show('Cannot reach the server. Check your connection and reload the page.'); });
})();`;

/**
 * The admin panel's face finder frame: the widget's skinFromPhoto needs MediaPipe, whose wasm glue evaluates
 * strings, which the panel's own CSP forbids. It runs here instead, asked by the panel (same origin only) with
 * postMessage: { id, photo: Blob, name } -> { id, face } or { id, error }.
 */
const FINDER_CSP = "default-src 'self'; script-src 'self' 'unsafe-eval' 'wasm-unsafe-eval' blob:; worker-src 'self' blob:; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'self'";
const FINDER_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Face finder</title></head><body>
<script src="/static/widget/loader.js"></script><script src="/admin/face-finder.js"></script></body></html>`;
const FINDER_JS = `addEventListener('message', function (e) {
  if (e.origin !== location.origin || !e.data || typeof e.data.id !== 'number') return;
  var reply = function (m) { m.id = e.data.id; e.source.postMessage(m, location.origin); };
  var sc = window.ServiceChat;
  if (!sc || typeof sc.skinFromPhoto !== 'function') { reply({ error: 'unavailable' }); return; }
  sc.skinFromPhoto(e.data.photo, { name: e.data.name }).then(function (face) { reply({ face: face }); },
    function (err) { reply({ error: (err && err.message) || String(err) }); });
});
parent.postMessage({ ready: typeof (window.ServiceChat && window.ServiceChat.skinFromPhoto) === 'function' }, location.origin);`;

export const chatPageRoutes: RouteDef[] = [
  extraRoute({ method: 'GET', path: '/admin/face-finder', access: { kind: 'public' }, tag: 'System', summary: 'admin panel: face finder frame', hidden: true,
    handler: () => reply({ headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache', 'Content-Security-Policy': FINDER_CSP, 'X-Content-Type-Options': 'nosniff' }, body: FINDER_HTML }) }),
  extraRoute({ method: 'GET', path: '/admin/face-finder.js', access: { kind: 'public' }, tag: 'System', summary: 'admin panel: face finder script', hidden: true,
    handler: () => reply({ headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }, body: FINDER_JS }) }),
  extraRoute({ method: 'GET', path: '/', access: { kind: 'public' }, tag: 'System', summary: 'the admin panel', hidden: true,
    handler: () => reply({ status: 302, headers: { Location: '/admin/' }, body: '' }) }),
  extraRoute({ method: 'GET', path: '/chat/{botId}', access: { kind: 'public' }, tag: 'Widget', summary: "a full-page chat with a bot's published config (shareable link)", hidden: true,
    handler: ({ params }) => reply({ headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache', 'Content-Security-Policy': CHAT_CSP, 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff' }, body: page(params.botId ?? '') }) }),
  extraRoute({ method: 'GET', path: '/chat/assets/page.js', access: { kind: 'public' }, tag: 'Widget', summary: 'chat page script', hidden: true,
    handler: () => reply({ headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=300' }, body: JS }) }),
  extraRoute({ method: 'GET', path: '/chat/assets/page.css', access: { kind: 'public' }, tag: 'Widget', summary: 'chat page style', hidden: true,
    handler: () => reply({ headers: { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=300' }, body: CSS }) }),
];
