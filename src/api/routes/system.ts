import { z } from 'zod';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staticFolder } from '../../http/static.js';
import { extraRoute, reply, type ApiModule } from '../define.js';
import { chatPageRoutes } from './chat-page.js';

const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const swaggerFiles = staticFolder(swaggerDir, { maxAgeSec: 86400, allow: (n) => /^(swagger-ui(-bundle|-standalone-preset)?\.(js|css)|favicon-32x32\.png)$/.test(n) });
/** Browser bundles built by scripts/build.mjs into dist/public (widget/, admin/). */
export const publicDir = join(dirname(fileURLToPath(import.meta.url)), '../../../', import.meta.url.endsWith('.ts') ? 'dist/public' : 'public');
const publicFiles = staticFolder(publicDir, { maxAgeSec: 300 });

/** The admin panel's page loads only its own bundle and stylesheet and talks only to this server. */
const ADMIN_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title><link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
<link rel="icon" href="/api/docs/assets/favicon-32x32.png"></head>
<body><div id="docs"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script></body></html>`;
/**
 * "Try it out" sends to the page's own origin (the only one its CSP allows, and the one the session cookie belongs to),
 * whatever PUBLIC_URL says. Signed in, the browser sends the session cookie by itself; the CSRF token comes from GET /me.
 */
const DOCS_INIT = `fetch('/api/openapi.json').then(function (r) { return r.json(); }).then(function (spec) {
  spec.servers = [{ url: location.origin }];
  window.ui = SwaggerUIBundle({ spec: spec, dom_id: '#docs', deepLinking: true, tryItOutEnabled: false, persistAuthorization: false,
    onComplete: function () {
      fetch('/api/v1/me', { credentials: 'same-origin' })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (me) { if (me && me.csrfToken) window.ui.preauthorizeApiKey('csrf', me.csrfToken); })
        .catch(function () { /* not signed in: Authorize by hand */ });
    } });
});`;

/** OpenAPI document, the interactive reference (local assets only), health, and the browser bundles. */
export function systemModule(getOpenApi: () => Record<string, unknown>): ApiModule {
  return {
    name: 'system',
    routes: [
      ...chatPageRoutes,
      extraRoute({ method: 'GET', path: '/api/openapi.json', access: { kind: 'public' }, tag: 'System', summary: 'OpenAPI 3.1 description of this API',
        response: z.record(z.string(), z.unknown()).describe('an OpenAPI 3.1 document'),
        handler: () => reply({ headers: { 'Cache-Control': 'no-cache' }, body: getOpenApi() }) }),
      extraRoute({ method: 'GET', path: '/api/docs', access: { kind: 'public' }, tag: 'System', summary: 'interactive API reference', hidden: true,
        handler: () => reply({ headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'" }, body: DOCS_HTML }) }),
      extraRoute({ method: 'GET', path: '/api/docs/init.js', access: { kind: 'public' }, tag: 'System', summary: 'docs start-up script', hidden: true,
        handler: () => reply({ headers: { 'Content-Type': 'text/javascript; charset=utf-8' }, body: DOCS_INIT }) }),
      extraRoute({ method: 'GET', path: '/api/docs/assets/*', access: { kind: 'public' }, tag: 'System', summary: 'docs assets', hidden: true,
        handler: ({ req, params }) => reply(swaggerFiles(req, params.rest)) }),
      extraRoute({ method: 'GET', path: '/healthz', access: { kind: 'public' }, tag: 'System', summary: 'liveness: answers 200 while the server runs',
        response: z.object({ ok: z.boolean(), version: z.string(), store: z.string(), vectors: z.string() }),
        handler: ({ app }) => ({ ok: true, version: app.config.version, store: app.store.kind, vectors: app.vectors.kind }) }),
      extraRoute({ method: 'GET', path: '/static/*', access: { kind: 'public' }, tag: 'System', summary: 'widget and admin bundles', hidden: true, cors: true,
        handler: ({ req, params }) => reply(publicFiles(req, params.rest)) }),
      extraRoute({ method: 'GET', path: '/admin', access: { kind: 'public' }, tag: 'System', summary: 'admin panel (single page; views are picked by the #hash)', hidden: true,
        handler: ({ req }) => {
          const page = publicFiles(req, 'admin/index.html');
          return reply((page.status ?? 200) >= 400 ? page : { ...page, headers: { ...page.headers, 'Cache-Control': 'no-cache', 'Content-Security-Policy': ADMIN_CSP, 'Referrer-Policy': 'no-referrer' } });
        } }),
    ],
  };
}
