import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staticFolder } from '../../http/static.js';
import { extraRoute, reply, type ApiModule } from '../define.js';

const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const swaggerFiles = staticFolder(swaggerDir, { maxAgeSec: 86400, allow: (n) => /^(swagger-ui(-bundle|-standalone-preset)?\.(js|css)|favicon-32x32\.png)$/.test(n) });
/** Browser bundles built by scripts/build.mjs into dist/public (widget/, admin/). */
export const publicDir = join(dirname(fileURLToPath(import.meta.url)), '../../../', import.meta.url.endsWith('.ts') ? 'dist/public' : 'public');
const publicFiles = staticFolder(publicDir, { maxAgeSec: 300 });

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title><link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
<link rel="icon" href="/api/docs/assets/favicon-32x32.png"></head>
<body><div id="docs"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script></body></html>`;
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#docs', deepLinking: true, tryItOutEnabled: false, persistAuthorization: false });`;

/** OpenAPI document, the interactive reference (local assets only), health, and the browser bundles. */
export function systemModule(getOpenApi: () => Record<string, unknown>): ApiModule {
  return {
    name: 'system',
    routes: [
      extraRoute({ method: 'GET', path: '/api/openapi.json', access: { kind: 'public' }, tag: 'System', summary: 'OpenAPI 3.1 description of this API',
        handler: () => reply({ headers: { 'Cache-Control': 'no-cache' }, body: getOpenApi() }) }),
      extraRoute({ method: 'GET', path: '/api/docs', access: { kind: 'public' }, tag: 'System', summary: 'interactive API reference', hidden: true,
        handler: () => reply({ headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'" }, body: DOCS_HTML }) }),
      extraRoute({ method: 'GET', path: '/api/docs/init.js', access: { kind: 'public' }, tag: 'System', summary: 'docs start-up script', hidden: true,
        handler: () => reply({ headers: { 'Content-Type': 'text/javascript; charset=utf-8' }, body: DOCS_INIT }) }),
      extraRoute({ method: 'GET', path: '/api/docs/assets/*', access: { kind: 'public' }, tag: 'System', summary: 'docs assets', hidden: true,
        handler: ({ req, params }) => reply(swaggerFiles(req, params.rest)) }),
      extraRoute({ method: 'GET', path: '/healthz', access: { kind: 'public' }, tag: 'System', summary: 'liveness: answers 200 while the server runs',
        handler: ({ app }) => ({ ok: true, version: app.config.version, store: app.store.kind, vectors: app.vectors.kind }) }),
      extraRoute({ method: 'GET', path: '/static/*', access: { kind: 'public' }, tag: 'System', summary: 'widget and admin bundles', hidden: true, cors: true,
        handler: ({ req, params }) => reply(publicFiles(req, params.rest)) }),
    ],
  };
}
