/**
 * Operator endpoints mounted straight on the router (they answer machines, not API clients, so the API's
 * authentication does not run): /readyz, /metrics on the main port behind METRICS_TOKEN, the metrics port
 * (METRICS_PORT), and the one-time sign-in link the command line makes.
 */
import { createServer, type Server } from 'node:http';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { AppContext } from '../app/context.js';
import { createSession } from '../auth/sessions.js';
import { consumeSignInLink, SIGNIN_LINK_PATH } from '../auth/signin-links.js';
import { ConfigError } from '../config/index.js';
import { ApiError, unauthorized } from '../kernel/errors.js';
import type { Router } from '../http/router.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { addSampler, enableMetrics, scrape, sampled } from '../metrics/registry.js';
import { installAppSamplers } from './samplers.js';
import type { Readiness } from '../app/readiness.js';
import type { VoiceService } from '../../actors/voice/index.js';

export interface OperationsSettings {
  /** Bearer token that opens GET /metrics on the main port; null: not served there. */
  metricsToken: string | null;
  /** A separate port serving only GET /metrics (no token); null: none. */
  metricsPort: number | null;
  metricsHost: string;
}

const sha = (s: string) => createHash('sha256').update(s).digest();
const sameToken = (a: string, b: string) => timingSafeEqual(sha(a), sha(b));

async function readyAnswer(readiness: Readiness): Promise<HttpResponse> {
  const report = await readiness.report();
  if (report.ready) return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: report };
  const failing = Object.entries(report.checks).filter(([, c]) => !c.ok).map(([n, c]) => `${n}: ${c.problem}`).join('; ');
  return { status: 503, headers: { 'Cache-Control': 'no-store' }, body: { ...report, error: { code: 'unavailable', message: `not ready: ${failing}` } } };
}

async function metricsAnswer(): Promise<HttpResponse> {
  const { contentType, body } = await scrape();
  return { status: 200, headers: { 'Content-Type': contentType, 'Cache-Control': 'no-store' }, body };
}

/** Mounts the routes and starts the metrics port; returns the metrics port's number (null without one). */
export async function mountOperations(app: AppContext, services: { readiness: Readiness; voice: VoiceService }, router: Router, settings: OperationsSettings): Promise<number | null> {
  const metricsOn = settings.metricsToken !== null || settings.metricsPort !== null;
  if (metricsOn) {
    enableMetrics();
    installAppSamplers(app, services.voice);
    // Checked at each scrape, so the ready gauge is current even when nothing polls /readyz.
    app.onClose(addSampler(async () => {
      const report = await services.readiness.report();
      sampled.ready.inc(report.ready ? 1 : 0);
      sampled.diskFull.inc(report.checks.disk?.ok === false ? 1 : 0);
    }));
  }
  router.add('GET', '/readyz', () => readyAnswer(services.readiness));
  router.add('GET', '/metrics', (req: HttpRequest) => {
    if (!settings.metricsToken) {
      throw new ApiError('not_found', 404, settings.metricsPort !== null
        ? `metrics are served on their own port (${settings.metricsPort}), not here`
        : 'metrics are off: set METRICS_TOKEN (served here with Authorization: Bearer) or METRICS_PORT (a separate port); see docs/operations.md');
    }
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
    if (!m || !sameToken(m[1], settings.metricsToken)) throw unauthorized('send the metrics token (METRICS_TOKEN) as Authorization: Bearer <token>');
    return metricsAnswer();
  });
  router.add('GET', SIGNIN_LINK_PATH, async (req: HttpRequest) => {
    const token = req.query.get('token') ?? '';
    const user = token ? await consumeSignInLink(app, token) : null;
    if (!user) throw new ApiError('not_found', 404, 'this sign-in link is unknown, used or expired; make a new one with: service-chat signin-link --email <address>');
    const s = await createSession(app, user);
    app.log.warn({ userId: user._id, workspaceId: user.workspaceId }, 'signed in with a one-time link from the command line');
    return { status: 302, headers: { Location: '/admin', 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }, cookies: [s.cookie] };
  });
  if (settings.metricsPort === null) return null;
  // In a WORKERS group every worker is its own process with its own numbers: worker i listens on METRICS_PORT + i.
  return startMetricsPort(app, services.readiness, settings.metricsHost, settings.metricsPort + (app.config.group?.index ?? 0));
}

/** A plain node:http listener: it must answer even when the main port is saturated. */
function startMetricsPort(app: AppContext, readiness: Readiness, host: string, port: number): Promise<number> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (a: HttpResponse) => {
      const body = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
      res.writeHead(a.status ?? 200, { 'Content-Type': 'application/json; charset=utf-8', ...a.headers });
      res.end(body);
    };
    const answer = path === '/metrics' ? metricsAnswer() : path === '/readyz' ? readyAnswer(readiness)
      : Promise.resolve({ status: 404, body: { error: { code: 'not_found', message: 'this port serves GET /metrics and GET /readyz' } } });
    answer.then(send, (err) => send({ status: 500, body: { error: { code: 'internal', message: String((err as Error)?.message ?? err) } } }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new ConfigError(`could not listen for metrics on ${host}:${port} (${err.code}): set METRICS_PORT to a free port`)));
    server.listen(port, host, () => {
      app.onClose(() => new Promise<void>((r) => server.close(() => r())));
      resolve((server.address() as { port: number }).port);
    });
  });
}
